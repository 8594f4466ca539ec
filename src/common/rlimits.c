/* SPDX-License-Identifier: Apache-2.0
 *
 * rlimits.c - the resource limits srun propagates (rlimits.h)
 */
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "common/rlimits.h"

const struct rlimit_row rlimit_table[RLIMIT_ROWS] = {
    {"CPU", RLIMIT_CPU},       {"FSIZE", RLIMIT_FSIZE},
    {"DATA", RLIMIT_DATA},     {"STACK", RLIMIT_STACK},
    {"CORE", RLIMIT_CORE},     {"RSS", RLIMIT_RSS},
    {"NPROC", RLIMIT_NPROC},   {"NOFILE", RLIMIT_NOFILE},
    {"MEMLOCK", RLIMIT_MEMLOCK}, {"AS", RLIMIT_AS},
};

/* The row of the name at p (length n), or -1. */
static int row_of(const char *p, size_t n)
{
    if (n > 7 && !strncasecmp(p, "RLIMIT_", 7)) {
        p += 7;
        n -= 7;
    }
    for (size_t i = 0; i < RLIMIT_ROWS; i++)
        if (strlen(rlimit_table[i].name) == n
            && !strncasecmp(p, rlimit_table[i].name, n))
            return (int)i;
    return -1;
}

int rlimits_parse(const char *list, unsigned *mask, const char **bad)
{
    const char *p = list;

    if (!strcasecmp(list, "ALL")) {
        *mask = RLIMITS_ALL;
        return 0;
    }
    if (!strcasecmp(list, "NONE")) {
        *mask = 0;
        return 0;
    }
    *mask = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        int row = row_of(p, n);

        if (row < 0) {
            *bad = p;
            return -1;
        }
        *mask |= 1u << row;
        p += n + (p[n] == ',');
    }
    return 0;
}
