/* mahjong_protocol.h: the table MCU wire protocol (see hardware/protocol.md).
 * Generated from firmware_bridge/messages.py by `python -m firmware_bridge.generate`;
 * do not edit. All multi-byte fields are little-endian (the frame CRC excepted: it goes
 * most significant byte first); structs are packed. */
#ifndef MAHJONG_PROTOCOL_H
#define MAHJONG_PROTOCOL_H

#include <stdint.h>

#define MJ_PROTOCOL_VERSION 2
#define MJ_TABLE_HASH 0xf9d0631du
#define MJ_HEADER_SIZE 4
#define MJ_CRC_SIZE 2
#define MJ_CRC_SEED 0xc1b2u
#define MJ_HANDSHAKE_SEED 0xe1f0u
#define MJ_MAX_PAYLOAD 512
#define MJ_MAX_FRAME 518
#define MJ_MAX_ENCODED 521
#define MJ_MAX_WINDOW 16
#define MJ_HEARTBEAT_INTERVAL_MS 500
#define MJ_HEARTBEAT_TIMEOUT_MS 2000
#define MJ_MAX_ZONE_UIDS 63
#define MJ_WALL_PAGE_STACKS 4
#define MJ_ZONE_PAGE_UIDS 8
#define MJ_SEATS 4
#define MJ_SIDES 4
#define MJ_FLAG_EVENT 0x01
#define MJ_FLAG_RESPONSE 0x02
#define MJ_FLAG_SYNC 0x04
#define MJ_FLAG_UNSEQUENCED 0x08
#define MJ_FLAG_NAK 0x10
#define MJ_FLAG_NEED_SYNC 0x20

typedef enum {
    MJ_ZONE_HAND = 0,
    MJ_ZONE_MELD = 1,
    MJ_ZONE_DISCARD = 2,
} mj_zone_t;

typedef enum {
    MJ_MOTOR_SHUFFLER = 0,
    MJ_MOTOR_STACKER = 1,
    MJ_MOTOR_LIFT_EAST = 2,
    MJ_MOTOR_LIFT_SOUTH = 3,
    MJ_MOTOR_LIFT_WEST = 4,
    MJ_MOTOR_LIFT_NORTH = 5,
    MJ_MOTOR_DICE = 6,
    MJ_MOTOR_PLATFORM = 7,
} mj_motor_t;

typedef enum {
    MJ_FAULT_CODE_JAM = 1,
    MJ_FAULT_CODE_OVERCURRENT = 2,
    MJ_FAULT_CODE_MOTOR_TIMEOUT = 3,
    MJ_FAULT_CODE_READER_ERROR = 4,
    MJ_FAULT_CODE_LID_OPEN = 5,
    MJ_FAULT_CODE_ESTOP = 6,
    MJ_FAULT_CODE_HEARTBEAT_LOST = 7,
} mj_fault_code_t;

typedef enum {
    MJ_REJECT_REASON_UNKNOWN_COMMAND = 1,
    MJ_REJECT_REASON_BAD_ARGUMENT = 2,
    MJ_REJECT_REASON_BUSY = 3,
    MJ_REJECT_REASON_LID_OPEN = 4,
    MJ_REJECT_REASON_ESTOP = 5,
    MJ_REJECT_REASON_NOT_READY = 6,
    MJ_REJECT_REASON_NO_TILES = 7,
    MJ_REJECT_REASON_FAULT_ACTIVE = 8,
} mj_reject_reason_t;

typedef enum {
    MJ_RESET_CAUSE_POWER_ON = 0,
    MJ_RESET_CAUSE_WATCHDOG = 1,
    MJ_RESET_CAUSE_SOFTWARE = 2,
    MJ_RESET_CAUSE_BROWNOUT = 3,
    MJ_RESET_CAUSE_RESET_LINE = 4,
} mj_reset_cause_t;

typedef enum {
    MJ_TILE_SET_KIND_WITH_FLOWERS_144 = 1,
    MJ_TILE_SET_KIND_NO_FLOWERS_136 = 2,
    MJ_TILE_SET_KIND_SUITS_ONLY_108 = 3,
} mj_tile_set_kind_t;

