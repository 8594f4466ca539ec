/* SPDX-License-Identifier: Apache-2.0
 *
 * golden.h - read tests/unit/data/slurm-golden/<name>.stdout from a unit
 * test (header-only: each test is one file) and compare with it
 */
#ifndef DROVER_TESTS_UNIT_GOLDEN_H
#define DROVER_TESTS_UNIT_GOLDEN_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *golden_read(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(1, (size_t)n + 1);
    if (fread(text, 1, (size_t)n, f) != (size_t)n)
        text[0] = '\0';
    fclose(f);
    return text;
}

/* The golden stdout of case 'name' (caller frees); fails the test when it
 * is missing.  __FILE__ is relative to the build root under meson, so it
 * is tried from the current directory and from the build root.
 */
static char *golden_text(const char *name)
{
    char dir[PATH_MAX], exe[PATH_MAX], path[PATH_MAX * 2 + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash, *text;

    snprintf(dir, sizeof(dir), "%s", __FILE__);
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    snprintf(path, sizeof(path), "%s/data/slurm-golden/%s.stdout", dir, name);
    if ((text = golden_read(path)))
        return text;
    if (n > 0 && dir[0] != '/') {
        exe[n] = '\0';
        for (int up = 0; up < 3 && (slash = strrchr(exe, '/')); up++)
            *slash = '\0';
        snprintf(path, sizeof(path), "%s/%s/data/slurm-golden/%s.stdout", exe,
                 dir, name);
        if ((text = golden_read(path)))
            return text;
    }
    fail_msg("golden file %s not found (from %s)", name, dir);
    return NULL;
}

static void golden_assert(const char *name, const char *got)
{
    char *want = golden_text(name);

    if (strcmp(want, got) != 0)
        fail_msg("%s differs\n--- want\n%s--- got\n%s", name, want, got);
    free(want);
}

#endif /* !DROVER_TESTS_UNIT_GOLDEN_H */
