/* SPDX-License-Identifier: Apache-2.0
 *
 * format.h - table-driven output formats for squeue and sinfo
 *
 * A command describes its columns once, in a table of fields: the -o letter,
 * the -O name, the header and a printer (squeue's print.c shape).  -o, -O
 * and SQUEUE_FORMAT all resolve through the same table.  Widths and
 * truncation follow Slurm's _print_str(): "%.10i" right-justifies in 10
 * columns, "%10i" left-justifies, a value longer than its width is cut to
 * the width (except where a field says FMT_NOCUT), and no width means the
 * value as it is.
 */
#ifndef DROVER_CMD_LIB_FORMAT_H
#define DROVER_CMD_LIB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A growing string.  Zero-initialise; free s with free(). */
struct fmt_buf {
    char *s;
    size_t len;
    size_t cap;
};

void fmt_buf_puts(struct fmt_buf *b, const char *s);
/* 'n' bytes of 's'. */
void fmt_buf_putn(struct fmt_buf *b, const char *s, size_t n);
/* 'v' in decimal, as printf's "%lld" / "%llu" (no format parsed). */
void fmt_buf_puti(struct fmt_buf *b, long long v);
void fmt_buf_putu(struct fmt_buf *b, unsigned long long v);
void fmt_buf_printf(struct fmt_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Empty the buffer, keeping its storage. */
void fmt_buf_reset(struct fmt_buf *b);
/* The text so far ("" when nothing was written).  Borrowed. */
const char *fmt_buf_str(const struct fmt_buf *b);

/* Writes the value of one field of 'rec' into 'out'.  'ctx' is the
 * command's context (the response's "now", the partitions...).
 */
typedef void (*fmt_print_f)(struct fmt_buf *out, const void *rec,
                            const void *ctx);

enum fmt_flags {
    FMT_NOCUT = 1,        /* right-justified values are not cut to width */
    FMT_HEADER_NOCUT = 2, /* nor is the header */
};

struct fmt_field {
    char letter;        /* -o letter, 0 when the field has none */
    const char *name;   /* -O name (case-insensitive), NULL when none */
    const char *header; /* column title */
    fmt_print_f print;
    int flags;          /* enum fmt_flags */
};

/* One column of a parsed format. */
struct fmt_item {
    const struct fmt_field *field;
    int width;    /* 0: the value as it is */
    bool right;   /* '.' given: right-justify */
    char *suffix; /* literal text after the field, "" when none */
};

struct fmt_spec {
    char *prefix; /* literal text before the first field, "" when none */
    struct fmt_item *items;
    size_t count;
    char bad;     /* first unknown -o letter (0: none); it was skipped */
    char *bad_name; /* first unknown -O name (NULL: none); it was skipped */
};

/* Parse an -o format such as "%.18i %.9P %8j%%x".  A field is
 * '%' ['.'] ['-'] [width] letter; text up to the next '%' is its suffix.
 * Unknown letters are skipped and the first is recorded in 'bad', as squeue
 * does (it reports and goes on).  Table ends with a row whose header is
 * NULL.  Returns a new spec (free with fmt_spec_destroy()); never NULL.
 */
struct fmt_spec *fmt_parse(const char *format, const struct fmt_field *table);

/* Parse an -O format: comma-separated names, each optionally ":[.]width",
 * e.g. "JobID:10,Name:.30,State".  Names match case-insensitively; width
 * defaults to 'default_width' (Slurm: 20).  Unknown names are skipped and
 * the first is recorded in 'bad_name'.
 */
struct fmt_spec *fmt_parse_long(const char *format,
                                const struct fmt_field *table,
                                int default_width);

/* NULL is a no-op. */
void fmt_spec_destroy(struct fmt_spec *spec);

/* Append 'value' to 'out' in 'width' columns as Slurm's _print_str() does
 * (cut: truncate right-justified text too).  Control characters are
 * written escaped (fmt_escape()), so a value is never more than one line.
 */
void fmt_pad(struct fmt_buf *out, const char *value, int width, bool right,
             bool cut);

/* 's' with its control characters escaped as C does ("\n", "\t", "\r",
 * "\x1b"), so that one value prints on one line and cannot move the
 * cursor; NULL when 's' (may be NULL) has none.  Caller frees.
 */
char *fmt_escape(const char *s);

/* The header line, without newline.  Caller frees. */
char *fmt_header(const struct fmt_spec *spec);

/* One record's line, without newline.  Caller frees. */
char *fmt_row(const struct fmt_spec *spec, const void *rec, const void *ctx);

/* As fmt_row(), appended to 'out' with a newline; 'scratch' is a buffer
 * for each value that the caller keeps from row to row (and frees), so
 * that a listing of many records allocates nothing per line. */
void fmt_row_append(const struct fmt_spec *spec, const void *rec,
                    const void *ctx, struct fmt_buf *out,
                    struct fmt_buf *scratch);

/* Look up a field by -o letter or -O name; NULL when none. */
const struct fmt_field *fmt_field_by_letter(const struct fmt_field *table,
                                            char letter);
const struct fmt_field *fmt_field_by_name(const struct fmt_field *table,
                                          const char *name, size_t len);

#endif /* !DROVER_CMD_LIB_FORMAT_H */