typedef enum {
    MJ_MOTION_BUILD = 1,
    MJ_MOTION_RAISE = 2,
    MJ_MOTION_LOWER = 3,
    MJ_MOTION_DICE = 4,
    MJ_MOTION_SELF_TEST = 5,
} mj_motion_t;

typedef enum {
    MJ_OUTCOME_DONE = 0,
    MJ_OUTCOME_STOPPED = 1,
    MJ_OUTCOME_FAILED = 2,
    MJ_OUTCOME_TIMED_OUT = 3,
} mj_outcome_t;

typedef enum {
    MJ_BUILD_STATE_EMPTY = 0,
    MJ_BUILD_STATE_BUILDING = 1,
    MJ_BUILD_STATE_BUILT = 2,
    MJ_BUILD_STATE_FAILED = 3,
} mj_build_state_t;

typedef enum {
    MJ_COMPONENT_SHUFFLER = 1,
    MJ_COMPONENT_STACKER = 2,
    MJ_COMPONENT_LIFTS = 3,
    MJ_COMPONENT_DICE = 4,
    MJ_COMPONENT_WALL_READER = 5,
    MJ_COMPONENT_ZONE_READERS = 6,
    MJ_COMPONENT_LID_SWITCH = 7,
    MJ_COMPONENT_ESTOP_INPUT = 8,
} mj_component_t;

typedef enum {
    MJ_MSG_IDENTIFY = 0x01,
    MJ_MSG_PING = 0x02,
    MJ_MSG_HEARTBEAT = 0x03,
    MJ_MSG_QUERY_STATUS = 0x04,
    MJ_MSG_QUERY_ZONE = 0x05,
    MJ_MSG_QUERY_WALL = 0x06,
    MJ_MSG_QUERY_ZONE_PAGE = 0x07,
    MJ_MSG_BUILD_WALLS = 0x10,
    MJ_MSG_RAISE_WALLS = 0x11,
    MJ_MSG_LOWER_PLATFORM = 0x12,
    MJ_MSG_ROLL_DICE = 0x13,
    MJ_MSG_SELF_TEST = 0x14,
    MJ_MSG_STOP_ALL = 0x15,
    MJ_MSG_RESET = 0x16,
    MJ_MSG_IDENTIFY_REPLY = 0x40,
    MJ_MSG_PONG = 0x41,
    MJ_MSG_HEARTBEAT_REPLY = 0x42,
    MJ_MSG_STATUS = 0x43,
    MJ_MSG_ZONE_INVENTORY = 0x44,
    MJ_MSG_WALL_SIDE = 0x45,
    MJ_MSG_ACCEPTED = 0x46,
    MJ_MSG_REJECTED = 0x47,
    MJ_MSG_LINK_ACK = 0x48,
    MJ_MSG_ZONE_PAGE = 0x49,
    MJ_MSG_WALL_TILE = 0x80,
    MJ_MSG_WALL_BUILT = 0x81,
    MJ_MSG_MOTION_DONE = 0x82,
    MJ_MSG_DICE = 0x83,
    MJ_MSG_FAULT = 0x84,
    MJ_MSG_FAULT_CLEARED = 0x85,
    MJ_MSG_SELF_TEST_RESULT = 0x86,
    MJ_MSG_BOOT = 0x87,
} mj_msg_type_t;

/* The frame header; the payload follows, then the CRC (no length: the frame's end). */
typedef struct __attribute__((packed)) {
    uint8_t flags;
    uint8_t seq;
    uint8_t ack;
    uint8_t type;
} mj_header_t;

typedef struct __attribute__((packed)) {
    uint8_t code; /* mj_fault_code_t */
    uint16_t detail;
} mj_active_fault_t;

typedef struct __attribute__((packed)) {
    uint8_t stack;
    uint8_t layer;
    uint64_t uid;
} mj_wall_slot_t;

/* Start a session (sent with SYNC): the MCU answers who it is. (no payload) */
#define MJ_IDENTIFY_SIZE 0

/* Round-trip test; the MCU echoes the token. */
typedef struct __attribute__((packed)) {
    uint32_t token;
} mj_ping_t;
#define MJ_PING_SIZE 4

/* Sent UNSEQUENCED every 500 ms; 2 s without any host frame stops every motor. (no payload) */
#define MJ_HEARTBEAT_SIZE 0

