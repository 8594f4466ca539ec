/* SPDX-License-Identifier: Apache-2.0
 *
 * rowtable.h - a listing answer's rows, read without a tree of values
 *
 * A job_info request with "rows" gets each job as an array of values in
 * the order of the answer's "keys" (docs/protocol.md).  jansson would
 * make a json_t of every value, 270,000 allocations for 10,000 jobs of
 * squeue's 27 columns, and most of squeue's time.  Here one pass of
 * simdjson (rowtable_read.cc) fills a flat array of cells instead: an
 * integer, a number, a boolean, or a string (or an object or array, as
 * its JSON text) kept in one block of text.  Small answers are read with
 * jansson and moved into the same table (rowtable_load.c).
 *
 * Each row is also a record the forgiving reads of jsonget.h take
 * (jstr(), jint(), jset(), ...): its first member is a json_t header of
 * a type jansson does not have (ROW_TABLE_JSON_TYPE) and of the static
 * reference count jansson gives json_true(), so a row can sit in a
 * jansson array (json_array_append_new() and json_decref() leave it be)
 * and pass through the code that prints objects.  Every other jansson
 * call sees a value of no known type: json_object_get() finds nothing,
 * json_deep_copy() returns NULL (jcopy() copies a row).
 */
#ifndef DROVER_CMD_LIB_ROWTABLE_H
#define DROVER_CMD_LIB_ROWTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/error.h"
#include "proto/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The json_t type of a row: none of jansson's (JSON_OBJECT .. JSON_NULL). */
#define ROW_TABLE_JSON_TYPE 0x40

enum row_cell_type {
    ROW_NULL,  /* null, or no value */
    ROW_INT,   /* v.i */
    ROW_REAL,  /* v.d: a number that is not a 64-bit integer */
    ROW_BOOL,  /* v.i: 0 or 1 */
    ROW_STR,   /* v.s: NUL-terminated (a string with \u0000 is refused) */
    ROW_JSON,  /* v.s: an object or array as its JSON text */
};

/* A cell's value; its type is kept apart (one byte), so that a cell
 * takes 9 bytes of memory, not 16. */
union row_value {
    int64_t i;
    double d;
    const char *s;
};

/* A cell as row_table_cell() reads it. */
struct row_cell {
    enum row_cell_type type;
    union row_value v;
};

struct row_table;

/* Bytes of struct row_table_row's memo: which is whose (states.c). */
enum { ROW_MEMO_JOB_STATE, ROW_MEMO_BASE_STATE, ROW_MEMO };

/* One row: a record for jsonget.h's reads (see above). */
struct row_table_row {
    json_t hdr;               /* ROW_TABLE_JSON_TYPE, static refcount */
    struct row_table *table;
    uint8_t *types;           /* table->ncols cells: their types, */
    union row_value *vals;    /* and values */
    json_t **made;            /* jget()'s values, made on demand; NULL */
    /* Values the commands derive from the row and keep with it (states.c:
     * the job's states, read per row by the filters, the sort and
     * several printers): 0 until set; row_table_set() clears them. */
    uint8_t memo[ROW_MEMO];
};

/* Look-up slots for a key's column, by the key's address: ROW_LOOKUP (a
 * power of two) of them.  A key read from rows must be a text that does not change while
 * the table lives (a string literal, as the printers' are), for a key's
 * address stands for its text. */
#define ROW_LOOKUP 256 /* row_table_slot()'s 8 bits */

struct row_table {
    char **keys;                  /* the columns' names, ncols */
    size_t ncols;
    struct row_table_row *rows;   /* nrows, in the answer's order */
    size_t nrows;
    uint8_t *types;               /* nrows * ncols cells, row after row: */
    union row_value *vals;        /* their types and values */
    char *text;                   /* the strings and JSON texts, */
    size_t text_used, text_cap;   /* bytes used and allocated */
    struct row_table_row **added; /* rows made by row_table_copy_row() */
    size_t nadded;
    char **owned;                 /* texts row_table_set() copied */
    size_t nowned;
    const char *look_ptr[ROW_LOOKUP]; /* key address -> column */
    int look_col[ROW_LOOKUP];         /* -1: no such column */
    struct row_table *next;       /* an answer's part before (see
                                   * struct row_table_read) */
};

/* The row of record 'o', or NULL when 'o' is NULL or a jansson value. */
static inline struct row_table_row *row_table_row_of(const json_t *o)
{
    return o && (int)o->type == ROW_TABLE_JSON_TYPE ? (struct row_table_row *)o
                                                     : NULL;
}

/* The header of row 'i' of 't', as a record (borrowed from 't'). */
json_t *row_table_record(struct row_table *t, size_t i);

/* For the readers: the records of the t->nrows rows of 'row_len' cells
 * read into t->types and t->vals, made (t->rows) and listed in a new
 * jansson array (the caller's).  NULL without memory. */
json_t *row_table_records(struct row_table *t, size_t row_len);

/* The look-up slot of 'key' first tried: Fibonacci hashing of its
 * address (whose low bits are alignment) to 8 bits. */
static inline size_t row_table_slot(const char *key)
{
    return (size_t)(((uintptr_t)key * 0x9e3779b97f4a7c15ull) >> 56);
}

/* row_table_column() past its first slot (rowtable.c). */
int row_table_column_probe(struct row_table *t, const char *key, size_t h);

