/* SPDX-License-Identifier: Apache-2.0
 *
 * print_fields.h - Slurm's print_fields layout, shared by sacct, sacctmgr
 * and sreport (Slurm's own commands share src/common/print_fields.c)
 *
 * Columns: each value in its width (right-justified, left when the width
 * is negative), cut to width-1 characters plus '+' when longer (numbers
 * are never cut), then one space; the titles above a rule of dashes.
 * -p: each value followed by the delimiter; -P: the same but not after
 * the last column.
 */
#ifndef DROVER_CMD_LIB_PRINT_FIELDS_H
#define DROVER_CMD_LIB_PRINT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/lib/format.h"

enum pf_layout {
    PF_COLUMNS = 0,   /* fixed-width columns under a dashed rule */
    PF_PARSABLE = 1,  /* -p: "a|b|" */
    PF_PARSABLE2 = 2, /* -P: "a|b" */
};

/* One value 'v' (NULL: empty) of a column 'width' characters wide, the
 * 'last' of its line.  'delim' separates parsable values (NULL: "|").
 * 'number': never cut.  Control characters are written escaped
 * (fmt_escape()): one value never makes two lines.
 */
void pf_cell(struct fmt_buf *out, enum pf_layout layout, const char *delim,
             const char *v, int width, bool number, bool last);

/* The title line of 'n' columns (titles[i] in widths[i]), and under
 * PF_COLUMNS the rule of dashes.  Titles are cut to the width, without
 * '+'.
 */
void pf_titles(struct fmt_buf *out, enum pf_layout layout, const char *delim,
               const char *const *titles, const int *widths, size_t n);

#endif /* !DROVER_CMD_LIB_PRINT_FIELDS_H */