/* Ask for the status. (no payload) */
#define MJ_QUERY_STATUS_SIZE 0

/* Ask for one zone's inventory now. */
typedef struct __attribute__((packed)) {
    uint8_t seat;
    uint8_t zone; /* mj_zone_t */
} mj_query_zone_t;
#define MJ_QUERY_ZONE_SIZE 2

/* Ask for the tiles placed on stacks `first_stack` .. `first_stack + stacks - 1` of one side of the walls under the table (1 to `MJ_WALL_PAGE_STACKS` = 4 stacks: small frames survive a noisy line). */
typedef struct __attribute__((packed)) {
    uint8_t side;
    uint8_t first_stack;
    uint8_t stacks;
} mj_query_wall_t;
#define MJ_QUERY_WALL_SIZE 3

/* Ask for `count` UIDs of a zone from index `first`; first = 0 reads the antenna anew. */
typedef struct __attribute__((packed)) {
    uint8_t seat;
    uint8_t zone; /* mj_zone_t */
    uint8_t first;
    uint8_t count;
} mj_query_zone_page_t;
#define MJ_QUERY_ZONE_PAGE_SIZE 4

/* Shuffle the set in the hopper and build the walls under the table. */
typedef struct __attribute__((packed)) {
    uint8_t tile_set; /* mj_tile_set_kind_t */
    uint8_t tiles_per_side;
    uint8_t layers;
    uint32_t max_duration_ms;
} mj_build_walls_t;
#define MJ_BUILD_WALLS_SIZE 7

/* Lift the four built walls onto the playing surface. */
typedef struct __attribute__((packed)) {
    uint32_t max_duration_ms;
} mj_raise_walls_t;
#define MJ_RAISE_WALLS_SIZE 4

/* Drop every tile on the playing surface into the hopper. */
typedef struct __attribute__((packed)) {
    uint32_t max_duration_ms;
} mj_lower_platform_t;
#define MJ_LOWER_PLATFORM_SIZE 4

/* Spin the dice under the dome; the result comes as a `dice` event. */
typedef struct __attribute__((packed)) {
    uint32_t max_duration_ms;
} mj_roll_dice_t;
#define MJ_ROLL_DICE_SIZE 4

/* Exercise one component; the result comes as a `self_test_result` event. */
typedef struct __attribute__((packed)) {
    uint8_t component; /* mj_component_t */
    uint32_t max_duration_ms;
} mj_self_test_t;
#define MJ_SELF_TEST_SIZE 5

/* Emergency stop from the host: every motor stops now. (no payload) */
#define MJ_STOP_ALL_SIZE 0

/* Restart the MCU after answering. (no payload) */
#define MJ_RESET_SIZE 0

/* Who the MCU is: firmware, protocol, message table hash, model, reset cause, counters. */
typedef struct __attribute__((packed)) {
    uint8_t firmware_major;
    uint8_t firmware_minor;
    uint8_t firmware_patch;
    uint8_t protocol_version;
    uint32_t table_hash;
    uint16_t model;
    uint8_t seats;
    uint8_t zones_per_seat;
    uint16_t max_payload;
    uint8_t max_window;
    uint8_t reset_cause; /* mj_reset_cause_t */
    uint32_t boot_count;
    uint32_t event_counter;
} mj_identify_reply_t;
#define MJ_IDENTIFY_REPLY_SIZE 24

/* Answer to ping, echoing its token. */
typedef struct __attribute__((packed)) {
    uint32_t token;
} mj_pong_t;
#define MJ_PONG_SIZE 4

/* Answer to heartbeat: the number of the last event sent and the uptime. */
typedef struct __attribute__((packed)) {
    uint32_t event_counter;
    uint32_t uptime_ms;
} mj_heartbeat_reply_t;
#define MJ_HEARTBEAT_REPLY_SIZE 8

/* Motors, lifts, lid, emergency stop, walls, dice and active faults. */
typedef struct __attribute__((packed)) {
    uint32_t event_counter;
    uint32_t uptime_ms;
    uint8_t motors_running;
    uint8_t lifts_up;
    uint8_t lifts_moving;
    uint8_t platform_lowered; /* 0 or 1 */
    uint8_t lid_open; /* 0 or 1 */
    uint8_t estop; /* 0 or 1 */
    uint8_t build_state; /* mj_build_state_t */
    uint16_t tiles_placed;
    uint16_t dice_rolls;
    uint8_t last_d1;
    uint8_t last_d2;
    mj_active_fault_t faults[]; /* fills the rest of the payload */
} mj_status_t;
#define MJ_STATUS_SIZE 21

