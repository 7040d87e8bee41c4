/* hal_stm32g0.c: the firmware's hardware layer on an STM32G0 at its reset clock (HSI16).
 *
 *   USART2 on PA2 (TX) / PA3 (RX), 115200 8N1, interrupt driven through two rings
 *   SysTick every millisecond
 *   motors: PB0..PB7 (bit n = mj_motor_t n), high = running
 *   stroke end switches (active low, pull-up): PA4 stacker placed a tile, PA5 lifts at the top,
 *     PA6 platform back up, PA7 dice at rest, PA8 self-test stroke done
 *   lid switch PA9 (high = open), e-stop loop PA10 (high = pressed), hopper sensor PA11
 *   dice faces: PC0..PC2 and PC3..PC5 (binary 1..6 from the dice reader)
 *   the independent watchdog, refreshed every turn of the main loop (1 s)
 *
 * The RFID readers (the wall reader and the twelve zone antennas) are board_* functions at the
 * end of this file: wire them to the reader chip of the table (SPI or UART). Everything else
 * the firmware needs is here. */
#include <stdint.h>

#include "../src/hal.h"
#include "../src/mj_core.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define RCC_IOPENR REG(0x40021034u)
#define RCC_APBENR1 REG(0x4002103Cu)
#define RCC_CSR REG(0x40021060u)

#define GPIOA 0x50000000u
#define GPIOB 0x50000400u
#define GPIOC 0x50000800u
#define MODER(port) REG((port) + 0x00u)
#define PUPDR(port) REG((port) + 0x0Cu)
#define IDR(port) REG((port) + 0x10u)
#define ODR(port) REG((port) + 0x14u)
#define AFRL(port) REG((port) + 0x20u)

#define USART2 0x40004400u
#define USART_CR1 REG(USART2 + 0x00u)
#define USART_BRR REG(USART2 + 0x0Cu)
#define USART_ISR REG(USART2 + 0x1Cu)
#define USART_ICR REG(USART2 + 0x20u)
#define USART_RDR REG(USART2 + 0x24u)
#define USART_TDR REG(USART2 + 0x28u)
#define CR1_UE (1u << 0)
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define CR1_RXNEIE (1u << 5)
#define CR1_TXEIE (1u << 7)
#define ISR_ORE (1u << 3)
#define ISR_RXNE (1u << 5)
#define ISR_TXE (1u << 7)

#define IWDG_KR REG(0x40003000u)
#define IWDG_PR REG(0x40003004u)
#define IWDG_RLR REG(0x40003008u)

#define NVIC_ISER REG(0xE000E100u)
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SCB_AIRCR REG(0xE000ED0Cu)
#define USART2_IRQ 28u
#define CLOCK_HZ 16000000u

static volatile uint32_t ticks;

#define RX_SIZE 256u
#define TX_SIZE 1024u
static volatile uint8_t rx_ring[RX_SIZE];
static volatile uint16_t rx_head, rx_tail;
static volatile uint8_t tx_ring[TX_SIZE];
static volatile uint16_t tx_head, tx_tail;

/* Survive a software or watchdog reset (section .noinit); a power cycle starts them again. */
static uint32_t boot_magic __attribute__((section(".noinit")));
static uint32_t boot_count __attribute__((section(".noinit")));
static uint8_t reset_cause;

void SysTick_Handler(void)
{
    ticks++;
}

void USART2_IRQHandler(void)
{
    uint32_t isr = USART_ISR;
    if (isr & (ISR_RXNE | ISR_ORE)) {
        uint8_t byte = (uint8_t)USART_RDR;
        USART_ICR = ISR_ORE;
        uint16_t next = (uint16_t)((rx_head + 1u) % RX_SIZE);
        if (next != rx_tail) { /* a full ring loses the byte: the frame fails its CRC */
            rx_ring[rx_head] = byte;
            rx_head = next;
        }
    }
    if ((isr & ISR_TXE) && (USART_CR1 & CR1_TXEIE)) {
        if (tx_tail == tx_head) {
            USART_CR1 &= ~CR1_TXEIE;
        } else {
            USART_TDR = tx_ring[tx_tail];
            tx_tail = (uint16_t)((tx_tail + 1u) % TX_SIZE);
        }
    }
}

