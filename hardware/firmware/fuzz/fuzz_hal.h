/* fuzz_hal.h: the fuzz board's controls (fuzz/hal_fuzz.c). */
#ifndef MJ_FUZZ_HAL_H
#define MJ_FUZZ_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void fuzz_hal_start(const uint8_t *data, size_t len);
bool fuzz_hal_input_left(void);
void fuzz_hal_advance(uint32_t ms);
bool fuzz_hal_restarted(void);
uint64_t fuzz_frames_written(void);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
