/* mj_commands.c: one handler per host command of the message table (protocol.md section 5).
 *
 * A payload of the wrong length, or an enumeration out of range, is BAD_ARGUMENT (detail: the
 * type); a type that is no host command is UNKNOWN_COMMAND (detail: the type). */
#include <string.h>

#include "mj_core.h"
#include "mj_wire.h"

mj_reply_t mj_reply_rejected(uint8_t reason, uint16_t detail)
{
    mj.reply[0] = reason;
    mj_put16(mj.reply + 1, detail);
    mj_reply_t reply = {MJ_MSG_REJECTED, MJ_REJECTED_SIZE, false};
    return reply;
}

static mj_reply_t reply_of(uint8_t type, uint16_t len, bool read_only)
{
    mj_reply_t reply = {type, len, read_only};
    return reply;
}

static uint16_t tiles_in_set(uint8_t kind)
{
    return kind == MJ_TILE_SET_KIND_WITH_FLOWERS_144 ? 144
         : kind == MJ_TILE_SET_KIND_NO_FLOWERS_136   ? 136
                                                     : 108;
}

/* Why a motor command cannot start now (reason 0: it can). `busy` lists the motions that
 * must not be running, in the order their BUSY detail is named. */
static uint8_t refusal(uint32_t max_ms, const uint8_t *busy, int n, uint16_t *detail)
{
    *detail = 0;
    if (mj.machine.estop) {
        return MJ_REJECT_REASON_ESTOP;
    }
    if (mj.machine.lid_open) {
        return MJ_REJECT_REASON_LID_OPEN;
    }
    if (max_ms == 0) {
        return MJ_REJECT_REASON_BAD_ARGUMENT;
    }
    for (int i = 0; i < n; i++) {
        if (mj_motion_running(busy[i])) {
            *detail = busy[i];
            return MJ_REJECT_REASON_BUSY;
        }
    }
    return 0;
}

#define REFUSE_UNLESS_FREE(max_ms, ...)                                                        \
    do {                                                                                       \
        static const uint8_t busy_[] = {__VA_ARGS__};                                          \
        uint16_t detail_;                                                                      \
        uint8_t reason_ = refusal((max_ms), busy_, (int)sizeof busy_, &detail_);               \
        if (reason_) {                                                                         \
            return mj_reply_rejected(reason_, detail_);                                        \
        }                                                                                      \
    } while (0)

static mj_reply_t identify(void)
{
    uint8_t *p = mj.reply;
    p[0] = MJ_FIRMWARE_MAJOR;
    p[1] = MJ_FIRMWARE_MINOR;
    p[2] = MJ_FIRMWARE_PATCH;
    p[3] = MJ_PROTOCOL_VERSION;
    mj_put32(p + 4, MJ_TABLE_HASH);
    mj_put16(p + 8, MJ_MODEL);
    p[10] = MJ_SEATS;
    p[11] = MJ_ZONES_PER_SEAT;
    mj_put16(p + 12, MJ_MAX_PAYLOAD);
    p[14] = MJ_MAX_WINDOW;
    p[15] = mj.reset_cause;
    mj_put32(p + 16, mj.boot_count);
    mj_put32(p + 20, mj.events.counter);
    return reply_of(MJ_MSG_IDENTIFY_REPLY, MJ_IDENTIFY_REPLY_SIZE, false);
}

static mj_reply_t status(void)
{
    mj_machine_t *m = &mj.machine;
    uint8_t *p = mj.reply;
    mj_put32(p, mj.events.counter);
    mj_put32(p + 4, mj_uptime_ms());
    p[8] = m->motors;
    p[9] = m->lifts_up ? 0x0F : 0;
    p[10] = mj_motion_running(MJ_MOTION_RAISE) ? 0x0F : 0;
    p[11] = mj_motion_running(MJ_MOTION_LOWER) ? 1 : 0;
    p[12] = m->lid_open ? 1 : 0;
    p[13] = m->estop ? 1 : 0;
    p[14] = m->build_state;
    mj_put16(p + 15, mj.walls.placed);
    mj_put16(p + 17, m->dice_rolls);
    p[19] = m->last_d1;
    p[20] = m->last_d2;
    uint16_t len = MJ_STATUS_SIZE;
    for (int i = 0; i < m->fault_count; i++) {
        p[len] = m->faults[i].code;
        mj_put16(p + len + 1, m->faults[i].detail);
        len = (uint16_t)(len + sizeof(mj_active_fault_t));
    }
    return reply_of(MJ_MSG_STATUS, len, true);
}

