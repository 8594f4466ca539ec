/* SPDX-License-Identifier: Apache-2.0
 *
 * replay.c - run a fuzz target over files, without libFuzzer
 *
 *   fuzz_NAME FILE_OR_DIR...
 *
 * Each regular file (directories are read one level deep) is passed to
 * LLVMFuzzerTestOneInput() once.  A crash or an abort fails the run; the
 * sanitizer build reports leaks and invalid accesses as it would under
 * the fuzzer.  Prints how many inputs ran.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (!f) {
        perror(path);
        return -1;
    }
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            if (!(buf = realloc(buf, cap)))
                abort();
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int run_path(const char *path, unsigned *count)
{
    struct stat st;
    struct dirent *e;
    DIR *d;
    char sub[4096];
    int rc = 0;

    if (stat(path, &st) < 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return run_file(path);
    }
    if (!(d = opendir(path))) {
        perror(path);
        return -1;
    }
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        if (stat(sub, &st) == 0 && S_ISREG(st.st_mode)) {
            (*count)++;
            rc |= run_file(sub);
        }
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int rc = 0;

    for (int i = 1; i < argc; i++)
        rc |= run_path(argv[i], &count);
    printf("%s: %u inputs\n", argv[0], count);
    return rc ? 1 : 0;
}
