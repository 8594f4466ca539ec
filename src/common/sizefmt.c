/* SPDX-License-Identifier: Apache-2.0
 *
 * sizefmt.c - Slurm's memory sizes: "16G", "512M", "1T", "4096" (MiB)
 *
 * Parsing accepts what Slurm's str_to_mbytes() accepts for sbatch --mem,
 * but is stricter about what follows the unit: Slurm ignores it ("16Gxyz"),
 * we allow only a "B".  Formatting follows convert_num_unit() with exact
 * conversion: step up a unit while the value divides by 1024.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "common/sizefmt.h"

static int bad_size(const char *s, drv_error_t *error)
{
    errno = EINVAL;
    return errprintf(error, "invalid memory size \"%s\"", s ? s : "(null)");
}

static int too_big(const char *s, drv_error_t *error)
{
    errno = ERANGE;
    return errprintf(error, "memory size \"%s\" is too large", s);
}

/* Parse the leading digits of *p into *val, advancing *p. */
static int parse_u64(const char **p, uint64_t *val)
{
    const char *s = *p;
    uint64_t v = 0;

    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) {
            errno = ERANGE;
            return -1;
        }
        v = v * 10 + d;
    }
    *val = v;
    *p = s;
    return 0;
}

/* MiB per unit letter, or 0 for "K" (rounded up by the caller) or -1 for
 * an unknown letter.
 */
static int64_t unit_scale(char c)
{
    switch (c) {
    case 'k':
    case 'K':
        return 0;
    case '\0':
    case 'm':
    case 'M':
        return 1;
    case 'g':
    case 'G':
        return 1024;
    case 't':
    case 'T':
        return 1024 * 1024;
    default:
        return -1;
    }
}

int sizefmt_parse_mib(const char *s, uint64_t *mib, drv_error_t *error)
{
    const char *p = s;
    uint64_t v;
    int64_t scale;

    if (!s || !mib)
        return bad_size(s, error);
    errno = 0;
    if (parse_u64(&p, &v) < 0)
        return errno == ERANGE ? too_big(s, error) : bad_size(s, error);
    if ((scale = unit_scale(*p)) < 0)
        return bad_size(s, error);
    if (*p) {
        p++;
        if (*p == 'b' || *p == 'B')
            p++;
        if (*p)
            return bad_size(s, error);
    }
    if (scale == 0)
        v = v / 1024 + (v % 1024 != 0);
    else if (v > UINT64_MAX / (uint64_t)scale)
        return too_big(s, error);
    else
        v *= (uint64_t)scale;
    *mib = v;
    return 0;
}

char *sizefmt_mib(uint64_t mib, char *buf, size_t size)
{
    static const char units[] = "MGTPEZY";
    size_t u = 0;

    if (!buf || size == 0)
        return buf;
    if (mib == 0) {
        /* Slurm prints a bare "0" (AllocTRES "mem=0"). */
        snprintf(buf, size, "0");
        return buf;
    }
    while (mib % 1024 == 0 && u + 1 < sizeof(units) - 1) {
        mib /= 1024;
        u++;
    }
    snprintf(buf, size, "%llu%c", (unsigned long long)mib, units[u]);
    return buf;
}