static mj_reply_t build_walls(const uint8_t *p)
{
    uint8_t kind = p[0], per_side = p[1], layers = p[2];
    uint32_t max_ms = mj_get32(p + 3);
    REFUSE_UNLESS_FREE(max_ms, MJ_MOTION_BUILD, MJ_MOTION_RAISE);
    if ((unsigned)per_side * MJ_SIDES != tiles_in_set(kind) || layers < 1 ||
        layers > MJ_MAX_LAYERS) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, per_side);
    }
    if (!hal_hopper_has_tiles()) {
        return mj_reply_rejected(MJ_REJECT_REASON_NO_TILES, 0);
    }
    return mj_motion_begin(MJ_MOTION_BUILD, max_ms, kind, per_side, layers);
}

static mj_reply_t raise_walls(const uint8_t *p)
{
    uint32_t max_ms = mj_get32(p);
    REFUSE_UNLESS_FREE(max_ms, MJ_MOTION_BUILD, MJ_MOTION_RAISE, MJ_MOTION_LOWER);
    if (mj.machine.build_state != MJ_BUILD_STATE_BUILT) {
        return mj_reply_rejected(MJ_REJECT_REASON_NOT_READY, 0);
    }
    if (mj.machine.surface_holds_tiles) {
        return mj_reply_rejected(MJ_REJECT_REASON_NOT_READY, 1);
    }
    return mj_motion_begin(MJ_MOTION_RAISE, max_ms, 0, 0, 0);
}

static mj_reply_t lower_platform(const uint8_t *p)
{
    uint32_t max_ms = mj_get32(p);
    REFUSE_UNLESS_FREE(max_ms, MJ_MOTION_RAISE, MJ_MOTION_LOWER);
    return mj_motion_begin(MJ_MOTION_LOWER, max_ms, 0, 0, 0);
}

static mj_reply_t roll_dice(const uint8_t *p)
{
    uint32_t max_ms = mj_get32(p);
    REFUSE_UNLESS_FREE(max_ms, MJ_MOTION_DICE);
    return mj_motion_begin(MJ_MOTION_DICE, max_ms, 0, 0, 0);
}

static mj_reply_t self_test(const uint8_t *p)
{
    uint32_t max_ms = mj_get32(p + 1);
    REFUSE_UNLESS_FREE(max_ms, MJ_MOTION_SELF_TEST);
    return mj_motion_begin(MJ_MOTION_SELF_TEST, max_ms, p[0], 0, 0);
}

static mj_reply_t query_zone(const uint8_t *p)
{
    if (p[0] >= MJ_SEATS) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, p[0]);
    }
    return reply_of(MJ_MSG_ZONE_INVENTORY, mj_zone_read_payload(p[0], p[1], mj.reply), true);
}

/* A page of at most MJ_ZONE_PAGE_UIDS UIDs: 68 payload bytes, 79 on the line, longer than a
 * kept reply; a repeat reads again (the first page reads the antenna anew, a later page
 * answers from the list the first one kept). */
static mj_reply_t query_zone_page(const uint8_t *p)
{
    if (p[0] >= MJ_SEATS) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, p[0]);
    }
    if (p[3] < 1 || p[3] > MJ_ZONE_PAGE_UIDS) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, p[3]);
    }
    return reply_of(MJ_MSG_ZONE_PAGE, mj_zone_page_payload(p[0], p[1], p[2], p[3], mj.reply),
                    true);
}

static mj_reply_t query_wall(const uint8_t *p)
{
    if (p[0] >= MJ_SIDES) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, p[0]);
    }
    if (p[2] < 1 || p[2] > MJ_WALL_PAGE_STACKS) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, p[2]);
    }
    return reply_of(MJ_MSG_WALL_SIDE, mj_walls_page(p[0], p[1], p[2], mj.reply), true);
}

/* The payload size of each host command, and the highest value of its enumeration byte. */
typedef struct {
    uint8_t type;
    uint8_t size;
    uint8_t enum_at;  /* offset of an enumeration field + 1 (0: none) */
    uint8_t enum_min;
    uint8_t enum_max;
} command_shape_t;

