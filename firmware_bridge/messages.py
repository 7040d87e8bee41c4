"""The message table: every message between the host and the table MCU, defined once.

The codec, the generated C header (`hardware/mahjong_protocol.h`), `hardware/protocol.md` and the
table hash exchanged in the identify handshake all come from the definitions below.
"""

import hashlib
from dataclasses import dataclass
from enum import IntEnum

from firmware_bridge.fields import U8, U16, U32, U64, Command, Message, Sender, all_specs, message
from firmware_bridge.frame import (
    IDENTIFY_REPLY_TYPE,
    IDENTIFY_TYPE,
    MAX_PAYLOAD,
    PROTOCOL_VERSION,
    Flag,
)

HOST = Sender.HOST
MCU = Sender.MCU
SEATS = 4
SIDES = 4
MAX_WINDOW = 16
"""The most commands the host may have unanswered; the MCU keeps this many replies."""
HEARTBEAT_INTERVAL_MS = 500
HEARTBEAT_TIMEOUT_MS = 2000
MAX_ZONE_UIDS = (MAX_PAYLOAD - 2) // 8
WALL_PAGE_STACKS = 4
ZONE_PAGE_UIDS = 8
"""UIDs in one page of a zone read (`query_zone_page`): a 68-byte payload, where a whole
discard zone (`zone_inventory`) can take 250 bytes and more, which a noisy line damages often."""
"""The most stacks one `query_wall` asks for (a reply of ~100 bytes: big frames seldom get
through a line that damages one byte in 200)."""


class Zone(IntEnum):
    """The three antenna zones in front of each seat."""

    HAND = 0
    MELD = 1
    DISCARD = 2


class Motor(IntEnum):
    """Motors of the table; bit n of a motor mask is motor n."""

    SHUFFLER = 0
    STACKER = 1
    LIFT_EAST = 2
    LIFT_SOUTH = 3
    LIFT_WEST = 4
    LIFT_NORTH = 5
    DICE = 6
    PLATFORM = 7


class FaultCode(IntEnum):
    """Faults the MCU reports; `detail` is a Motor, an antenna number or 0."""

    JAM = 1
    OVERCURRENT = 2
    MOTOR_TIMEOUT = 3
    READER_ERROR = 4
    LID_OPEN = 5
    ESTOP = 6
    HEARTBEAT_LOST = 7


class RejectReason(IntEnum):
    """Why the MCU refused a command."""

    UNKNOWN_COMMAND = 1
    BAD_ARGUMENT = 2
    BUSY = 3
    LID_OPEN = 4
    ESTOP = 5
    NOT_READY = 6
    NO_TILES = 7
    FAULT_ACTIVE = 8


class ResetCause(IntEnum):
    """Why the MCU last started."""

    POWER_ON = 0
    WATCHDOG = 1
    SOFTWARE = 2
    BROWNOUT = 3
    RESET_LINE = 4


class TileSetKind(IntEnum):
    """Which tiles of a physical set go into the walls."""

    WITH_FLOWERS_144 = 1
    NO_FLOWERS_136 = 2
    SUITS_ONLY_108 = 3


class Motion(IntEnum):
    """Long-running operations; each ends with a `motion_done` event."""

    BUILD = 1
    RAISE = 2
    LOWER = 3
    DICE = 4
    SELF_TEST = 5


class Outcome(IntEnum):
    """How a motion ended."""

    DONE = 0
    STOPPED = 1
    FAILED = 2
    TIMED_OUT = 3


class BuildState(IntEnum):
    """State of the walls under the table."""

    EMPTY = 0
    BUILDING = 1
    BUILT = 2
    FAILED = 3


class Component(IntEnum):
    """What a self-test exercises."""

    SHUFFLER = 1
    STACKER = 2
    LIFTS = 3
    DICE = 4
    WALL_READER = 5
    ZONE_READERS = 6
    LID_SWITCH = 7
    ESTOP_INPUT = 8


ENUMS: tuple[type[IntEnum], ...] = (
    Zone,
    Motor,
    FaultCode,
    RejectReason,
    ResetCause,
    TileSetKind,
    Motion,
    Outcome,
    BuildState,
    Component,
)
MODEL_NAMES = {1: "reference two-set four-port table"}


def antenna_number(seat: int, zone: Zone) -> int:
    """Reader antenna numbering in fault details: 0 is the wall reader, then 3 per seat."""
    return 1 + seat * 3 + int(zone)


# ---- MCU -> host: replies --------------------------------------------------------------------


