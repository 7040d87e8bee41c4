/* mj_machine.c: the motions (build, raise, lower, dice, self-test) as state machines, the
 * faults they raise, and the fail-safes (protocol.md section 3).
 *
 * A motion starts a stroke and waits for its end; each turn of the main loop checks its
 * maximum duration. Nothing here blocks. */
#include <string.h>

#include "mj_core.h"
#include "mj_wire.h"

static const uint8_t MOTION_MOTORS[MJ_MOTIONS] = {
    [MJ_MOTION_BUILD] = (1u << MJ_MOTOR_SHUFFLER) | (1u << MJ_MOTOR_STACKER),
    [MJ_MOTION_RAISE] = (1u << MJ_MOTOR_LIFT_EAST) | (1u << MJ_MOTOR_LIFT_SOUTH) |
                        (1u << MJ_MOTOR_LIFT_WEST) | (1u << MJ_MOTOR_LIFT_NORTH),
    [MJ_MOTION_LOWER] = 1u << MJ_MOTOR_PLATFORM,
    [MJ_MOTION_DICE] = 1u << MJ_MOTOR_DICE,
    [MJ_MOTION_SELF_TEST] = 0,
};

/* The motor named in a MOTOR_TIMEOUT fault of each motion. */
static const uint8_t MOTION_MOTOR[MJ_MOTIONS] = {
    [MJ_MOTION_BUILD] = MJ_MOTOR_STACKER,   [MJ_MOTION_RAISE] = MJ_MOTOR_LIFT_EAST,
    [MJ_MOTION_LOWER] = MJ_MOTOR_PLATFORM,  [MJ_MOTION_DICE] = MJ_MOTOR_DICE,
    [MJ_MOTION_SELF_TEST] = MJ_MOTOR_SHUFFLER,
};

static const uint8_t MOTION_STROKE[MJ_MOTIONS] = {
    [MJ_MOTION_BUILD] = HAL_STROKE_STACK,  [MJ_MOTION_RAISE] = HAL_STROKE_RAISE,
    [MJ_MOTION_LOWER] = HAL_STROKE_LOWER,  [MJ_MOTION_DICE] = HAL_STROKE_DICE,
    [MJ_MOTION_SELF_TEST] = HAL_STROKE_SELF_TEST,
};

static uint8_t current_stroke[MJ_MOTIONS];

void mj_machine_boot(void)
{
    /* What the machine knows of its mechanics (build state, walls, dice) survives a restart;
     * motions and faults do not. */
    for (int m = 0; m < MJ_MOTIONS; m++) {
        mj.machine.motion[m].running = false;
    }
    mj.machine.motors = 0;
    mj.machine.fault_count = 0;
    hal_motors(0);
}

bool mj_motion_running(uint8_t motion)
{
    return motion < MJ_MOTIONS && mj.machine.motion[motion].running;
}

uint8_t mj_motors_running(void)
{
    return mj.machine.motors;
}

/* ---- faults ---- */

static int fault_index(uint8_t code, uint16_t detail)
{
    for (int i = 0; i < mj.machine.fault_count; i++) {
        if (mj.machine.faults[i].code == code && mj.machine.faults[i].detail == detail) {
            return i;
        }
    }
    return -1;
}

bool mj_fault_active(uint8_t code, uint16_t detail)
{
    return fault_index(code, detail) >= 0;
}

static void fault_event(uint8_t type, uint8_t code, uint16_t detail)
{
    uint8_t payload[MJ_FAULT_SIZE] = {code};
    mj_put16(payload + 1, detail);
    mj_event(type, payload, sizeof payload);
}

void mj_fault_raise(uint8_t code, uint16_t detail)
{
    mj_machine_t *m = &mj.machine;
    if (fault_index(code, detail) >= 0) {
        return;
    }
    if (m->fault_count < MJ_MAX_FAULTS) {
        m->faults[m->fault_count].code = code;
        m->faults[m->fault_count].detail = detail;
        m->fault_count++;
    }
    fault_event(MJ_MSG_FAULT, code, detail);
}

void mj_fault_clear(uint8_t code, uint16_t detail)
{
    mj_machine_t *m = &mj.machine;
    int i = fault_index(code, detail);
    if (i < 0) {
        return;
    }
    memmove(&m->faults[i], &m->faults[i + 1], (size_t)(m->fault_count - i - 1) * sizeof m->faults[0]);
    m->fault_count--;
    fault_event(MJ_MSG_FAULT_CLEARED, code, detail);
}

