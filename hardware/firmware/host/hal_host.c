/* hal_host.c: the firmware as a Linux process (the "host build"), like Klipper's Linux MCU.
 *
 * The UART is a pseudo-terminal: the daemon opens its device path as it would open the USB
 * serial device of a real table. The machine (tiles, motors, antennas) is not simulated here:
 * it is the Python simulator's table model, reached over stdin/stdout with one line per
 * message (see firmware_bridge/sim/firmware.py, which starts this process):
 *
 *   firmware -> world                       world -> firmware
 *   hello <pty path>                        ! done <stroke> <tag> <result> <a> <b>
 *   motors <mask>                           ! lid 0|1      ! estop 0|1
 *   stroke <stroke> <tag> <a> <b> <c>       ! zone <antenna>
 *   stop <stroke>                           ! reset <cause>
 *   hopper            -> = 0|1              ! noise <corrupt> <drop>
 *   walltag           -> = <uid hex>        ! dropevents <n>
 *   zone <antenna>    -> = <n> <uid hex>... | = err
 *   ran <type> <payload hex>                ! event <type> <payload hex>
 *
 * The line noise of a bad cable (damaged bytes, lost frames) is made here, on the UART, so
 * that the firmware meets it exactly as it would on a real line. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../src/hal.h"
#include "../src/mj_core.h"

/* ---- options and state ---- */
static int pty_master = -1;
static int pty_slave = -1;
static double corrupt_rate;
static double drop_rate;
static unsigned drop_events;
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static bool rx_dropping;
static bool rx_at_frame_start = true;
static uint32_t boot_count;
static uint8_t reset_cause = MJ_RESET_CAUSE_POWER_ON;
static uint8_t next_cause = MJ_RESET_CAUSE_WATCHDOG;
static bool restart_requested;
static struct timespec started;

#define INPUTS 256
static hal_input_t inputs[INPUTS];
static unsigned inputs_head, inputs_count;

static char world_buf[8192];
static size_t world_len;