@message(IDENTIFY_REPLY_TYPE, MCU)
@dataclass(frozen=True, slots=True)
class IdentifyReply(Message):
    """Who the MCU is: firmware, protocol, message table hash, model, reset cause, counters.

    Its first eight bytes (firmware version, protocol version, table hash) keep their place in
    every protocol version, and its frame is checked without the version: a table of any version
    can say which one it speaks."""

    firmware_major: U8
    firmware_minor: U8
    firmware_patch: U8
    protocol_version: U8
    table_hash: U32
    model: U16
    seats: U8
    zones_per_seat: U8
    max_payload: U16
    max_window: U8
    reset_cause: ResetCause
    boot_count: U32
    event_counter: U32


@message(0x41, MCU)
@dataclass(frozen=True, slots=True)
class Pong(Message):
    """Answer to ping, echoing its token."""

    token: U32


@message(0x42, MCU)
@dataclass(frozen=True, slots=True)
class HeartbeatReply(Message):
    """Answer to heartbeat: the number of the last event sent and the uptime."""

    event_counter: U32
    uptime_ms: U32


@dataclass(frozen=True, slots=True)
class ActiveFault:
    """One fault that is still active."""

    code: FaultCode
    detail: U16


@message(0x43, MCU)
@dataclass(frozen=True, slots=True)
class Status(Message):
    """Motors, lifts, lid, emergency stop, walls, dice and active faults."""

    event_counter: U32
    uptime_ms: U32
    motors_running: U8
    lifts_up: U8
    lifts_moving: U8
    platform_lowered: bool
    lid_open: bool
    estop: bool
    build_state: BuildState
    tiles_placed: U16
    dice_rolls: U16
    last_d1: U8
    last_d2: U8
    faults: tuple[ActiveFault, ...]


@message(0x44, MCU)
@dataclass(frozen=True, slots=True)
class ZoneInventory(Message):
    """Every tag UID one zone antenna reads (sorted); sent on change, periodically, on request."""

    seat: U8
    zone: Zone
    uids: tuple[U64, ...]


@dataclass(frozen=True, slots=True)
class WallSlot:
    """One tile of a wall: its stack, layer and tag UID."""

    stack: U8
    layer: U8
    uid: U64


@message(0x45, MCU)
@dataclass(frozen=True, slots=True)
class WallSide(Message):
    """The tiles placed so far on the stacks asked for of one side of the walls under the
    table, and the layout of the build (0, 0 before any)."""

    side: U8
    tiles_per_side: U8
    layers: U8
    slots: tuple[WallSlot, ...]


@message(0x46, MCU)
@dataclass(frozen=True, slots=True)
class Accepted(Message):
    """The command was accepted; a motion's end comes later as `motion_done`."""


@message(0x47, MCU)
@dataclass(frozen=True, slots=True)
class Rejected(Message):
    """The command was refused, with a reason and a detail."""

    reason: RejectReason
    detail: U16


@message(0x48, MCU)
@dataclass(frozen=True, slots=True)
class LinkAck(Message):
    """An empty frame carrying only the header: an acknowledgement, NAK or NEED_SYNC."""


@message(0x49, MCU)
@dataclass(frozen=True, slots=True)
class ZonePage(Message):
    """A page of a zone's kept list (reply to query_zone_page): its `total`, UIDs from `first`.

    The list is the one kept at the zone's last page 0, sorted ascending; at most the query's
    `count` UIDs."""

    seat: U8
    zone: Zone
    total: U8
    first: U8
    uids: tuple[U64, ...]


# ---- MCU -> host: events ---------------------------------------------------------------------


@message(0x80, MCU)
@dataclass(frozen=True, slots=True)
class WallTile(Message):
    """The stacking head placed a tile: where, and the UID the wall reader read."""

    side: U8
    stack: U8
    layer: U8
    uid: U64


@message(0x81, MCU)
@dataclass(frozen=True, slots=True)
class WallBuilt(Message):
    """One side of the walls is complete, with the number of tiles placed."""

    side: U8
    count: U8


@message(0x82, MCU)
@dataclass(frozen=True, slots=True)
class MotionDone(Message):
    """A motion (build, raise, lower, dice, self-test) ended."""

    motion: Motion
    outcome: Outcome


@message(0x83, MCU)
@dataclass(frozen=True, slots=True)
class Dice(Message):
    """The dice under the dome came to rest."""

    d1: U8
    d2: U8


@message(0x84, MCU)
@dataclass(frozen=True, slots=True)
class Fault(Message):
    """A fault began; every motor it concerns has stopped."""

    code: FaultCode
    detail: U16


@message(0x85, MCU)
@dataclass(frozen=True, slots=True)
class FaultCleared(Message):
    """A fault ended (lid closed, e-stop released, heartbeat back)."""

    code: FaultCode
    detail: U16


@message(0x86, MCU)
@dataclass(frozen=True, slots=True)
class SelfTestResult(Message):
    """The result of a self-test."""

    component: Component
    passed: bool
    detail: U16


@message(0x87, MCU)
@dataclass(frozen=True, slots=True)
class Boot(Message):
    """The MCU has started; sent once with NEED_SYNC until the host identifies."""

    reset_cause: ResetCause
    boot_count: U32