static bool is_motor_fault(uint8_t code)
{
    return code == MJ_FAULT_CODE_JAM || code == MJ_FAULT_CODE_OVERCURRENT ||
           code == MJ_FAULT_CODE_MOTOR_TIMEOUT;
}

/* ---- motions ---- */

static void stroke(uint8_t motion, hal_stroke_t kind, uint8_t a, uint8_t b, uint8_t c)
{
    mj_motion_state_t *s = &mj.machine.motion[motion];
    s->tag = ++mj.machine.next_tag;
    current_stroke[motion] = (uint8_t)kind;
    hal_stroke(kind, s->tag, a, b, c);
}

static void end_motion(uint8_t motion, uint8_t outcome)
{
    mj_machine_t *m = &mj.machine;
    m->motion[motion].running = false;
    m->motors &= (uint8_t)~MOTION_MOTORS[motion];
    hal_motors(m->motors);
    if (motion == MJ_MOTION_BUILD && outcome != MJ_OUTCOME_DONE) {
        m->build_state = MJ_BUILD_STATE_FAILED;
    }
    uint8_t payload[MJ_MOTION_DONE_SIZE] = {motion, outcome};
    mj_event(MJ_MSG_MOTION_DONE, payload, sizeof payload);
}

void mj_stop_all(bool report)
{
    mj_machine_t *m = &mj.machine;
    for (uint8_t motion = 1; motion < MJ_MOTIONS; motion++) {
        if (!m->motion[motion].running) {
            continue;
        }
        hal_stroke_stop((hal_stroke_t)current_stroke[motion]);
        m->motion[motion].running = false;
        if (motion == MJ_MOTION_BUILD) {
            m->build_state = MJ_BUILD_STATE_FAILED;
        }
        if (report) {
            uint8_t payload[MJ_MOTION_DONE_SIZE] = {motion, MJ_OUTCOME_STOPPED};
            mj_event(MJ_MSG_MOTION_DONE, payload, sizeof payload);
        }
    }
    m->motors = 0;
    hal_motors(0);
}

void mj_interlock(uint8_t code, bool active)
{
    if (code == MJ_FAULT_CODE_LID_OPEN) {
        mj.machine.lid_open = active;
    } else {
        mj.machine.estop = active;
    }
    if (active) {
        mj_stop_all(true);
        mj_fault_raise(code, 0);
    } else {
        mj_fault_clear(code, 0);
    }
}

static void next_stack(void)
{
    mj_machine_t *m = &mj.machine;
    mj_walls_t *w = &mj.walls;
    while (m->build_side < MJ_SIDES) {
        if (!m->build_out_of_tiles && m->build_index < w->tiles_per_side) {
            uint8_t stack = (uint8_t)(m->build_index / w->layers);
            uint8_t layer = (uint8_t)(m->build_index % w->layers);
            stroke(MJ_MOTION_BUILD, HAL_STROKE_STACK, m->build_side, stack, layer);
            return;
        }
        uint8_t payload[MJ_WALL_BUILT_SIZE] = {m->build_side, m->build_index};
        mj_event(MJ_MSG_WALL_BUILT, payload, sizeof payload);
        m->build_side++;
        m->build_index = 0;
    }
    m->build_state = MJ_BUILD_STATE_BUILT;
    end_motion(MJ_MOTION_BUILD, MJ_OUTCOME_DONE);
}

mj_reply_t mj_motion_begin(uint8_t motion, uint32_t max_ms, uint8_t a, uint8_t b, uint8_t c)
{
    mj_machine_t *m = &mj.machine;
    for (int i = 0; i < m->fault_count;) {
        if (is_motor_fault(m->faults[i].code)) {
            mj_fault_clear(m->faults[i].code, m->faults[i].detail); /* the rest moves up */
        } else {
            i++;
        }
    }
    mj_motion_state_t *s = &m->motion[motion];
    s->running = true;
    s->started_ms = hal_now_ms();
    s->max_ms = max_ms;
    m->motors |= MOTION_MOTORS[motion];
    hal_motors(m->motors);
    switch (motion) {
    case MJ_MOTION_BUILD:
        m->build_state = MJ_BUILD_STATE_BUILDING;
        mj_walls_clear(b, c);
        m->build_side = 0;
        m->build_index = 0;
        m->build_out_of_tiles = false;
        stroke(motion, HAL_STROKE_SHUFFLE, a, b, c);
        break;
    case MJ_MOTION_SELF_TEST:
        s->component = a;
        stroke(motion, HAL_STROKE_SELF_TEST, a, 0, 0);
        break;
    default:
        stroke(motion, (hal_stroke_t)MOTION_STROKE[motion], 0, 0, 0);
        break;
    }
    mj_reply_t reply = {MJ_MSG_ACCEPTED, 0, false};
    return reply;
}

