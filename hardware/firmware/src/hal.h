/* hal.h: what the firmware needs from the board. One implementation per target:
 * host/hal_host.c (a Linux process on a pty, its machine in the Python simulator) and
 * arm/hal_stm32g0.c (a Cortex-M0+). The firmware core never touches a register or a file.
 *
 * Mechanisms work in strokes: the core starts one (hal_stroke) and the board reports its end
 * as an input (HAL_IN_STROKE_DONE) when the limit switch, tile sensor or dice camera says so.
 * The core keeps every maximum duration itself and stops a stroke that overruns. */
#ifndef MJ_HAL_H
#define MJ_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- clock ---- */
uint32_t hal_now_ms(void); /* milliseconds since power-on, wrapping */

/* ---- UART to the host ---- */
size_t hal_uart_read(uint8_t *buf, size_t max);      /* what arrived; never blocks */
size_t hal_uart_tx_room(void);                       /* bytes hal_uart_write takes now */
void hal_uart_write(const uint8_t *data, size_t len); /* queues len <= hal_uart_tx_room() */

/* ---- motors and strokes ---- */
void hal_motors(uint8_t mask); /* the motors that run: bit n = mj_motor_t n */

typedef enum {
    HAL_STROKE_SHUFFLE = 1, /* sweep walls below back, shuffle the next set: a = tile set */
    HAL_STROKE_STACK,       /* place the next tile at side a, stack b, layer c */
    HAL_STROKE_RAISE,       /* lifts up */
    HAL_STROKE_LOWER,       /* platform down and back */
    HAL_STROKE_DICE,        /* spin the dice */
    HAL_STROKE_SELF_TEST,   /* exercise component a */
} hal_stroke_t;

/* Starts a stroke; `tag` comes back with its end so that a late end of a stopped stroke is
 * recognised. */
void hal_stroke(hal_stroke_t stroke, uint8_t tag, uint8_t a, uint8_t b, uint8_t c);
void hal_stroke_stop(hal_stroke_t stroke); /* stop it now (its end is not reported) */

/* How a stroke ended (HAL_IN_STROKE_DONE.result). */
typedef enum {
    HAL_DONE = 0,
    HAL_DONE_EMPTY, /* stack: the shuffler had no tile left */
    HAL_DONE_JAM,   /* stack: stall current */
    HAL_DONE_OVERCURRENT,
} hal_result_t;

/* ---- sensors ---- */
bool hal_hopper_has_tiles(void); /* a set rests in the hopper or in walls below */
uint64_t hal_wall_reader_read(void); /* the tag under the stacking head; 0 if unreadable */
/* Reads one zone antenna (1 + seat * 3 + zone): count of UIDs, or -1 if the reader fails. */
int hal_zone_read(uint8_t antenna, uint64_t *uids, int max);

typedef enum {
    HAL_IN_STROKE_DONE = 1, /* stroke, tag, result, a, b (dice: d1 d2; self-test: passed, detail) */
    HAL_IN_LID,             /* a = 1 open, 0 closed */
    HAL_IN_ESTOP,           /* a = 1 pressed, 0 released */
    HAL_IN_ZONE_CHANGED,    /* antenna a may read something new: read it again */
    HAL_IN_RESET,           /* the board restarts (a = mj_reset_cause_t): host build only */
    HAL_IN_EVENT,           /* send this raw event (host build test hook) */
} hal_input_kind_t;

typedef struct {
    uint8_t kind;
    uint8_t stroke;
    uint8_t tag;
    uint8_t result;
    uint16_t a;
    uint16_t b;
    uint8_t event_type;
    uint8_t event_len;
    uint8_t event[16];
} hal_input_t;

bool hal_input(hal_input_t *in); /* the next input, if any */

/* ---- non-volatile memory and reset ---- */
uint32_t hal_boot_count(void); /* incremented at each start (kept across power cycles) */
uint8_t hal_reset_cause(void); /* mj_reset_cause_t of this start */
void hal_restart(void);        /* software reset (the core has sent its reply) */

/* ---- trace (host build: what the table did, for tests; nothing on the board) ---- */
void hal_trace_command(uint8_t type, const uint8_t *payload, uint16_t len);

#endif /* MJ_HAL_H */
