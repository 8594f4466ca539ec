/* SPDX-License-Identifier: Apache-2.0
 *
 * golden.h - read the copies of Slurm's golden outputs in data/slurm-golden
 *
 * For unit tests only (static functions, included by one test file each).
 * __FILE__ is relative to the build root when meson compiles, so the data
 * directory is tried from the current directory and from the build root
 * above the test executable.
 */
#ifndef DROVER_TESTS_UNIT_GOLDEN_H
#define DROVER_TESTS_UNIT_GOLDEN_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *golden_read_file(const char *path)
{
    FILE *f = fopen(path, "r"), *m;
    char *buf = NULL;
    size_t len = 0;
    int c;

    if (!f)
        return NULL;
    m = open_memstream(&buf, &len);
    while ((c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(m);
    fclose(f);
    return buf;
}

/* The text of data/slurm-golden/<file> ("sacct-default.stdout"), or NULL.
 * Caller frees.
 */
static char *golden_text(const char *file)
{
    char dir[PATH_MAX], exe[PATH_MAX], path[PATH_MAX * 2];
    const char *bases[] = {"", NULL};
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash, *text;

    snprintf(dir, sizeof(dir), "%s", __FILE__);
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    else
        snprintf(dir, sizeof(dir), ".");
    if (n > 0) {
        exe[n] = '\0';
        for (int up = 0; up < 3 && (slash = strrchr(exe, '/')); up++)
            *slash = '\0';
        bases[1] = exe;
    }
    for (int i = 0; i < 2; i++) {
        if (!bases[i] || (i == 1 && dir[0] == '/'))
            continue;
        snprintf(path, sizeof(path), "%s%s%s/data/slurm-golden/%s", bases[i],
                 bases[i][0] ? "/" : "", dir, file);
        if ((text = golden_read_file(path)))
            return text;
    }
    return NULL;
}

/* Fail the test unless 'got' is byte for byte data/slurm-golden/<name>.stdout
 * (a missing file fails too). */
__attribute__((unused)) static void golden_assert(const char *name,
                                                 const char *got)
{
    char file[256], *want;

    snprintf(file, sizeof(file), "%s.stdout", name);
    if (!(want = golden_text(file)))
        fail_msg("golden file %s not found", file);
    else if (strcmp(want, got) != 0)
        fail_msg("%s differs\n--- want\n%s--- got\n%s", name, want, got);
    free(want);
}

#endif /* !DROVER_TESTS_UNIT_GOLDEN_H */
