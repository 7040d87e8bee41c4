/* mj_firmware.c: boot and one turn of the main loop. The board's main() calls mj_boot() once
 * after each start and mj_poll() as often as it can (at least every few milliseconds). */
#include <string.h>

#include "mj_core.h"
#include "mj_wire.h"

mj_firmware_t mj;

uint32_t mj_uptime_ms(void)
{
    return hal_now_ms() - mj.boot_ms;
}

void mj_boot(uint32_t inventory_period_ms)
{
    /* The wall record and what the machine knows of its mechanics are kept (a restart does
     * not move a tile); the session, the event counter, motions and faults start afresh. */
    mj_session_reset();
    mj_events_reset();
    mj_decoder_init(&mj.decoder);
    mj.inventory_period_ms = inventory_period_ms;
    if (mj.heartbeat_timeout_ms == 0) {
        mj.heartbeat_timeout_ms = MJ_HEARTBEAT_TIMEOUT_MS;
    }
    mj.boot_ms = hal_now_ms();
    mj.last_host_ms = mj.boot_ms;
    mj.boot_count = hal_boot_count();
    mj.reset_cause = hal_reset_cause();
    mj.restart_pending = false;
    mj_machine_boot();
    mj_zones_boot();
    uint8_t payload[MJ_BOOT_SIZE] = {mj.reset_cause};
    mj_put32(payload + 1, mj.boot_count);
    mj_event(MJ_MSG_BOOT, payload, sizeof payload);
}

static void host_frame(const mj_head_t *head, const uint8_t *payload)
{
    mj.last_host_ms = hal_now_ms();
    if (mj_fault_active(MJ_FAULT_CODE_HEARTBEAT_LOST, 0)) {
        mj_fault_clear(MJ_FAULT_CODE_HEARTBEAT_LOST, 0);
    }
    mj_session_receive(head, payload);
}

static void input(const hal_input_t *in)
{
    switch (in->kind) {
    case HAL_IN_STROKE_DONE:
        mj_machine_stroke_done(in);
        break;
    case HAL_IN_LID:
        mj_interlock(MJ_FAULT_CODE_LID_OPEN, in->a != 0);
        break;
    case HAL_IN_ESTOP:
        mj_interlock(MJ_FAULT_CODE_ESTOP, in->a != 0);
        break;
    case HAL_IN_ZONE_CHANGED:
        mj_zones_changed((uint8_t)in->a);
        break;
    case HAL_IN_EVENT:
        mj_event(in->event_type, in->event, in->event_len);
        break;
    default:
        break;
    }
}

void mj_poll(void)
{
    uint8_t chunk[64];
    size_t got;
    while (!mj.restart_pending && (got = hal_uart_read(chunk, sizeof chunk)) > 0) {
        for (size_t i = 0; i < got && !mj.restart_pending; i++) {
            mj_head_t head;
            const uint8_t *payload;
            switch (mj_decoder_feed(&mj.decoder, chunk[i], &head, &payload)) {
            case MJ_DECODE_FRAME:
                host_frame(&head, payload);
                break;
            case MJ_DECODE_ERROR:
                mj.frame_errors++;
                mj_session_nak();
                break;
            case MJ_DECODE_LEGACY: {
                /* A host of protocol version 1: tell it this table's version, its way. */
                mj.frame_errors++;
                size_t size = mj_frame_encode_legacy_ack(mj_session_ack(), mj.line);
                if (hal_uart_tx_room() >= size) {
                    hal_uart_write(mj.line, size);
                }
                break;
            }
            default:
                break;
            }
        }
    }
    if (mj.restart_pending) {
        mj_stop_all(false);
        hal_restart();
        return;
    }
    hal_input_t in;
    while (hal_input(&in)) {
        if (in.kind == HAL_IN_RESET) {
            mj_stop_all(false);
            hal_restart();
            return;
        }
        input(&in);
    }
    uint32_t now = hal_now_ms();
    mj_machine_tick(now);
    mj_events_drain();
    mj_zones_tick(now);
}

bool mj_idle(void)
{
    return mj_zones_idle() && mj_events_idle() && !mj.restart_pending;
}