uint32_t hal_now_ms(void)
{
    return ticks;
}

size_t hal_uart_read(uint8_t *buf, size_t max)
{
    size_t n = 0;
    while (n < max && rx_tail != rx_head) {
        buf[n++] = rx_ring[rx_tail];
        rx_tail = (uint16_t)((rx_tail + 1u) % RX_SIZE);
    }
    return n;
}

size_t hal_uart_tx_room(void)
{
    return (TX_SIZE - 1u) - ((tx_head + TX_SIZE - tx_tail) % TX_SIZE);
}

void hal_uart_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        tx_ring[tx_head] = data[i];
        tx_head = (uint16_t)((tx_head + 1u) % TX_SIZE);
    }
    USART_CR1 |= CR1_TXEIE;
}

void hal_motors(uint8_t mask)
{
    ODR(GPIOB) = (ODR(GPIOB) & ~0xFFu) | mask;
}

/* ---- strokes: a motor runs until its end switch closes ---- */

static const uint8_t END_PIN[] = {
    [HAL_STROKE_SHUFFLE] = 0, /* the shuffle ends when the stacker is fed: no switch */
    [HAL_STROKE_STACK] = 4,   [HAL_STROKE_RAISE] = 5,  [HAL_STROKE_LOWER] = 6,
    [HAL_STROKE_DICE] = 7,    [HAL_STROKE_SELF_TEST] = 8,
};
static uint8_t stroke_tag[sizeof END_PIN];
static uint8_t stroke_running; /* bit n = stroke n waits for its end */

void hal_stroke(hal_stroke_t stroke, uint8_t tag, uint8_t a, uint8_t b, uint8_t c)
{
    (void)a;
    (void)b;
    (void)c;
    stroke_tag[stroke] = tag;
    stroke_running |= (uint8_t)(1u << stroke);
}

void hal_stroke_stop(hal_stroke_t stroke)
{
    stroke_running &= (uint8_t)~(1u << stroke);
}

static bool pin(uint32_t port, unsigned n)
{
    return (IDR(port) >> n) & 1u;
}

bool hal_hopper_has_tiles(void)
{
    return pin(GPIOA, 11);
}

static bool lid_reported, estop_reported;
static uint32_t next_scan_ms;
static uint8_t next_antenna = 1;

bool hal_input(hal_input_t *in)
{
    for (unsigned s = HAL_STROKE_SHUFFLE; s <= HAL_STROKE_SELF_TEST; s++) {
        if (!(stroke_running & (1u << s)) || (END_PIN[s] && pin(GPIOA, END_PIN[s]))) {
            continue;
        }
        stroke_running &= (uint8_t)~(1u << s);
        *in = (hal_input_t){.kind = HAL_IN_STROKE_DONE, .stroke = (uint8_t)s,
                            .tag = stroke_tag[s], .result = HAL_DONE};
        if (s == HAL_STROKE_DICE) {
            in->a = (uint16_t)(IDR(GPIOC) & 7u);
            in->b = (uint16_t)((IDR(GPIOC) >> 3) & 7u);
        } else if (s == HAL_STROKE_SELF_TEST) {
            in->a = 1; /* the stroke came back: passed */
        }
        return true;
    }
    bool lid = pin(GPIOA, 9), estop = pin(GPIOA, 10);
    if (lid != lid_reported) {
        lid_reported = lid;
        *in = (hal_input_t){.kind = HAL_IN_LID, .a = lid};
        return true;
    }
    if (estop != estop_reported) {
        estop_reported = estop;
        *in = (hal_input_t){.kind = HAL_IN_ESTOP, .a = estop};
        return true;
    }
    if ((int32_t)(ticks - next_scan_ms) >= 0) { /* the readers cannot tell a change: each */
        next_scan_ms = ticks + 10u;             /* antenna is read again every 120 ms */
        *in = (hal_input_t){.kind = HAL_IN_ZONE_CHANGED, .a = next_antenna};
        next_antenna = (uint8_t)(next_antenna % (MJ_ANTENNAS - 1) + 1);
        return true;
    }
    return false;
}

/* ---- RFID readers: the board's reader chip ---- */

