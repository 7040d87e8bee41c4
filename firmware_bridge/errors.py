"""Typed errors of the table MCU link: every failure the bridge reports is one of these."""


class BridgeError(Exception):
    """Base of every error raised by the firmware bridge."""


class FrameError(BridgeError, ValueError):
    """Bytes on the wire that do not form a valid frame (kept as `raw` for the frame log)."""

    def __init__(self, message: str, raw: bytes = b"") -> None:
        super().__init__(message)
        self.raw = raw


class CrcError(FrameError):
    """A frame whose checksum does not match: a byte was damaged on the line."""


class ForeignFrame(FrameError):
    """An intact frame of another protocol version (version 1: its old layout is recognised)."""

    def __init__(self, version: int, raw: bytes = b"") -> None:
        super().__init__(f"a frame of protocol version {version}", raw)
        self.version = version


class MessageError(BridgeError, ValueError):
    """A frame whose payload does not match the message table (unknown type, bad size or value)."""


class LinkError(BridgeError, RuntimeError):
    """The conversation with the table MCU failed."""


class PortUnavailable(LinkError, OSError):
    """The serial device (or URL) cannot be opened."""


class PortBusy(PortUnavailable):
    """Another process holds the serial device's exclusive lock (only one program may use it)."""

    def __init__(self, device: str) -> None:
        self.device = device
        super().__init__(f"{device}: another program holds the port")


class LinkDown(LinkError):
    """The table MCU is not connected; a command in flight may or may not have run."""


class CommandTimeout(LinkError, TimeoutError):
    """A command went unanswered after every retry."""


class McuReset(LinkError):
    """The table MCU restarted while a command was in flight."""


class ProtocolMismatch(LinkError):
    """The table firmware speaks another protocol version or message table than this daemon."""

    def __init__(self, message: str, table_version: int) -> None:
        super().__init__(message)
        self.table_version = table_version


class CommandRejected(LinkError):
    """The table MCU refused a command, with its reason code and detail."""

    def __init__(self, command: str, reason: int, reason_name: str, detail: int) -> None:
        super().__init__(f"the table refused {command}: {reason_name} (detail {detail})")
        self.command = command
        self.reason = reason
        self.reason_name = reason_name
        self.detail = detail


class UnexpectedReply(LinkError):
    """The table MCU answered a command with a message of the wrong type."""
