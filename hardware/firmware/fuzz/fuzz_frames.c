/* fuzz_frames.c: the whole firmware fed a byte stream from the host: decoder, session,
 * every command handler, motions and zone reports. Under ASan and UBSan any overflow or
 * undefined behaviour aborts; the fuzz board aborts on any frame the host could not read. */
#include <string.h>

#include "../src/mj_core.h"
#include "fuzz_hal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    memset(&mj, 0, sizeof mj);
    fuzz_hal_start(data, size);
    mj_boot(2000);
    while (fuzz_hal_input_left()) {
        mj_poll();
        if (fuzz_hal_restarted()) {
            mj_boot(2000);
        }
    }
    for (int turn = 0; turn < 8; turn++) { /* let motions end, time out, the heartbeat lapse */
        fuzz_hal_advance(700);
        mj_poll();
        if (fuzz_hal_restarted()) {
            mj_boot(2000);
        }
    }
    return 0;
}
