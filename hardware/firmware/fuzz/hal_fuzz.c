/* hal_fuzz.c: a board made of the fuzzer's input. The UART hands over the input in uneven
 * pieces; every stroke ends at once; antennas read a fixed set of tags; the clock moves 7 ms
 * a turn. Every frame the firmware writes is checked: one whole frame that decodes, or abort. */
#include <stdlib.h>
#include <string.h>

#include "../src/hal.h"
#include "../src/mj_core.h"
#include "fuzz_hal.h"

static const uint8_t *input;
static size_t input_len, input_pos;
static uint32_t clock_ms;
static bool restarted;
static hal_input_t pending[8];
static unsigned pending_count;
static uint64_t frames_written;

void fuzz_hal_start(const uint8_t *data, size_t len)
{
    input = data;
    input_len = len;
    input_pos = 0;
    clock_ms = 0;
    restarted = false;
    pending_count = 0;
}

bool fuzz_hal_input_left(void) { return input_pos < input_len; }
void fuzz_hal_advance(uint32_t ms) { clock_ms += ms; }
bool fuzz_hal_restarted(void)
{
    bool was = restarted;
    restarted = false;
    return was;
}
uint64_t fuzz_frames_written(void) { return frames_written; }

uint32_t hal_now_ms(void)
{
    return clock_ms;
}

size_t hal_uart_read(uint8_t *buf, size_t max)
{
    clock_ms += 7;
    size_t left = input_len - input_pos;
    size_t take = left < max ? left : max;
    if (take > 1 && left > 0) {
        take = 1 + input[input_pos] % take; /* uneven pieces, decided by the input itself */
    }
    memcpy(buf, input + input_pos, take);
    input_pos += take;
    return take;
}

size_t hal_uart_tx_room(void)
{
    return (input_pos * 31u) % 5u == 0 ? 20 : 4096; /* now and then a full line */
}

/* The answer to a host of protocol version 1 (mj_frame_encode_legacy_ack), with any ack. */
static bool legacy_ack(const uint8_t *data, size_t len)
{
    uint8_t ack[MJ_LINE_MAX];
    for (unsigned a = 0; a < 256; a++) {
        if (mj_frame_encode_legacy_ack((uint8_t)a, ack) == len && memcmp(ack, data, len) == 0) {
            return true;
        }
    }
    return false;
}

void hal_uart_write(const uint8_t *data, size_t len)
{
    if (len < 2 || data[len - 1] != 0 || memchr(data, 0, len - 1) != NULL) {
        abort(); /* not exactly one frame */
    }
    uint8_t copy[MJ_LINE_MAX];
    mj_head_t head;
    const uint8_t *payload;
    if (len > sizeof copy) {
        abort();
    }
    memcpy(copy, data, len - 1);
    if (mj_frame_piece(copy, len - 1, &head, &payload) != MJ_DECODE_FRAME &&
        !legacy_ack(data, len)) {
        abort(); /* the firmware wrote a frame the host cannot read */
    }
    frames_written++;
}

void hal_motors(uint8_t mask) { (void)mask; }

void hal_stroke(hal_stroke_t stroke, uint8_t tag, uint8_t a, uint8_t b, uint8_t c)
{
    (void)b;
    (void)c;
    if (pending_count == sizeof pending / sizeof pending[0]) {
        return; /* a stroke that never ends: the maximum duration stops it */
    }
    hal_input_t *in = &pending[pending_count++];
    memset(in, 0, sizeof *in);
    in->kind = HAL_IN_STROKE_DONE;
    in->stroke = (uint8_t)stroke;
    in->tag = tag;
    in->result = (uint8_t)((a + tag) % 7 == 0 ? HAL_DONE_JAM : HAL_DONE);
    in->a = (uint16_t)(1 + tag % 6);
    in->b = (uint16_t)(1 + a % 6);
}

void hal_stroke_stop(hal_stroke_t stroke) { (void)stroke; }
bool hal_hopper_has_tiles(void) { return true; }
uint64_t hal_wall_reader_read(void) { return 0x1234567890ABCDEFull + clock_ms; }

int hal_zone_read(uint8_t antenna, uint64_t *uids, int max)
{
    if (antenna == 5) {
        return -1;
    }
    int count = (antenna * 7 + (int)(clock_ms / 100)) % 70; /* sometimes more than fits */
    for (int i = 0; i < count && i < max; i++) {
        uids[i] = (uint64_t)(count - i) * 0x0101010101ull;
    }
    return count;
}

bool hal_input(hal_input_t *in)
{
    if (pending_count == 0) {
        return false;
    }
    *in = pending[0];
    memmove(pending, pending + 1, (pending_count - 1) * sizeof pending[0]);
    pending_count--;
    return true;
}

uint32_t hal_boot_count(void) { return 1; }
uint8_t hal_reset_cause(void) { return MJ_RESET_CAUSE_POWER_ON; }
void hal_restart(void) { restarted = true; }
void hal_trace_command(uint8_t type, const uint8_t *payload, uint16_t len)
{
    (void)type;
    (void)payload;
    (void)len;
}
