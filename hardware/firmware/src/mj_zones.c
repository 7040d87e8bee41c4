/* mj_zones.c: the zone antennas and the record of the last build (protocol.md section 4).
 *
 * A zone is reported when what its antenna reads changes (the board says when to read again),
 * every MJ_INVENTORY_PERIOD_MS for every zone, and on request. For these it keeps no UID list
 * per zone, only a hash of the list it last reported (4 bytes an antenna): an inventory is read
 * into one scratch list and encoded straight into the frame. The one exception is
 * query_zone_page (protocol.md section 2): its first page keeps the zone's list, which the
 * later pages are answered from (12 lists of 63 UIDs, 6 KiB). */
#include <string.h>

#include "mj_core.h"
#include "mj_wire.h"

#define ALL_ZONES ((uint16_t)(((1u << MJ_ANTENNAS) - 1u) & ~1u))

static uint32_t list_hash(const uint64_t *uids, int count)
{
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (int i = 0; i < count; i++) {
        for (int b = 0; b < 8; b++) {
            hash = (hash ^ (uint8_t)(uids[i] >> (8 * b))) * 16777619u;
        }
    }
    return hash ^ (uint32_t)count;
}

void mj_zones_boot(void)
{
    mj_zones_t *z = &mj.zones;
    for (int a = 0; a < MJ_ANTENNAS; a++) {
        z->reported[a] = list_hash(NULL, 0);
    }
    z->paged = 0;
    z->check = 0; /* what the zones hold at boot is reported when it changes, or asked */
    z->report = 0;
    z->next_periodic_ms = hal_now_ms() + mj.inventory_period_ms;
}

bool mj_zones_idle(void)
{
    return (mj.zones.check | mj.zones.report) == 0;
}

void mj_zones_changed(uint8_t antenna)
{
    if (antenna >= 1 && antenna < MJ_ANTENNAS) {
        mj.zones.check |= (uint16_t)(1u << antenna);
    }
}

static void sort_uids(uint64_t *uids, int count)
{
    for (int i = 1; i < count; i++) { /* insertion sort: at most 63 tags, mostly in order */
        uint64_t v = uids[i];
        int j = i - 1;
        while (j >= 0 && uids[j] > v) {
            uids[j + 1] = uids[j];
            j--;
        }
        uids[j + 1] = v;
    }
}

/* Reads one antenna into the scratch list (sorted, duplicates removed); a failing reader
 * raises READER_ERROR (detail: the antenna) and reads nothing. */
static int read_antenna(uint8_t antenna)
{
    uint64_t *uids = mj.zones.scratch;
    int count = hal_zone_read(antenna, uids, MJ_MAX_ZONE_UIDS);
    if (count < 0) {
        mj_fault_raise(MJ_FAULT_CODE_READER_ERROR, antenna);
        return 0;
    }
    if (count > MJ_MAX_ZONE_UIDS) {
        count = MJ_MAX_ZONE_UIDS;
    }
    sort_uids(uids, count);
    int kept = 0;
    for (int i = 0; i < count; i++) {
        if (kept == 0 || uids[kept - 1] != uids[i]) {
            uids[kept++] = uids[i];
        }
    }
    return kept;
}

static uint16_t encode_inventory(uint8_t antenna, int count, uint8_t *payload)
{
    payload[0] = (uint8_t)((antenna - 1) / MJ_ZONES_PER_SEAT);
    payload[1] = (uint8_t)((antenna - 1) % MJ_ZONES_PER_SEAT);
    for (int i = 0; i < count; i++) {
        mj_put64(payload + MJ_ZONE_INVENTORY_SIZE + 8 * i, mj.zones.scratch[i]);
    }
    return (uint16_t)(MJ_ZONE_INVENTORY_SIZE + 8 * count);
}

uint16_t mj_zone_read_payload(uint8_t seat, uint8_t zone, uint8_t *payload)
{
    uint8_t antenna = (uint8_t)(1 + seat * MJ_ZONES_PER_SEAT + zone);
    int count = read_antenna(antenna);
    mj.zones.reported[antenna] = list_hash(mj.zones.scratch, count);
    mj.zones.check &= (uint16_t)~(1u << antenna);
    mj.zones.report &= (uint16_t)~(1u << antenna);
    return encode_inventory(antenna, count, payload);
}

