/* mj_core.h: the firmware's state and the calls between its modules (no heap, no OS).
 *
 * mj_session.c   sequence numbers, acks, NAKs, reply cache (protocol.md section 2)
 * mj_events.c    the event queue and its counter
 * mj_machine.c   motions (build, raise, lower, dice, self-test), faults, fail-safes (section 3)
 * mj_zones.c     zone antennas and the wall record (section 4)
 * mj_commands.c  one handler per host command of the message table (section 5)
 * mj_firmware.c  boot and the main-loop turn */
#ifndef MJ_CORE_H
#define MJ_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal.h"
#include "mahjong_protocol.h"
#include "mj_frame.h"

#define MJ_FIRMWARE_MAJOR 2
#define MJ_FIRMWARE_MINOR 0
#define MJ_FIRMWARE_PATCH 0
#define MJ_MODEL 1
#define MJ_ZONES_PER_SEAT 3
#define MJ_ZONES (MJ_SEATS * MJ_ZONES_PER_SEAT)
#define MJ_ANTENNAS (1 + MJ_ZONES)
#define MJ_REPLY_CACHE (2 * MJ_MAX_WINDOW)
/* A kept reply: identify_reply (24 payload bytes) is the largest reply a command that acts
 * or starts a session can have; 32 bytes on the line. */
#define MJ_REPLY_SLOT 32
#define MJ_EVENT_QUEUE 32
#define MJ_EVENT_MAX_PAYLOAD 16
#define MJ_MAX_FAULTS 16
#define MJ_MAX_PER_SIDE 36 /* 144 tiles / 4 sides */
#define MJ_MAX_LAYERS 3
#define MJ_INVENTORY_PERIOD_MS 2000
#define MJ_MOTIONS 6 /* indexed by mj_motion_t 1..5 */

/* ---- session ---- */
typedef struct {
    uint8_t seq;
    uint8_t len;   /* encoded bytes kept; 0: nothing kept */
    bool reread;   /* a read whose reply did not fit: answered by reading again */
    uint8_t bytes[MJ_REPLY_SLOT];
} mj_kept_reply_t;

typedef struct {
    bool synced;
    uint8_t expected;
    bool nak_sent;
    uint8_t nak_for;
    mj_kept_reply_t kept[MJ_REPLY_CACHE];
} mj_session_t;

/* ---- events ---- */
typedef struct {
    uint8_t type;
    uint8_t len;
    uint8_t payload[MJ_EVENT_MAX_PAYLOAD];
} mj_event_t;

typedef struct {
    uint32_t counter; /* events sent (or lost) since boot; the first is number 1 */
    uint8_t head;
    uint8_t count;
    uint32_t overflows;
    mj_event_t queue[MJ_EVENT_QUEUE];
} mj_events_t;

/* ---- machine ---- */
typedef struct {
    bool running;
    uint8_t tag;         /* the stroke this motion waits for */
    uint32_t started_ms;
    uint32_t max_ms;
    uint8_t component;   /* self-test */
} mj_motion_state_t;

typedef struct {
    uint8_t code;
    uint16_t detail;
} mj_active_fault_t2;

typedef struct {
    mj_motion_state_t motion[MJ_MOTIONS];
    uint8_t next_tag;
    uint8_t motors;
    uint8_t build_state;
    bool lifts_up;
    bool surface_holds_tiles;
    bool lid_open;
    bool estop;
    uint16_t dice_rolls;
    uint8_t last_d1, last_d2;
    uint8_t fault_count;
    mj_active_fault_t2 faults[MJ_MAX_FAULTS];
    /* the build in progress */
    uint8_t build_side, build_index, build_side_count;
    bool build_out_of_tiles;
} mj_machine_t;

/* ---- walls and zones ---- */
typedef struct {
    uint8_t tiles_per_side;
    uint8_t layers;
    uint16_t placed;
    uint8_t present[MJ_SIDES][(MJ_MAX_PER_SIDE + 7) / 8];
    uint64_t uid[MJ_SIDES][MJ_MAX_PER_SIDE];
} mj_walls_t;