# ---- host -> MCU: commands -------------------------------------------------------------------


@message(IDENTIFY_TYPE, HOST)
@dataclass(frozen=True, slots=True)
class Identify(Command[IdentifyReply]):
    """Start a session (sent with SYNC): the MCU answers who it is."""


@message(0x02, HOST)
@dataclass(frozen=True, slots=True)
class Ping(Command[Pong]):
    """Round-trip test; the MCU echoes the token."""

    token: U32


@message(0x03, HOST)
@dataclass(frozen=True, slots=True)
class Heartbeat(Command[HeartbeatReply]):
    """Sent UNSEQUENCED every 500 ms; 2 s without any host frame stops every motor."""


@message(0x04, HOST)
@dataclass(frozen=True, slots=True)
class QueryStatus(Command[Status]):
    """Ask for the status."""


@message(0x05, HOST)
@dataclass(frozen=True, slots=True)
class QueryZone(Command[ZoneInventory]):
    """Ask for one zone's inventory now."""

    seat: U8
    zone: Zone


@message(0x06, HOST)
@dataclass(frozen=True, slots=True)
class QueryWall(Command[WallSide]):
    """Ask for the tiles placed on stacks `first_stack` .. `first_stack + stacks - 1` of one
    side of the walls under the table (1 to `MJ_WALL_PAGE_STACKS` = 4 stacks: small frames
    survive a noisy line)."""

    side: U8
    first_stack: U8 = 0
    stacks: U8 = WALL_PAGE_STACKS


@message(0x07, HOST)
@dataclass(frozen=True, slots=True)
class QueryZonePage(Command[ZonePage]):
    """Ask for `count` UIDs of a zone from index `first`; first = 0 reads the antenna anew.

    Page 0 reads the antenna now and keeps the sorted list; a later page (`first` > 0) comes
    from the list kept (read now if none is). `count` is 1 to ZONE_PAGE_UIDS. The host's state
    re-read uses it: small frames survive a noisy line."""

    seat: U8
    zone: Zone
    first: U8 = 0
    count: U8 = ZONE_PAGE_UIDS


@message(0x10, HOST)
@dataclass(frozen=True, slots=True)
class BuildWalls(Command[Accepted]):
    """Shuffle the set in the hopper and build the walls under the table."""

    tile_set: TileSetKind
    tiles_per_side: U8
    layers: U8
    max_duration_ms: U32


@message(0x11, HOST)
@dataclass(frozen=True, slots=True)
class RaiseWalls(Command[Accepted]):
    """Lift the four built walls onto the playing surface."""

    max_duration_ms: U32


@message(0x12, HOST)
@dataclass(frozen=True, slots=True)
class LowerPlatform(Command[Accepted]):
    """Drop every tile on the playing surface into the hopper."""

    max_duration_ms: U32


@message(0x13, HOST)
@dataclass(frozen=True, slots=True)
class RollDice(Command[Accepted]):
    """Spin the dice under the dome; the result comes as a `dice` event."""

    max_duration_ms: U32


@message(0x14, HOST)
@dataclass(frozen=True, slots=True)
class SelfTest(Command[Accepted]):
    """Exercise one component; the result comes as a `self_test_result` event."""

    component: Component
    max_duration_ms: U32


@message(0x15, HOST)
@dataclass(frozen=True, slots=True)
class StopAll(Command[Accepted]):
    """Emergency stop from the host: every motor stops now."""


@message(0x16, HOST)
@dataclass(frozen=True, slots=True)
class Reset(Command[Accepted]):
    """Restart the MCU after answering."""


def describe_table() -> str:
    """The canonical text of the protocol: constants, flags, enums and every message layout."""
    lines = [f"protocol {PROTOCOL_VERSION} max_payload {MAX_PAYLOAD} window {MAX_WINDOW}"]
    lines += [f"flag {flag.name}={flag.value}" for flag in Flag]
    for enum in ENUMS:
        lines.append(f"enum {enum.__name__} " + " ".join(f"{m.name}={m.value}" for m in enum))
    for spec in all_specs():
        layout = " ".join(f"{f.name}:{f.code}" for f in spec.fields)
        if spec.repeat is not None:
            items = ",".join(f"{f.name}:{f.code}" for f in spec.repeat.fields)
            layout += f" {spec.repeat.name}:[{items}]"
        lines.append(f"message 0x{spec.type_id:02x} {spec.name} {spec.sender.value} {layout}")
    return "\n".join(lines) + "\n"


def table_hash() -> int:
    """The 32-bit hash of the message table that both ends compare in the handshake."""
    return int.from_bytes(hashlib.sha256(describe_table().encode()).digest()[:4], "little")


TABLE_HASH = table_hash()
