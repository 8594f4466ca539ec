/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz.h - what every fuzz target shares
 *
 * Each target defines LLVMFuzzerTestOneInput(), libFuzzer's entry point.
 * Built with -Dfuzz=true under clang it links libFuzzer (-fsanitize=fuzzer)
 * and runs as a fuzzer; otherwise replay.c gives it a main() that runs
 * every file of its corpus once, so the normal build replays the corpora
 * as regression tests (suite "fuzz").
 */
#ifndef DROVER_TESTS_FUZZ_H
#define DROVER_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional, once before the first input (libFuzzer; replay.c does not
 * call it). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (embedded NULs end it early, as
 * they would a line read from a file).  Caller frees; aborts on ENOMEM. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Abort (a finding) when 'cond' is false: an invariant of the code under
 * test, checked on every input. */
#define FUZZ_ASSERT(cond)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            abort();                                                           \
    } while (0)

#endif /* !DROVER_TESTS_FUZZ_H */