typedef struct {
    uint32_t reported[MJ_ANTENNAS]; /* hash of the UID list last reported, per antenna */
    uint16_t check;                 /* antennas to read again (bit n = antenna n) */
    uint16_t report;                /* antennas to report even when unchanged */
    uint32_t next_periodic_ms;
    uint8_t last_read;              /* the antenna read last (one a turn, in turn) */
    uint64_t scratch[MJ_MAX_ZONE_UIDS];
    /* query_zone_page: each zone's list kept at its last first page (index: antenna - 1) */
    uint16_t paged;                 /* zones that keep a list (bit n = antenna n) */
    uint8_t page_count[MJ_ZONES];
    uint64_t page_uids[MJ_ZONES][MJ_MAX_ZONE_UIDS];
} mj_zones_t;

typedef struct {
    mj_session_t session;
    mj_events_t events;
    mj_machine_t machine;
    mj_walls_t walls;
    mj_zones_t zones;
    mj_decoder_t decoder;
    uint8_t line[MJ_LINE_MAX];          /* one frame being put on the line */
    uint8_t reply[MJ_MAX_PAYLOAD];      /* the payload of the reply being made */
    uint32_t boot_ms;
    uint32_t last_host_ms;
    uint32_t boot_count;
    uint8_t reset_cause;
    bool restart_pending;
    uint32_t inventory_period_ms;       /* 0: zones reported on change and request only */
    uint32_t heartbeat_timeout_ms;
    uint32_t frame_errors;
} mj_firmware_t;

extern mj_firmware_t mj;

/* A reply made by a command handler: its type and payload length (payload in mj.reply). */
typedef struct {
    uint8_t type;
    uint16_t len;
    bool read_only; /* a read: may be answered again by reading again */
} mj_reply_t;

/* session */
void mj_session_reset(void);
void mj_session_receive(const mj_head_t *head, const uint8_t *payload);
void mj_session_nak(void);
uint8_t mj_session_ack(void);

/* events */
void mj_events_reset(void);
void mj_event(uint8_t type, const uint8_t *payload, uint8_t len);
void mj_events_drain(void);
bool mj_events_idle(void);
bool mj_event_now(uint8_t type, const uint8_t *payload, uint16_t len);
size_t mj_send_frame(uint8_t type, uint8_t flags, uint8_t seq, const uint8_t *payload,
                     uint16_t len);

/* commands */
mj_reply_t mj_command_run(uint8_t type, const uint8_t *payload, uint16_t len);
mj_reply_t mj_reply_rejected(uint8_t reason, uint16_t detail);

/* machine */
void mj_machine_boot(void);
void mj_machine_tick(uint32_t now);
void mj_machine_stroke_done(const hal_input_t *in);
void mj_stop_all(bool report);
void mj_fault_raise(uint8_t code, uint16_t detail);
void mj_fault_clear(uint8_t code, uint16_t detail);
bool mj_fault_active(uint8_t code, uint16_t detail);
void mj_interlock(uint8_t code, bool active);
bool mj_motion_running(uint8_t motion);
mj_reply_t mj_motion_begin(uint8_t motion, uint32_t max_ms, uint8_t a, uint8_t b, uint8_t c);
uint8_t mj_motors_running(void);

/* zones and walls */
void mj_zones_boot(void);
void mj_zones_tick(uint32_t now);
void mj_zones_changed(uint8_t antenna);
bool mj_zones_idle(void);
uint16_t mj_zone_read_payload(uint8_t seat, uint8_t zone, uint8_t *payload);
uint16_t mj_zone_page_payload(uint8_t seat, uint8_t zone, uint8_t first, uint8_t count,
                              uint8_t *payload);
void mj_walls_clear(uint8_t tiles_per_side, uint8_t layers);
void mj_walls_record(uint8_t side, uint8_t stack, uint8_t layer, uint64_t uid);
uint16_t mj_walls_page(uint8_t side, uint8_t first, uint8_t stacks, uint8_t *payload);

/* firmware */
uint32_t mj_uptime_ms(void);
void mj_boot(uint32_t inventory_period_ms);
void mj_poll(void);
bool mj_idle(void); /* nothing to do until an input comes (a board may sleep) */

#endif /* MJ_CORE_H */
