/* SPDX-License-Identifier: Apache-2.0 */
/*
 * print_fields.c - Slurm's print_fields layout (print_fields.h)
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/print_fields.h"

static void cell(struct fmt_buf *out, enum pf_layout layout, const char *delim,
                 const char *v, int width, bool number, bool last)
{
    int w = abs(width);

    if (!v)
        v = "";
    if (layout != PF_COLUMNS) {
        fmt_buf_puts(out, v);
        if (!last || layout == PF_PARSABLE)
            fmt_buf_puts(out, delim ? delim : "|");
    } else if ((int)strlen(v) > w && !number) {
        fmt_buf_printf(out, "%.*s+ ", w - 1, v);
    } else {
        fmt_buf_printf(out, width < 0 ? "%-*s " : "%*s ", w, v);
    }
}

void pf_cell(struct fmt_buf *out, enum pf_layout layout, const char *delim,
             const char *v, int width, bool number, bool last)
{
    char *esc = fmt_escape(v);

    cell(out, layout, delim, esc ? esc : v, width, number, last);
    free(esc);
}

void pf_titles(struct fmt_buf *out, enum pf_layout layout, const char *delim,
               const char *const *titles, const int *widths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int w = abs(widths[i]);

        if (layout != PF_COLUMNS)
            pf_cell(out, layout, delim, titles[i], 0, true, i + 1 == n);
        else
            fmt_buf_printf(out, widths[i] < 0 ? "%-*.*s " : "%*.*s ", w, w,
                           titles[i]);
    }
    fmt_buf_puts(out, "\n");
    if (layout != PF_COLUMNS)
        return;
    for (size_t i = 0; i < n; i++) {
        for (int k = abs(widths[i]); k > 0; k--)
            fmt_buf_puts(out, "-");
        fmt_buf_puts(out, " ");
    }
    fmt_buf_puts(out, "\n");
}