static const command_shape_t SHAPES[] = {
    {MJ_MSG_IDENTIFY, MJ_IDENTIFY_SIZE, 0, 0, 0},
    {MJ_MSG_PING, MJ_PING_SIZE, 0, 0, 0},
    {MJ_MSG_HEARTBEAT, MJ_HEARTBEAT_SIZE, 0, 0, 0},
    {MJ_MSG_QUERY_STATUS, MJ_QUERY_STATUS_SIZE, 0, 0, 0},
    {MJ_MSG_QUERY_ZONE, MJ_QUERY_ZONE_SIZE, 2, MJ_ZONE_HAND, MJ_ZONE_DISCARD},
    {MJ_MSG_QUERY_WALL, MJ_QUERY_WALL_SIZE, 0, 0, 0},
    {MJ_MSG_QUERY_ZONE_PAGE, MJ_QUERY_ZONE_PAGE_SIZE, 2, MJ_ZONE_HAND, MJ_ZONE_DISCARD},
    {MJ_MSG_BUILD_WALLS, MJ_BUILD_WALLS_SIZE, 1, MJ_TILE_SET_KIND_WITH_FLOWERS_144,
     MJ_TILE_SET_KIND_SUITS_ONLY_108},
    {MJ_MSG_RAISE_WALLS, MJ_RAISE_WALLS_SIZE, 0, 0, 0},
    {MJ_MSG_LOWER_PLATFORM, MJ_LOWER_PLATFORM_SIZE, 0, 0, 0},
    {MJ_MSG_ROLL_DICE, MJ_ROLL_DICE_SIZE, 0, 0, 0},
    {MJ_MSG_SELF_TEST, MJ_SELF_TEST_SIZE, 1, MJ_COMPONENT_SHUFFLER, MJ_COMPONENT_ESTOP_INPUT},
    {MJ_MSG_STOP_ALL, MJ_STOP_ALL_SIZE, 0, 0, 0},
    {MJ_MSG_RESET, MJ_RESET_SIZE, 0, 0, 0},
};

static const command_shape_t *shape_of(uint8_t type)
{
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
        if (SHAPES[i].type == type) {
            return &SHAPES[i];
        }
    }
    return NULL;
}

mj_reply_t mj_command_run(uint8_t type, const uint8_t *p, uint16_t len)
{
    const command_shape_t *shape = shape_of(type);
    if (shape == NULL) {
        return mj_reply_rejected(MJ_REJECT_REASON_UNKNOWN_COMMAND, type);
    }
    if (len != shape->size) {
        return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, type);
    }
    if (shape->enum_at) {
        uint8_t value = p[shape->enum_at - 1];
        if (value < shape->enum_min || value > shape->enum_max) {
            return mj_reply_rejected(MJ_REJECT_REASON_BAD_ARGUMENT, type);
        }
    }
    if (type != MJ_MSG_HEARTBEAT && type != MJ_MSG_IDENTIFY) {
        hal_trace_command(type, p, len);
    }
    switch (type) {
    case MJ_MSG_IDENTIFY:
        return identify();
    case MJ_MSG_PING:
        memcpy(mj.reply, p, MJ_PONG_SIZE);
        return reply_of(MJ_MSG_PONG, MJ_PONG_SIZE, false);
    case MJ_MSG_HEARTBEAT:
        mj_put32(mj.reply, mj.events.counter);
        mj_put32(mj.reply + 4, mj_uptime_ms());
        return reply_of(MJ_MSG_HEARTBEAT_REPLY, MJ_HEARTBEAT_REPLY_SIZE, true);
    case MJ_MSG_QUERY_STATUS:
        return status();
    case MJ_MSG_QUERY_ZONE:
        return query_zone(p);
    case MJ_MSG_QUERY_WALL:
        return query_wall(p);
    case MJ_MSG_QUERY_ZONE_PAGE:
        return query_zone_page(p);
    case MJ_MSG_BUILD_WALLS:
        return build_walls(p);
    case MJ_MSG_RAISE_WALLS:
        return raise_walls(p);
    case MJ_MSG_LOWER_PLATFORM:
        return lower_platform(p);
    case MJ_MSG_ROLL_DICE:
        return roll_dice(p);
    case MJ_MSG_SELF_TEST:
        return self_test(p);
    case MJ_MSG_STOP_ALL:
        mj_stop_all(true);
        return reply_of(MJ_MSG_ACCEPTED, 0, false);
    case MJ_MSG_RESET:
        mj.restart_pending = true;
        return reply_of(MJ_MSG_ACCEPTED, 0, false);
    default:
        return mj_reply_rejected(MJ_REJECT_REASON_UNKNOWN_COMMAND, type);
    }
}