static double chance(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static uint8_t some_byte(void)
{
    return (uint8_t)(1 + (unsigned)(chance() * 255.0) % 255);
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* ---- the world pipe ---- */

static void world_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void world_send(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

static int hex_bytes(const char *hex, uint8_t *out, int max)
{
    int n = 0;
    while (hex[0] && hex[1] && n < max) {
        unsigned v;
        if (sscanf(hex, "%2x", &v) != 1) {
            break;
        }
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

static void queue_input(const hal_input_t *in)
{
    if (inputs_count < INPUTS) {
        inputs[(inputs_head + inputs_count) % INPUTS] = *in;
        inputs_count++;
    }
}

/* One line from the world that is not a reply. */
static void world_notice(const char *line)
{
    hal_input_t in;
    memset(&in, 0, sizeof in);
    unsigned s, t, r, a, b;
    double c, d;
    char hex[80];
    if (sscanf(line, "! done %u %u %u %u %u", &s, &t, &r, &a, &b) == 5) {
        in.kind = HAL_IN_STROKE_DONE;
        in.stroke = (uint8_t)s;
        in.tag = (uint8_t)t;
        in.result = (uint8_t)r;
        in.a = (uint16_t)a;
        in.b = (uint16_t)b;
        queue_input(&in);
    } else if (sscanf(line, "! lid %u", &a) == 1) {
        in.kind = HAL_IN_LID;
        in.a = (uint16_t)a;
        queue_input(&in);
    } else if (sscanf(line, "! estop %u", &a) == 1) {
        in.kind = HAL_IN_ESTOP;
        in.a = (uint16_t)a;
        queue_input(&in);
    } else if (sscanf(line, "! zone %u", &a) == 1) {
        in.kind = HAL_IN_ZONE_CHANGED;
        in.a = (uint16_t)a;
        queue_input(&in);
    } else if (sscanf(line, "! reset %u", &a) == 1) {
        in.kind = HAL_IN_RESET;
        in.a = (uint16_t)a;
        queue_input(&in);
    } else if (sscanf(line, "! noise %lf %lf", &c, &d) == 2) {
        corrupt_rate = c;
        drop_rate = d;
    } else if (sscanf(line, "! dropevents %u", &a) == 1) {
        drop_events = a;
    } else if (sscanf(line, "! event %u %79s", &t, hex) >= 1) {
        in.kind = HAL_IN_EVENT;
        in.event_type = (uint8_t)t;
        in.event_len = (uint8_t)(strcmp(hex, "-") ? hex_bytes(hex, in.event, sizeof in.event) : 0);
        queue_input(&in);
    } else if (strcmp(line, "! quit") == 0) {
        exit(0);
    }
}

/* Reads what the world wrote; returns the first reply line ("= ...") if `want_reply`. */
static const char *world_read(bool want_reply, int timeout_ms)
{
    static char reply[sizeof world_buf];
    for (;;) {
        char *end;
        while ((end = memchr(world_buf, '\n', world_len)) != NULL) {
            size_t line_len = (size_t)(end - world_buf);
            char line[sizeof world_buf];
            memcpy(line, world_buf, line_len);
            line[line_len] = 0;
            memmove(world_buf, end + 1, world_len - line_len - 1);
            world_len -= line_len + 1;
            if (line[0] == '=') {
                if (want_reply) {
                    memcpy(reply, line, line_len + 1);
                    return reply;
                }
            } else {
                world_notice(line);
            }
        }
        struct pollfd p = {0, POLLIN, 0};
        int ready = poll(&p, 1, want_reply ? 5000 : timeout_ms);
        if (ready == 0) {
            if (want_reply) {
                fprintf(stderr, "mahjong-fw-host: the machine did not answer\n");
                exit(1);
            }
            return NULL;
        }
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("poll");
        }
        ssize_t got = read(0, world_buf + world_len, sizeof world_buf - 1 - world_len);
        if (got <= 0) {
            exit(0); /* the world went away: power off */
        }
        world_len += (size_t)got;
        if (!want_reply) {
            timeout_ms = 0;
        }
    }
}

/* Whether a whole line from the world waits in the buffer: one that came in the same read as
 * a reply (`world_ask`) is not seen by poll() any more. */
static bool world_line_waiting(void)
{
    return memchr(world_buf, '\n', world_len) != NULL;
}

static const char *world_ask(const char *fmt, unsigned a)
{
    world_send(fmt, a);
    return world_read(true, 0);
}

/* ---- HAL ---- */

uint32_t hal_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)((now.tv_sec - started.tv_sec) * 1000 + (now.tv_nsec - started.tv_nsec) / 1000000);
}

size_t hal_uart_read(uint8_t *buf, size_t max)
{
    ssize_t got = read(pty_master, buf, max);
    if (got <= 0) {
        return 0;
    }
    size_t kept = 0;
    for (ssize_t i = 0; i < got; i++) {
        uint8_t byte = buf[i];
        if (corrupt_rate > 0 && chance() < corrupt_rate) {
            byte ^= some_byte();
        }
        if (rx_at_frame_start && byte != 0) {
            rx_dropping = drop_rate > 0 && chance() < drop_rate;
        }
        rx_at_frame_start = byte == 0;
        if (byte == 0 || !rx_dropping) {
            buf[kept++] = byte;
        }
    }
    return kept;
}

size_t hal_uart_tx_room(void)
{
    return 4096;
}

static bool is_event(const uint8_t *data, size_t len)
{
    uint8_t copy[MJ_LINE_MAX];
    mj_head_t head;
    const uint8_t *payload;
    if (len < 2 || len > sizeof copy) {
        return false;
    }
    memcpy(copy, data, len - 1);
    return mj_frame_decode(copy, len - 1, &head, &payload) && (head.flags & MJ_FLAG_EVENT);
}

void hal_uart_write(const uint8_t *data, size_t len)
{
    if (drop_events > 0 && is_event(data, len)) {
        drop_events--;
        return;
    }
    if (drop_rate > 0 && chance() < drop_rate) {
        return;
    }
    uint8_t out[MJ_LINE_MAX];
    memcpy(out, data, len);
    for (size_t i = 0; corrupt_rate > 0 && i < len; i++) {
        if (chance() < corrupt_rate) {
            out[i] ^= some_byte();
        }
    }
    size_t done = 0;
    while (done < len) {
        ssize_t put = write(pty_master, out + done, len - done);
        if (put < 0 && errno == EAGAIN) {
            struct pollfd p = {pty_master, POLLOUT, 0};
            if (poll(&p, 1, 50) <= 0) {
                return; /* nobody reads the line: the bytes are lost, as on a real cable */
            }
            continue;
        }
        if (put <= 0) {
            return;
        }
        done += (size_t)put;
    }
}

void hal_motors(uint8_t mask)
{
    world_send("motors %u", mask);
}

void hal_stroke(hal_stroke_t stroke, uint8_t tag, uint8_t a, uint8_t b, uint8_t c)
{
    world_send("stroke %u %u %u %u %u", stroke, tag, a, b, c);
}

void hal_stroke_stop(hal_stroke_t stroke)
{
    world_send("stop %u", stroke);
}

bool hal_hopper_has_tiles(void)
{
    return strcmp(world_ask("hopper", 0), "= 1") == 0;
}

uint64_t hal_wall_reader_read(void)
{
    return strtoull(world_ask("walltag", 0) + 2, NULL, 16);
}

int hal_zone_read(uint8_t antenna, uint64_t *uids, int max)
{
    const char *line = world_ask("zone %u", antenna) + 2;
    if (strncmp(line, "err", 3) == 0) {
        return -1;
    }
    char *end;
    long count = strtol(line, &end, 10);
    int n = 0;
    while (n < count && n < max) {
        uids[n++] = strtoull(end, &end, 16);
    }
    return n;
}

bool hal_input(hal_input_t *in)
{
    if (inputs_count == 0) {
        return false;
    }
    *in = inputs[inputs_head];
    inputs_head = (inputs_head + 1) % INPUTS;
    inputs_count--;
    if (in->kind == HAL_IN_RESET) {
        next_cause = (uint8_t)in->a;
    }
    return true;
}

uint32_t hal_boot_count(void)
{
    return boot_count;
}

uint8_t hal_reset_cause(void)
{
    return reset_cause;
}

void hal_restart(void)
{
    restart_requested = true;
}

void hal_trace_command(uint8_t type, const uint8_t *payload, uint16_t len)
{
    char hex[2 * 16 + 1] = "-";
    for (uint16_t i = 0; i < len && i < 16; i++) {
        sprintf(hex + 2 * i, "%02x", payload[i]);
    }
    world_send("ran %u %s", type, hex);
}

/* ---- the process ---- */

static void open_pty(const char *link)
{
    pty_master = posix_openpt(O_RDWR | O_NOCTTY);
    if (pty_master < 0 || grantpt(pty_master) || unlockpt(pty_master)) {
        die("posix_openpt");
    }
    const char *name = ptsname(pty_master);
    pty_slave = open(name, O_RDWR | O_NOCTTY); /* kept open: the line stays up between hosts */
    struct termios raw;
    for (int i = 0; i < 2; i++) {
        int fd = i ? pty_slave : pty_master;
        if (fd >= 0 && tcgetattr(fd, &raw) == 0) {
            cfmakeraw(&raw);
            tcsetattr(fd, TCSANOW, &raw);
        }
    }
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    if (link != NULL) {
        unlink(link);
        if (symlink(name, link) != 0) {
            die("symlink");
        }
    }
    world_send("hello %s", link != NULL ? link : name);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mahjong-fw-host [--link PATH] [--inventory-period MS] [--heartbeat-timeout MS]\n"
            "                       [--corrupt P] [--drop P] [--seed N]\n"
            "The machine is read from stdin and driven on stdout (firmware_bridge/sim/firmware.py).\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *link = NULL;
    uint32_t inventory_period = MJ_INVENTORY_PERIOD_MS;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (value == NULL) {
            usage();
        } else if (strcmp(argv[i], "--link") == 0) {
            link = value;
        } else if (strcmp(argv[i], "--inventory-period") == 0) {
            inventory_period = (uint32_t)strtoul(value, NULL, 10);
        } else if (strcmp(argv[i], "--heartbeat-timeout") == 0) {
            mj.heartbeat_timeout_ms = (uint32_t)strtoul(value, NULL, 10);
        } else if (strcmp(argv[i], "--corrupt") == 0) {
            corrupt_rate = strtod(value, NULL);
        } else if (strcmp(argv[i], "--drop") == 0) {
            drop_rate = strtod(value, NULL);
        } else if (strcmp(argv[i], "--seed") == 0) {
            rng_state ^= strtoull(value, NULL, 10) * 0x2545F4914F6CDD1Dull;
        } else {
            usage();
        }
        i++;
    }
    clock_gettime(CLOCK_MONOTONIC, &started);
    open_pty(link);
    for (;;) {
        boot_count++;
        restart_requested = false;
        mj_boot(inventory_period);
        while (!restart_requested) {
            struct pollfd fds[2] = {{pty_master, POLLIN, 0}, {0, POLLIN, 0}};
            bool waiting = world_line_waiting();
            poll(fds, 2, mj_idle() && !waiting ? 5 : 0); /* the clock ticks in 5 ms steps when idle */
            if (fds[1].revents || waiting) {
                world_read(false, 0);
            }
            mj_poll();
        }
        reset_cause = mj.restart_pending ? MJ_RESET_CAUSE_SOFTWARE : next_cause;
    }
}
