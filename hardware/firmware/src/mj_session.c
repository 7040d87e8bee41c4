/* mj_session.c: the MCU's side of the link session (protocol.md section 2).
 *
 * Every sequenced command runs exactly once and in order; a repeat gets the reply kept from
 * its first run; a command ahead of `expected` earns one NAK per value of `expected`.
 * RAM: 32 kept replies of MJ_REPLY_SLOT bytes. A reply too long for a slot is always the
 * answer to a read (status, zone, wall), which changes nothing on the table: its repeat is
 * answered by reading again (the answer is then newer than the events before it, never
 * older). */
#include <string.h>

#include "mj_core.h"

/* Every reply of a command that acts, or of identify, is kept whole. */
_Static_assert(MJ_LINE_SIZE(MJ_IDENTIFY_REPLY_SIZE) <= MJ_REPLY_SLOT, "identify_reply is kept");
_Static_assert(MJ_LINE_SIZE(MJ_REJECTED_SIZE) <= MJ_REPLY_SLOT, "rejected is kept");
_Static_assert(MJ_LINE_SIZE(MJ_PONG_SIZE) <= MJ_REPLY_SLOT, "pong is kept");

void mj_session_reset(void)
{
    memset(&mj.session, 0, sizeof mj.session);
}

uint8_t mj_session_ack(void)
{
    return mj.session.synced ? mj.session.expected : 0;
}

static void bare(uint8_t flags)
{
    mj_send_frame(MJ_MSG_LINK_ACK, flags, 0, NULL, 0);
}

void mj_session_nak(void)
{
    mj_session_t *s = &mj.session;
    if (s->synced && !(s->nak_sent && s->nak_for == s->expected)) {
        s->nak_sent = true;
        s->nak_for = s->expected;
        bare(MJ_FLAG_NAK);
    }
}

static void keep(uint8_t seq, uint8_t type, const uint8_t *command, uint16_t command_len,
                 mj_reply_t reply, size_t encoded_len)
{
    mj_kept_reply_t *slot = &mj.session.kept[seq % MJ_REPLY_CACHE];
    slot->seq = seq;
    if (encoded_len <= MJ_REPLY_SLOT) {
        slot->reread = false;
        slot->len = (uint8_t)encoded_len;
        memcpy(slot->bytes, mj.line, encoded_len);
    } else if (reply.read_only && command_len + 1u <= MJ_REPLY_SLOT) {
        slot->reread = true;
        slot->len = (uint8_t)(command_len + 1);
        slot->bytes[0] = type;
        memcpy(slot->bytes + 1, command, command_len);
    } else {
        slot->len = 0; /* cannot happen: every acting command's reply fits a slot */
    }
}

static void answer(const mj_head_t *head, const uint8_t *payload, uint8_t flags, bool cache)
{
    mj_reply_t reply = mj_command_run(head->type, payload, head->length);
    mj_events_drain(); /* events the command caused go first, as they happened */
    if (!mj.session.synced) {
        flags |= MJ_FLAG_NEED_SYNC;
    }
    size_t sent = mj_send_frame(reply.type, flags, head->seq, mj.reply, reply.len);
    if (cache) {
        keep(head->seq, head->type, payload, head->length, reply, sent);
    }
}

static void repeat(uint8_t seq)
{
    mj_kept_reply_t *slot = &mj.session.kept[seq % MJ_REPLY_CACHE];
    if (slot->len == 0 || slot->seq != seq) {
        return;
    }
    if (!slot->reread) {
        if (hal_uart_tx_room() >= slot->len) {
            hal_uart_write(slot->bytes, slot->len);
        }
        return;
    }
    mj_reply_t reply = mj_command_run(slot->bytes[0], slot->bytes + 1, (uint16_t)(slot->len - 1));
    mj_events_drain();
    mj_send_frame(reply.type, MJ_FLAG_RESPONSE, seq, mj.reply, reply.len);
}

void mj_session_receive(const mj_head_t *head, const uint8_t *payload)
{
    mj_session_t *s = &mj.session;
    if (head->flags & MJ_FLAG_UNSEQUENCED) {
        answer(head, payload, MJ_FLAG_UNSEQUENCED, false);
    } else if (head->flags & MJ_FLAG_SYNC) {
        memset(s->kept, 0, sizeof s->kept);
        s->synced = true;
        s->expected = (uint8_t)(head->seq + 1);
        s->nak_sent = false;
        answer(head, payload, MJ_FLAG_RESPONSE, true);
    } else if (!s->synced) {
        bare(MJ_FLAG_NEED_SYNC);
    } else {
        uint8_t delta = (uint8_t)(head->seq - s->expected);
        if (delta == 0) {
            s->expected++;
            answer(head, payload, MJ_FLAG_RESPONSE, true);
        } else if (delta >= 256 - MJ_REPLY_CACHE) {
            repeat(head->seq);
        } else {
            mj_session_nak();
        }
    }
}