/* Every tag UID one zone antenna reads (sorted); sent on change, periodically, on request. */
typedef struct __attribute__((packed)) {
    uint8_t seat;
    uint8_t zone; /* mj_zone_t */
    uint64_t uids[]; /* fills the rest of the payload */
} mj_zone_inventory_t;
#define MJ_ZONE_INVENTORY_SIZE 2

/* The tiles placed so far on the stacks asked for of one side of the walls under the table, and the layout of the build (0, 0 before any). */
typedef struct __attribute__((packed)) {
    uint8_t side;
    uint8_t tiles_per_side;
    uint8_t layers;
    mj_wall_slot_t slots[]; /* fills the rest of the payload */
} mj_wall_side_t;
#define MJ_WALL_SIDE_SIZE 3

/* The command was accepted; a motion's end comes later as `motion_done`. (no payload) */
#define MJ_ACCEPTED_SIZE 0

/* The command was refused, with a reason and a detail. */
typedef struct __attribute__((packed)) {
    uint8_t reason; /* mj_reject_reason_t */
    uint16_t detail;
} mj_rejected_t;
#define MJ_REJECTED_SIZE 3

/* An empty frame carrying only the header: an acknowledgement, NAK or NEED_SYNC. (no payload) */
#define MJ_LINK_ACK_SIZE 0

/* A page of a zone's kept list (reply to query_zone_page): its `total`, UIDs from `first`. */
typedef struct __attribute__((packed)) {
    uint8_t seat;
    uint8_t zone; /* mj_zone_t */
    uint8_t total;
    uint8_t first;
    uint64_t uids[]; /* fills the rest of the payload */
} mj_zone_page_t;
#define MJ_ZONE_PAGE_SIZE 4

/* The stacking head placed a tile: where, and the UID the wall reader read. */
typedef struct __attribute__((packed)) {
    uint8_t side;
    uint8_t stack;
    uint8_t layer;
    uint64_t uid;
} mj_wall_tile_t;
#define MJ_WALL_TILE_SIZE 11

/* One side of the walls is complete, with the number of tiles placed. */
typedef struct __attribute__((packed)) {
    uint8_t side;
    uint8_t count;
} mj_wall_built_t;
#define MJ_WALL_BUILT_SIZE 2

/* A motion (build, raise, lower, dice, self-test) ended. */
typedef struct __attribute__((packed)) {
    uint8_t motion; /* mj_motion_t */
    uint8_t outcome; /* mj_outcome_t */
} mj_motion_done_t;
#define MJ_MOTION_DONE_SIZE 2

/* The dice under the dome came to rest. */
typedef struct __attribute__((packed)) {
    uint8_t d1;
    uint8_t d2;
} mj_dice_t;
#define MJ_DICE_SIZE 2

/* A fault began; every motor it concerns has stopped. */
typedef struct __attribute__((packed)) {
    uint8_t code; /* mj_fault_code_t */
    uint16_t detail;
} mj_fault_t;
#define MJ_FAULT_SIZE 3

/* A fault ended (lid closed, e-stop released, heartbeat back). */
typedef struct __attribute__((packed)) {
    uint8_t code; /* mj_fault_code_t */
    uint16_t detail;
} mj_fault_cleared_t;
#define MJ_FAULT_CLEARED_SIZE 3

/* The result of a self-test. */
typedef struct __attribute__((packed)) {
    uint8_t component; /* mj_component_t */
    uint8_t passed; /* 0 or 1 */
    uint16_t detail;
} mj_self_test_result_t;
#define MJ_SELF_TEST_RESULT_SIZE 4

/* The MCU has started; sent once with NEED_SYNC until the host identifies. */
typedef struct __attribute__((packed)) {
    uint8_t reset_cause; /* mj_reset_cause_t */
    uint32_t boot_count;
} mj_boot_t;
#define MJ_BOOT_SIZE 5

#endif /* MAHJONG_PROTOCOL_H */
