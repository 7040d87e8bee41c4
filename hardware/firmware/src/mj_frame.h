/* mj_frame.h: frames on the wire, COBS(header | payload | CRC-16) 0x00 (protocol.md section 1).
 *
 * Protocol version 2: header = flags, seq, ack, type; no length (COBS delimits the frame) and
 * no version byte: the CRC starts from MJ_CRC_SEED, the register after the version byte, so a
 * frame of another version fails the check. The handshake frames (identify, identify_reply)
 * start from MJ_HANDSHAKE_SEED (version 0) in every version. The CRC goes most significant
 * byte first, so the CRC over a whole intact frame is 0.
 *
 * Everything about the framing lives here and in mj_frame.c: the session layer only sees
 * decoded headers and payloads, so a different framing changes these two files alone. */
#ifndef MJ_FRAME_H
#define MJ_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mahjong_protocol.h"

/* Bytes one encoded frame takes on the line at most, the 0x00 included. */
#define MJ_LINE_MAX (MJ_MAX_ENCODED + 1)
/* Bytes a frame with a payload of `len` bytes takes on the line at most, the 0x00 included. */
#define MJ_LINE_SIZE(len)                                                                      \
    ((size_t)(len) + MJ_HEADER_SIZE + MJ_CRC_SIZE +                                            \
     ((size_t)(len) + MJ_HEADER_SIZE + MJ_CRC_SIZE) / 254u + 2u)

typedef struct {
    uint8_t flags;
    uint8_t seq;
    uint8_t ack;
    uint8_t type;
    uint16_t length; /* of the payload: not on the line, the frame's end tells it */
} mj_head_t;

/* CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR). */
uint16_t mj_crc16(uint16_t crc, const uint8_t *data, size_t len);

/* Where the CRC of a frame of message type `type` starts. */
uint16_t mj_crc_seed(uint8_t type);

/* Encodes one frame into `out` (at least MJ_LINE_MAX bytes), the 0x00 included; returns its
 * length, or 0 if the payload is longer than MJ_MAX_PAYLOAD. */
size_t mj_frame_encode(const mj_head_t *head, const uint8_t *payload, uint8_t *out);

/* Decodes one piece of the line (COBS bytes without the 0x00) in place; on success fills
 * `head` and points `payload` into `piece`. */
bool mj_frame_decode(uint8_t *piece, size_t len, mj_head_t *head, const uint8_t **payload);

/* Splits the incoming byte stream at 0x00 and decodes each piece. */
typedef struct {
    uint8_t buf[MJ_MAX_ENCODED];
    uint16_t len;
    bool overrun;
} mj_decoder_t;

typedef enum {
    MJ_DECODE_MORE = 0, /* no frame ended with this byte */
    MJ_DECODE_FRAME,    /* a frame ended and is intact: see head and payload */
    MJ_DECODE_ERROR,    /* a frame ended and is damaged (too long, COBS, too short, CRC) */
    MJ_DECODE_LEGACY,   /* a frame ended and is an intact frame of protocol version 1 */
} mj_decode_result_t;

/* What one piece of the line is (COBS bytes without the 0x00, decoded in place): an intact
 * frame (head and payload filled), an intact frame of protocol version 1, or damage. */
mj_decode_result_t mj_frame_piece(uint8_t *piece, size_t len, mj_head_t *head,
                                  const uint8_t **payload);

/* The answer to a host of protocol version 1: an empty link_ack in version 1's layout whose
 * version byte is this protocol's, so that an old host names the mismatch. Encodes into `out`
 * (at least MJ_LINE_MAX bytes), the 0x00 included; returns its length. */
size_t mj_frame_encode_legacy_ack(uint8_t ack, uint8_t *out);

void mj_decoder_init(mj_decoder_t *decoder);

/* Feeds one byte; on MJ_DECODE_FRAME, `payload` points into the decoder's buffer and stays
 * valid until the next call. */
mj_decode_result_t mj_decoder_feed(mj_decoder_t *decoder, uint8_t byte, mj_head_t *head,
                                   const uint8_t **payload);

#endif /* MJ_FRAME_H */