__attribute__((weak)) uint64_t board_wall_tag(void)
{
    return 0; /* no reader wired: a tag that cannot be read */
}

__attribute__((weak)) int board_zone_tags(uint8_t antenna, uint64_t *uids, int max)
{
    (void)antenna;
    (void)uids;
    (void)max;
    return 0;
}

uint64_t hal_wall_reader_read(void)
{
    return board_wall_tag();
}

int hal_zone_read(uint8_t antenna, uint64_t *uids, int max)
{
    return board_zone_tags(antenna, uids, max);
}

/* ---- reset ---- */

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
    while (tx_tail != tx_head) { /* the reply goes out first */
    }
    SCB_AIRCR = (0x05FAu << 16) | (1u << 2);
    for (;;) {
    }
}

void hal_trace_command(uint8_t type, const uint8_t *payload, uint16_t len)
{
    (void)type;
    (void)payload;
    (void)len;
}

/* RCC_CSR reset flags: 30 window and 29 independent watchdog, 28 software, 27 power (power-on
 * and brown-out alike: the G0 does not tell them apart), 26 the NRST pin (set by every reset
 * that drives the pin, so it counts only alone). */
static uint8_t cause_from_flags(uint32_t csr)
{
    if (csr & ((1u << 29) | (1u << 30))) {
        return MJ_RESET_CAUSE_WATCHDOG;
    }
    if (csr & (1u << 28)) {
        return MJ_RESET_CAUSE_SOFTWARE;
    }
    if (csr & (1u << 27)) {
        return MJ_RESET_CAUSE_POWER_ON;
    }
    if (csr & (1u << 26)) {
        return MJ_RESET_CAUSE_RESET_LINE;
    }
    return MJ_RESET_CAUSE_POWER_ON;
}

static void board_init(void)
{
    reset_cause = cause_from_flags(RCC_CSR);
    RCC_CSR |= 1u << 23; /* clear the reset flags */
    if (boot_magic != 0x4D4A4254u || reset_cause == MJ_RESET_CAUSE_POWER_ON) {
        boot_magic = 0x4D4A4254u;
        boot_count = 0;
    }
    boot_count++;

    RCC_IOPENR |= 0x7u;         /* GPIOA, GPIOB, GPIOC */
    RCC_APBENR1 |= 1u << 17;    /* USART2 */
    /* PA2, PA3: alternate function 1 (USART2); PA4..PA11 inputs with pull-up */
    MODER(GPIOA) = (MODER(GPIOA) & ~0xFFFFF0u) | (0x2u << 4) | (0x2u << 6);
    AFRL(GPIOA) = (AFRL(GPIOA) & ~0xFF00u) | (0x1u << 8) | (0x1u << 12);
    PUPDR(GPIOA) = (PUPDR(GPIOA) & ~0xFFFF00u) | 0x555500u;
    /* PB0..PB7 outputs, all motors off */
    ODR(GPIOB) &= ~0xFFu;
    MODER(GPIOB) = (MODER(GPIOB) & ~0xFFFFu) | 0x5555u;
    /* PC0..PC5 inputs */
    MODER(GPIOC) &= ~0xFFFu;

    USART_BRR = (CLOCK_HZ + 115200u / 2u) / 115200u;
    USART_CR1 = CR1_UE | CR1_RE | CR1_TE | CR1_RXNEIE;
    NVIC_ISER = 1u << USART2_IRQ;

    SYST_RVR = CLOCK_HZ / 1000u - 1u;
    SYST_CSR = 0x7u; /* processor clock, interrupt, enable */

    /* The independent watchdog: a main loop stuck for 1 s restarts the MCU (reset cause
     * WATCHDOG), which stops every motor. LSI 32 kHz / 64 = 500 Hz, 500 counts. */
    IWDG_KR = 0xCCCCu;
    IWDG_KR = 0x5555u;
    IWDG_PR = 4u;
    IWDG_RLR = 500u;
    IWDG_KR = 0xAAAAu;
}

int main(void)
{
    board_init();
    mj_boot(MJ_INVENTORY_PERIOD_MS);
    lid_reported = false;
    estop_reported = false;
    for (;;) {
        mj_poll();
        IWDG_KR = 0xAAAAu;
    }
}
