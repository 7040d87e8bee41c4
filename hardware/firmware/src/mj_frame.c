/* mj_frame.c: CRC-16/CCITT-FALSE, COBS and the frame decoder (protocol.md section 1). */
#include "mj_frame.h"

#include <string.h>

_Static_assert(MJ_LINE_SIZE(MJ_MAX_PAYLOAD) == MJ_LINE_MAX, "the largest frame fits the line");

uint16_t mj_crc16(uint16_t crc, const uint8_t *data, size_t len)
{
    uint32_t c = crc;
    for (size_t i = 0; i < len; i++) {
        c ^= (uint32_t)data[i] << 8;
        for (int bit = 0; bit < 8; bit++) {
            c = (c & 0x8000u) ? ((c << 1) ^ 0x1021u) : (c << 1);
        }
    }
    return (uint16_t)(c & 0xFFFFu);
}

uint16_t mj_crc_seed(uint8_t type)
{
    bool handshake = type == MJ_MSG_IDENTIFY || type == MJ_MSG_IDENTIFY_REPLY;
    return handshake ? MJ_HANDSHAKE_SEED : MJ_CRC_SEED;
}

/* A COBS encoder fed one byte at a time: the frame is encoded from its pieces without
 * assembling it first. */
typedef struct {
    uint8_t *out;
    size_t code_at; /* where the current block's code byte goes */
    size_t pos;     /* next free byte */
    uint8_t code;   /* the current block's length + 1 */
} cobs_writer_t;

static void cobs_start(cobs_writer_t *w, uint8_t *out)
{
    w->out = out;
    w->code_at = 0;
    w->pos = 1;
    w->code = 1;
}

static void cobs_put(cobs_writer_t *w, uint8_t byte)
{
    if (byte != 0) {
        w->out[w->pos++] = byte;
        w->code++;
    }
    if (byte == 0 || w->code == 0xFF) {
        w->out[w->code_at] = w->code;
        w->code_at = w->pos++;
        w->code = 1;
    }
}

static size_t cobs_finish(cobs_writer_t *w)
{
    w->out[w->code_at] = w->code;
    w->out[w->pos] = 0x00;
    return w->pos + 1;
}

size_t mj_frame_encode(const mj_head_t *head, const uint8_t *payload, uint8_t *out)
{
    if (head->length > MJ_MAX_PAYLOAD) {
        return 0;
    }
    uint8_t header[MJ_HEADER_SIZE] = {head->flags, head->seq, head->ack, head->type};
    uint16_t crc = mj_crc16(mj_crc_seed(head->type), header, sizeof header);
    crc = mj_crc16(crc, payload, head->length);
    cobs_writer_t w;
    cobs_start(&w, out);
    for (size_t i = 0; i < sizeof header; i++) {
        cobs_put(&w, header[i]);
    }
    for (size_t i = 0; i < head->length; i++) {
        cobs_put(&w, payload[i]);
    }
    cobs_put(&w, (uint8_t)(crc >> 8));
    cobs_put(&w, (uint8_t)(crc & 0xFF));
    return cobs_finish(&w);
}

/* Decodes COBS in place; returns the decoded length or -1 if malformed. */
static int cobs_decode(uint8_t *data, size_t len)
{
    size_t in = 0;
    size_t out = 0;
    while (in < len) {
        uint8_t code = data[in];
        size_t end = in + code;
        if (code == 0 || end > len) {
            return -1;
        }
        for (size_t i = in + 1; i < end; i++) {
            data[out++] = data[i];
        }
        in = end;
        if (code != 0xFF && in < len) {
            data[out++] = 0;
        }
    }
    return (int)out;
}

/* Protocol version 1: version, flags, seq, ack, type, length u16, payload, CRC-16 from 0xFFFF
 * little-endian (11 bytes of overhead). */
#define LEGACY_HEADER 7u

static bool legacy_frame(const uint8_t *body, size_t size)
{
    if (size < LEGACY_HEADER + MJ_CRC_SIZE || body[0] != 1) {
        return false;
    }
    size_t length = (size_t)(body[5] | (body[6] << 8));
    uint16_t crc = (uint16_t)(body[size - 2] | (body[size - 1] << 8));
    return length == size - LEGACY_HEADER - MJ_CRC_SIZE &&
           mj_crc16(0xFFFF, body, size - MJ_CRC_SIZE) == crc;
}

size_t mj_frame_encode_legacy_ack(uint8_t ack, uint8_t *out)
{
    uint8_t frame[LEGACY_HEADER + MJ_CRC_SIZE] = {MJ_PROTOCOL_VERSION, 0, 0, ack, MJ_MSG_LINK_ACK};
    uint16_t crc = mj_crc16(0xFFFF, frame, LEGACY_HEADER);
    frame[LEGACY_HEADER] = (uint8_t)(crc & 0xFF);
    frame[LEGACY_HEADER + 1] = (uint8_t)(crc >> 8);
    cobs_writer_t w;
    cobs_start(&w, out);
    for (size_t i = 0; i < sizeof frame; i++) {
        cobs_put(&w, frame[i]);
    }
    return cobs_finish(&w);
}

bool mj_frame_decode(uint8_t *piece, size_t len, mj_head_t *head, const uint8_t **payload)
{
    return mj_frame_piece(piece, len, head, payload) == MJ_DECODE_FRAME;
}

mj_decode_result_t mj_frame_piece(uint8_t *piece, size_t len, mj_head_t *head,
                                  const uint8_t **payload)
{
    if (len > MJ_MAX_ENCODED) {
        return MJ_DECODE_ERROR;
    }
    int size = cobs_decode(piece, len);
    if (size < MJ_HEADER_SIZE + MJ_CRC_SIZE) {
        return MJ_DECODE_ERROR;
    }
    /* The CRC follows most significant byte first: over the whole frame it leaves 0. */
    if (mj_crc16(mj_crc_seed(piece[3]), piece, (size_t)size) != 0) {
        return legacy_frame(piece, (size_t)size) ? MJ_DECODE_LEGACY : MJ_DECODE_ERROR;
    }
    head->flags = piece[0];
    head->seq = piece[1];
    head->ack = piece[2];
    head->type = piece[3];
    head->length = (uint16_t)(size - MJ_HEADER_SIZE - MJ_CRC_SIZE);
    *payload = piece + MJ_HEADER_SIZE;
    return MJ_DECODE_FRAME;
}

void mj_decoder_init(mj_decoder_t *decoder)
{
    decoder->len = 0;
    decoder->overrun = false;
}

mj_decode_result_t mj_decoder_feed(mj_decoder_t *decoder, uint8_t byte, mj_head_t *head,
                                   const uint8_t **payload)
{
    if (byte != 0) {
        if (decoder->len < sizeof decoder->buf) {
            decoder->buf[decoder->len++] = byte;
        } else {
            decoder->overrun = true;
        }
        return MJ_DECODE_MORE;
    }
    uint16_t len = decoder->len;
    bool overrun = decoder->overrun;
    decoder->len = 0;
    decoder->overrun = false;
    if (overrun) {
        return MJ_DECODE_ERROR;
    }
    if (len == 0) {
        return MJ_DECODE_MORE; /* an empty piece: a flush before a frame */
    }
    return mj_frame_piece(decoder->buf, len, head, payload);
}