static void motor_failed(uint8_t motion, uint8_t code)
{
    mj_fault_raise(code, MOTION_MOTOR[motion]);
    end_motion(motion, MJ_OUTCOME_FAILED);
}

void mj_machine_stroke_done(const hal_input_t *in)
{
    mj_machine_t *m = &mj.machine;
    uint8_t motion = 0;
    for (uint8_t i = 1; i < MJ_MOTIONS; i++) {
        if (m->motion[i].running && m->motion[i].tag == in->tag &&
            current_stroke[i] == in->stroke) {
            motion = i;
        }
    }
    if (motion == 0) {
        return; /* the end of a stroke stopped meanwhile */
    }
    if (in->result == HAL_DONE_JAM || in->result == HAL_DONE_OVERCURRENT) {
        motor_failed(motion, in->result == HAL_DONE_JAM ? MJ_FAULT_CODE_JAM
                                                        : MJ_FAULT_CODE_OVERCURRENT);
        return;
    }
    switch (in->stroke) {
    case HAL_STROKE_SHUFFLE:
        next_stack();
        break;
    case HAL_STROKE_STACK: {
        if (in->result == HAL_DONE_EMPTY) {
            m->build_out_of_tiles = true;
        } else {
            uint8_t stack = (uint8_t)(m->build_index / mj.walls.layers);
            uint8_t layer = (uint8_t)(m->build_index % mj.walls.layers);
            uint64_t uid = hal_wall_reader_read();
            mj_walls_record(m->build_side, stack, layer, uid);
            uint8_t payload[MJ_WALL_TILE_SIZE] = {m->build_side, stack, layer};
            mj_put64(payload + 3, uid);
            mj_event(MJ_MSG_WALL_TILE, payload, sizeof payload);
            m->build_index++;
        }
        next_stack();
        break;
    }
    case HAL_STROKE_RAISE:
        m->lifts_up = true;
        m->surface_holds_tiles = true;
        m->build_state = MJ_BUILD_STATE_EMPTY;
        end_motion(motion, MJ_OUTCOME_DONE);
        break;
    case HAL_STROKE_LOWER:
        m->lifts_up = false;
        m->surface_holds_tiles = false;
        end_motion(motion, MJ_OUTCOME_DONE);
        break;
    case HAL_STROKE_DICE: {
        m->last_d1 = (uint8_t)in->a;
        m->last_d2 = (uint8_t)in->b;
        m->dice_rolls++;
        uint8_t payload[MJ_DICE_SIZE] = {m->last_d1, m->last_d2};
        mj_event(MJ_MSG_DICE, payload, sizeof payload);
        end_motion(motion, MJ_OUTCOME_DONE);
        break;
    }
    case HAL_STROKE_SELF_TEST: {
        uint8_t payload[MJ_SELF_TEST_RESULT_SIZE] = {m->motion[motion].component,
                                                     (uint8_t)(in->a ? 1 : 0)};
        mj_put16(payload + 2, in->b);
        mj_event(MJ_MSG_SELF_TEST_RESULT, payload, sizeof payload);
        end_motion(motion, MJ_OUTCOME_DONE);
        break;
    }
    default:
        break;
    }
}

void mj_machine_tick(uint32_t now)
{
    mj_machine_t *m = &mj.machine;
    for (uint8_t motion = 1; motion < MJ_MOTIONS; motion++) {
        mj_motion_state_t *s = &m->motion[motion];
        if (s->running && (uint32_t)(now - s->started_ms) >= s->max_ms) {
            hal_stroke_stop((hal_stroke_t)current_stroke[motion]);
            mj_fault_raise(MJ_FAULT_CODE_MOTOR_TIMEOUT, MOTION_MOTOR[motion]);
            end_motion(motion, MJ_OUTCOME_TIMED_OUT);
        }
    }
    bool silent = (uint32_t)(now - mj.last_host_ms) > mj.heartbeat_timeout_ms;
    if (mj.session.synced && silent && !mj_fault_active(MJ_FAULT_CODE_HEARTBEAT_LOST, 0)) {
        mj_stop_all(true);
        mj_fault_raise(MJ_FAULT_CODE_HEARTBEAT_LOST, 0);
    }
}
