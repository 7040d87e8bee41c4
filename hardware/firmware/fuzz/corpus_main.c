/* corpus_main.c: runs every file of a corpus folder through the fuzz target once (for a
 * compiler without libFuzzer: built with ASan and UBSan by `make test`). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_hal.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: corpus-run DIR\n");
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (dir == NULL) {
        perror(argv[1]);
        return 2;
    }
    static unsigned char data[1 << 16];
    unsigned inputs = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.') {
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], entry->d_name);
        FILE *file = fopen(path, "rb");
        if (file == NULL) {
            continue;
        }
        size_t len = fread(data, 1, sizeof data, file);
        fclose(file);
        LLVMFuzzerTestOneInput(data, len);
        inputs++;
    }
    closedir(dir);
    printf("corpus: %u inputs, %llu frames written, no fault\n", inputs,
           (unsigned long long)fuzz_frames_written());
    return 0;
}
