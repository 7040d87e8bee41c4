/* frame_tool.c: the C codec on stdin/stdout, so that tests can hold it against the Python
 * codec (tests/firmware_bridge/test_firmware_c.py). One request a line, hex bytes:
 *   feed <hex>                   -> one line per frame end: "frame f s a t <payload>",
 *                                   "error"; then "end"
 *   encode <f> <s> <a> <t> <hex> -> the encoded frame with its 0x00
 * `frame-tool --self-test` checks the CRC check value and exits. */
#include <stdio.h>
#include <string.h>

#include "../src/mj_frame.h"

static void put_hex(const uint8_t *data, size_t len)
{
    if (len == 0) {
        putchar('-');
    }
    for (size_t i = 0; i < len; i++) {
        printf("%02x", data[i]);
    }
}

static size_t from_hex(const char *hex, uint8_t *out, size_t max)
{
    size_t n = 0;
    unsigned v;
    while (n < max && sscanf(hex + 2 * n, "%2x", &v) == 1) {
        out[n++] = (uint8_t)v;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
        uint16_t crc = mj_crc16(0xFFFF, (const uint8_t *)"123456789", 9);
        printf("crc check value %04x\n", crc);
        return crc == 0x29B1 ? 0 : 1;
    }
    static char line[1 << 17];
    static uint8_t bytes[1 << 16];
    static mj_decoder_t decoder;
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = 0;
        unsigned f, s, a, t;
        int at = 0;
        if (strncmp(line, "feed ", 5) == 0) {
            size_t len = strcmp(line + 5, "-") ? from_hex(line + 5, bytes, sizeof bytes) : 0;
            for (size_t i = 0; i < len; i++) {
                mj_head_t head;
                const uint8_t *payload;
                mj_decode_result_t r = mj_decoder_feed(&decoder, bytes[i], &head, &payload);
                if (r == MJ_DECODE_FRAME) {
                    printf("frame %u %u %u %u ", head.flags, head.seq, head.ack, head.type);
                    put_hex(payload, head.length);
                    putchar('\n');
                } else if (r == MJ_DECODE_ERROR || r == MJ_DECODE_LEGACY) {
                    printf("error\n");
                }
            }
            printf("end\n");
        } else if (sscanf(line, "encode %u %u %u %u %n", &f, &s, &a, &t, &at) == 4) {
            const char *hex = line + at;
            size_t len = strcmp(hex, "-") ? from_hex(hex, bytes, sizeof bytes) : 0;
            mj_head_t head = {(uint8_t)f, (uint8_t)s, (uint8_t)a, (uint8_t)t, (uint16_t)len};
            static uint8_t out[MJ_LINE_MAX];
            size_t size = len <= MJ_MAX_PAYLOAD ? mj_frame_encode(&head, bytes, out) : 0;
            put_hex(out, size);
            putchar('\n');
        } else {
            printf("?\n");
        }
        fflush(stdout);
    }
    return 0;
}
