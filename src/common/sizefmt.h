/* SPDX-License-Identifier: Apache-2.0
 *
 * sizefmt.h - Slurm's memory sizes: "16G", "512M", "1T", "4096" (MiB)
 */
#ifndef DROVER_COMMON_SIZEFMT_H
#define DROVER_COMMON_SIZEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Parse a memory size into MiB as sbatch --mem does: a plain number is MiB;
 * suffixes K, M, G, T (case-insensitive, optional trailing "B") scale by
 * 1024; K rounds up to whole MiB.  Stores MiB in *mib.
 * Returns 0, or -1 with errno=EINVAL (bad text; 'error' names it) or
 * ERANGE (overflow).
 */
int sizefmt_parse_mib(const char *s, uint64_t *mib, drv_error_t *error);

/* Format MiB as Slurm's TRES strings do: "4000M", "16G" (exact multiples of
 * 1024 use the larger unit), "1T".  Returns buf.
 */
char *sizefmt_mib(uint64_t mib, char *buf, size_t size);

#endif /* !DROVER_COMMON_SIZEFMT_H */