/* The column of 'key' (a text that does not change while 't' lives: see
 * ROW_LOOKUP) in 't', or -1.  Inline: squeue reads some 300,000 cells. */
static inline int row_table_column(struct row_table *t, const char *key)
{
    size_t h = row_table_slot(key);

    return t->look_ptr[h] == key ? t->look_col[h]
                                 : row_table_column_probe(t, key, h);
}

/* The cell of 'key' in 'row' into *c; false (*c untouched) when the
 * table has no such column. */
static inline bool row_table_cell(const struct row_table_row *row,
                                  const char *key, struct row_cell *c)
{
    int col = row_table_column(row->table, key);

    if (col < 0)
        return false;
    c->type = (enum row_cell_type)row->types[col];
    c->v = row->vals[col];
    return true;
}

/* The value of 'key' in 'row' as a jansson value made once and kept with
 * the table (borrowed); NULL when the cell is null or there is no such
 * column. */
json_t *row_table_value(struct row_table_row *row, const char *key);

/* Set 'key' of 'row' to 'v' (stolen; NULL or null: no value).  A key that
 * is no column is dropped, as in a row of fixed columns. */
void row_table_set(struct row_table_row *row, const char *key, json_t *v);

/* A copy of 'row' added to its table (freed with it).  Returns its
 * record. */
json_t *row_table_copy_row(const struct row_table_row *row);

/* Free 't' and every row, and the tables before it ('next'); NULL is a
 * no-op.  Records from them are invalid afterwards. */
void row_table_free(struct row_table *t);

/* Keep 'text' (malloc'ed; NULL: none) until 't' is freed.  Returns it. */
char *row_table_own(struct row_table *t, char *text);

/* For the readers.  Keep 's' ('n' bytes, no NUL among them) in t->text,
 * NUL-terminated, unless '*last' (a column's last string kept; NULL
 * 'last': no such) holds the same text: that is returned and kept once
 * (a listing repeats a partition, user, state and reason in every row:
 * less memory to touch, and equal texts compare by address).  NULL when
 * it does not fit in t->text_cap; a reader allocates the frame's length
 * and one byte, which a string unescaped or a value's own text fits. */
const char *row_table_keep(struct row_table *t, const char **last,
                           const char *s, size_t n);

/* For the readers: the columns from the body's "keys" (borrowed) for
 * 'nrows' rows of 'row_len' values: an array of strings, each once, as
 * many as a row's values when there are rows.  A body without "keys"
 * after a part (an answer in parts: only the first part names them) has
 * the columns of the part before, 'prev' (NULL: none).  0, or -1 with
 * errno EPROTO (or ENOMEM) and 'error' set. */
int row_table_keys(struct row_table *t, const json_t *keys,
                   const struct row_table *prev, size_t nrows,
                   size_t row_len, drv_error_t *error);

/* What the readers below are given and fill. */
struct row_table_read {
    const char *rows_key;     /* the body's member of rows ("jobs") */
    /* The tables of the frames whose member of rows was rows, the last
     * read first, the others by their 'next': an answer in parts
     * (proto/msg.h) is read a frame at a time, its later frames' rows
     * with the columns of the first.  NULL at first; the caller frees
     * it (row_table_free()) after the message. */
    struct row_table *table;
};

/* Answers of at least this many bytes are read with simdjson, from
 * ROW_TABLE_MODULE, loaded for the first of them; shorter ones with
 * jansson.  Loading the module, libsimdjson and libstdc++ costs about
 * 0.6 ms, what jansson takes to read about 40 KB (bench/README.md). */
#define ROW_TABLE_SIMD_MIN (64 * 1024)

/* The module of row_table_simd_read(): the one beside the running
 * command (the build tree) if there is one, else config.h's
 * DROVER_ROWS_MODULE (<libdir>/drover/, installed).  An absolute path:
 * a dlopen() by name would search the RUNPATH of its caller, which an
 * interposer such as ASan's changes. */
#define ROW_TABLE_MODULE "libdrover-rows.so"

/* A frame reader for proto_decoder_set_reader() (rowtable_load.c): one
 * frame's 'len' bytes of JSON at 'text' (with the decoder's slack of
 * readable bytes after them) read into a message whose body member
 * arg->rows_key, when it is an array of arrays, is a jansson array of the
 * records of a new table (stored in arg->table), and whose other members
 * are jansson values.  Answers of ROW_TABLE_SIMD_MIN bytes or more go to
 * row_table_simd_read() when its module loads, the others (and all, when
 * it does not) to row_table_jansson_read(); both give the same table.
 * Returns the message (a new reference), or NULL with errno EPROTO (not
 * JSON, not an object, a duplicate key, rows of different lengths or not
 * matching "keys", a column named twice) or ENOMEM and 'error' set. */
json_t *row_table_frame_reader(const char *text, size_t len, void *arg,
                               drv_error_t *error);

/* The two readers, as above (tests compare them). */
json_t *row_table_jansson_read(const char *text, size_t len, void *arg,
                               drv_error_t *error);
json_t *row_table_simd_read(const char *text, size_t len, void *arg,
                            drv_error_t *error);

#ifdef __cplusplus
}
#endif

#endif /* !DROVER_CMD_LIB_ROWTABLE_H */
