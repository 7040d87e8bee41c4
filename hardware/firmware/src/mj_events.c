/* mj_events.c: events are numbered, not acknowledged (protocol.md section 2).
 *
 * An event is queued when it happens and put on the line as soon as the UART has room; its
 * number is given then. A queue that overflows loses the newest event but still counts it,
 * so the host sees the gap and reads the state again. Zone inventories are not queued: the
 * zone module reads the antenna when the line has room (see mj_zones.c).
 * RAM: 32 events of up to 16 payload bytes. */
#include <string.h>

#include "mj_core.h"

void mj_events_reset(void)
{
    memset(&mj.events, 0, sizeof mj.events);
}

size_t mj_send_frame(uint8_t type, uint8_t flags, uint8_t seq, const uint8_t *payload,
                     uint16_t len)
{
    mj_head_t head = {flags, seq, mj_session_ack(), type, len};
    size_t size = mj_frame_encode(&head, payload, mj.line);
    if (size > 0 && hal_uart_tx_room() >= size) {
        hal_uart_write(mj.line, size);
    }
    return size;
}

static uint8_t event_flags(void)
{
    return (uint8_t)(MJ_FLAG_EVENT | (mj.session.synced ? 0 : MJ_FLAG_NEED_SYNC));
}

void mj_event(uint8_t type, const uint8_t *payload, uint8_t len)
{
    mj_events_t *e = &mj.events;
    if (len > MJ_EVENT_MAX_PAYLOAD || e->count == MJ_EVENT_QUEUE) {
        e->counter++; /* lost, but numbered: the host sees the gap */
        e->overflows++;
        return;
    }
    mj_event_t *slot = &e->queue[(e->head + e->count) % MJ_EVENT_QUEUE];
    slot->type = type;
    slot->len = len;
    memcpy(slot->payload, payload, len);
    e->count++;
    mj_events_drain();
}

void mj_events_drain(void)
{
    mj_events_t *e = &mj.events;
    while (e->count > 0) {
        mj_event_t *slot = &e->queue[e->head];
        if (hal_uart_tx_room() < MJ_LINE_SIZE(slot->len)) {
            return;
        }
        e->counter++;
        mj_send_frame(slot->type, event_flags(), (uint8_t)e->counter, slot->payload, slot->len);
        e->head = (uint8_t)((e->head + 1) % MJ_EVENT_QUEUE);
        e->count--;
    }
}

bool mj_events_idle(void)
{
    return mj.events.count == 0;
}

/* A zone inventory goes straight out, numbered in its place after the queued events. */
bool mj_event_now(uint8_t type, const uint8_t *payload, uint16_t len)
{
    mj_events_drain();
    if (!mj_events_idle() || hal_uart_tx_room() < MJ_LINE_SIZE(len)) {
        return false;
    }
    mj.events.counter++;
    mj_send_frame(type, event_flags(), (uint8_t)mj.events.counter, payload, len);
    return true;
}