uint16_t mj_zone_page_payload(uint8_t seat, uint8_t zone, uint8_t first, uint8_t count,
                              uint8_t *payload)
{
    mj_zones_t *z = &mj.zones;
    uint8_t antenna = (uint8_t)(1 + seat * MJ_ZONES_PER_SEAT + zone);
    uint16_t bit = (uint16_t)(1u << antenna);
    uint64_t *kept = z->page_uids[antenna - 1];
    if (first == 0 || !(z->paged & bit)) { /* read the antenna now and keep what it reads */
        int read = read_antenna(antenna);
        z->reported[antenna] = list_hash(z->scratch, read);
        z->check &= (uint16_t)~bit;
        z->report &= (uint16_t)~bit;
        memcpy(kept, z->scratch, sizeof kept[0] * (size_t)read);
        z->page_count[antenna - 1] = (uint8_t)read;
        z->paged |= bit;
    }
    int total = z->page_count[antenna - 1];
    int end = first + count < total ? first + count : total;
    payload[0] = seat;
    payload[1] = zone;
    payload[2] = (uint8_t)total;
    payload[3] = first;
    uint16_t len = MJ_ZONE_PAGE_SIZE;
    for (int i = first; i < end; i++) {
        mj_put64(payload + len, kept[i]);
        len = (uint16_t)(len + 8);
    }
    return len;
}

void mj_zones_tick(uint32_t now)
{
    mj_zones_t *z = &mj.zones;
    if (mj.inventory_period_ms && (int32_t)(now - z->next_periodic_ms) >= 0) {
        z->report |= ALL_ZONES;
        z->next_periodic_ms = now + mj.inventory_period_ms;
    }
    /* One antenna a turn, the next one due after the last one read: a command waits for at
     * most one RFID read before it is answered. */
    for (uint8_t step = 1; step < MJ_ANTENNAS; step++) {
        uint8_t antenna = (uint8_t)(1 + (z->last_read + step - 1) % (MJ_ANTENNAS - 1));
        uint16_t bit = (uint16_t)(1u << antenna);
        if (!((z->check | z->report) & bit)) {
            continue;
        }
        z->last_read = antenna;
        int count = read_antenna(antenna);
        uint32_t hash = list_hash(z->scratch, count);
        if (hash == z->reported[antenna] && !(z->report & bit)) {
            z->check &= (uint16_t)~bit;
            return;
        }
        uint16_t len = encode_inventory(antenna, count, mj.reply);
        if (mj_event_now(MJ_MSG_ZONE_INVENTORY, mj.reply, len)) {
            z->reported[antenna] = hash;
            z->check &= (uint16_t)~bit;
            z->report &= (uint16_t)~bit;
        } /* else the line is full: read it again when its turn comes back */
        return;
    }
}

/* ---- the wall record ---- */

void mj_walls_clear(uint8_t tiles_per_side, uint8_t layers)
{
    mj_walls_t *w = &mj.walls;
    memset(w->present, 0, sizeof w->present);
    w->tiles_per_side = tiles_per_side;
    w->layers = layers;
    w->placed = 0;
}

void mj_walls_record(uint8_t side, uint8_t stack, uint8_t layer, uint64_t uid)
{
    mj_walls_t *w = &mj.walls;
    unsigned index = (unsigned)stack * w->layers + layer;
    if (side >= MJ_SIDES || index >= MJ_MAX_PER_SIDE) {
        return;
    }
    if (!(w->present[side][index / 8] & (1u << (index % 8)))) {
        w->placed++;
    }
    w->present[side][index / 8] |= (uint8_t)(1u << (index % 8));
    w->uid[side][index] = uid;
}

uint16_t mj_walls_page(uint8_t side, uint8_t first, uint8_t stacks, uint8_t *payload)
{
    mj_walls_t *w = &mj.walls;
    payload[0] = side;
    payload[1] = w->tiles_per_side;
    payload[2] = w->layers;
    uint16_t len = MJ_WALL_SIDE_SIZE;
    for (unsigned index = 0; w->layers && index < MJ_MAX_PER_SIDE; index++) {
        unsigned stack = index / w->layers;
        bool present = w->present[side][index / 8] & (1u << (index % 8));
        if (!present || stack < first || stack >= (unsigned)first + stacks) {
            continue;
        }
        payload[len] = (uint8_t)stack;
        payload[len + 1] = (uint8_t)(index % w->layers);
        mj_put64(payload + len + 2, w->uid[side][index]);
        len = (uint16_t)(len + sizeof(mj_wall_slot_t));
    }
    return len;
}
