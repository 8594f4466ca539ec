/* SPDX-License-Identifier: Apache-2.0
 *
 * decfmt.h - an unsigned number in decimal without printf
 *
 * Listings print a number or a duration per line (squeue's job ids and
 * times) and the controller writes one per value of a job_info answer;
 * vsnprintf's format parsing was a tenth of squeue's printing.  One
 * writer serves them all.
 */
#ifndef DROVER_COMMON_DECFMT_H
#define DROVER_COMMON_DECFMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bytes dec_format() may write: 20 digits of a uint64_t. */
#define DECFMT_MAX 20

/* 'v' in decimal with at least 'min' digits (zeros in front; 1 to
 * DECFMT_MAX), as printf's "%0*llu", written at 'out' (room for
 * DECFMT_MAX bytes; no NUL added).  Returns the bytes written. */
static inline size_t dec_format(char *out, uint64_t v, int min)
{
    char num[DECFMT_MAX], *p = num + sizeof(num);

    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) || num + sizeof(num) - p < min);
    memcpy(out, p, (size_t)(num + sizeof(num) - p));
    return (size_t)(num + sizeof(num) - p);
}

#endif /* !DROVER_COMMON_DECFMT_H */
