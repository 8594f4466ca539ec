/* SPDX-License-Identifier: Apache-2.0
 *
 * rowtable.c - a listing answer's rows: columns, cells and their records
 *
 * The reading itself is rowtable_load.c (jansson, and the choice of
 * reader) and rowtable_read.cc (simdjson); this is what the commands do
 * with the rows once read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/rowtable.h"
#include "common/xalloc.h"

json_t *row_table_record(struct row_table *t, size_t i)
{
    return &t->rows[i].hdr;
}

json_t *row_table_records(struct row_table *t, size_t row_len)
{
    json_t *list = json_array();

    if (!list
        || !(t->rows = calloc(t->nrows + 1, sizeof(*t->rows)))) {
        json_decref(list);
        return NULL;
    }
    for (size_t i = 0; i < t->nrows; i++) {
        struct row_table_row *row = &t->rows[i];

        row->hdr.type = (json_type)ROW_TABLE_JSON_TYPE;
        row->hdr.refcount = (size_t)-1; /* jansson's static values' */
        row->table = t;
        /* rows of no value leave the cells unallocated */
        row->types = t->types ? t->types + i * row_len : NULL;
        row->vals = t->vals ? t->vals + i * row_len : NULL;
        if (json_array_append_new(list, &row->hdr) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static int column_search(const struct row_table *t, const char *key)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->keys[i], key))
            return (int)i;
    return -1;
}

int row_table_column_probe(struct row_table *t, const char *key, size_t h)
{
    /* the slots after the first in turn: a key keeps its slot for the
     * table's life */
    for (size_t k = 0; k < ROW_LOOKUP; k++) {
        size_t i = (h + k) & (ROW_LOOKUP - 1);

        if (t->look_ptr[i] == key)
            return t->look_col[i];
        if (!t->look_ptr[i]) {
            t->look_ptr[i] = key;
            return t->look_col[i] = column_search(t, key);
        }
    }
    return column_search(t, key); /* every slot taken */
}

static json_t *cell_value(enum row_cell_type type, union row_value v)
{
    switch (type) {
    case ROW_INT:
        return json_integer((json_int_t)v.i);
    case ROW_REAL:
        return json_real(v.d);
    case ROW_BOOL:
        return json_boolean(v.i);
    case ROW_STR:
        return json_string(v.s);
    case ROW_JSON:
        return json_loads(v.s, 0, NULL);
    default:
        return NULL;
    }
}

json_t *row_table_value(struct row_table_row *row, const char *key)
{
    int col = row_table_column(row->table, key);

    if (col < 0 || row->types[col] == ROW_NULL)
        return NULL;
    if (!row->made)
        row->made = xzalloc(row->table->ncols * sizeof(*row->made));
    if (!row->made[col])
        row->made[col] = cell_value((enum row_cell_type)row->types[col],
                                    row->vals[col]);
    return row->made[col];
}

char *row_table_own(struct row_table *t, char *text)
{
    if (!text)
        return NULL;
    t->owned = xrealloc(t->owned, (t->nowned + 1) * sizeof(*t->owned));
    t->owned[t->nowned++] = text;
    return text;
}

const char *row_table_keep(struct row_table *t, const char **last,
                           const char *s, size_t n)
{
    char *p;

    if (last && *last && !strncmp(*last, s, n) && (*last)[n] == '\0')
        return *last;
    if (n >= t->text_cap - t->text_used)
        return NULL;
    p = t->text + t->text_used;
    memcpy(p, s, n);
    p[n] = '\0';
    t->text_used += n + 1;
    if (last)
        *last = p;
    return p;
}

/* A frame's rows refused: -1 with errno EPROTO and 'error' saying why. */
static int refused(drv_error_t *error, const char *why)
{
    errno = EPROTO;
    return errprintf(error, "frame %s", why);
}

/* The columns of 'prev' for 't'. */
static int keys_of(struct row_table *t, const struct row_table *prev,
                   size_t nrows, size_t row_len, drv_error_t *error)
{
    if (nrows && prev->ncols != row_len)
        return refused(error, "has rows that do not match the \"keys\" "
                              "of the part before");
    t->keys = xzalloc((prev->ncols + 1) * sizeof(*t->keys));
    for (size_t i = 0; i < prev->ncols; i++)
        t->keys[t->ncols++] = xstrdup(prev->keys[i]);
    return 0;
}

int row_table_keys(struct row_table *t, const json_t *keys,
                   const struct row_table *prev, size_t nrows,
                   size_t row_len, drv_error_t *error)
{
    size_t n = json_array_size(keys);

    if (!keys && prev)
        return keys_of(t, prev, nrows, row_len, error);
    if (!json_is_array(keys) || (nrows && n != row_len))
        return refused(error, "has rows that do not match its \"keys\"");
    t->keys = xzalloc((n + 1) * sizeof(*t->keys));
    for (size_t i = 0; i < n; i++) {
        const char *k = json_string_value(json_array_get(keys, i));

        if (!k)
            return refused(error, "has a key that is not a string");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->keys[j], k))
                return refused(error, "names a column twice in its "
                                      "\"keys\"");
        t->keys[t->ncols++] = xstrdup(k);
    }
    return 0;
}

/* 'v' (borrowed) as a cell whose texts 't' keeps. */
static struct row_cell to_cell(struct row_table *t, const json_t *v)
{
    struct row_cell c = {.type = ROW_NULL};
    char *text;

    switch (json_typeof(v)) {
    case JSON_INTEGER:
        c.type = ROW_INT;
        c.v.i = (int64_t)json_integer_value(v);
        break;
    case JSON_REAL:
        c.type = ROW_REAL;
        c.v.d = json_real_value(v);
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        c.type = ROW_BOOL;
        c.v.i = json_is_true(v);
        break;
    case JSON_STRING:
        c.type = ROW_STR;
        c.v.s = row_table_own(t, xstrdup(json_string_value(v)));
        break;
    case JSON_OBJECT:
    case JSON_ARRAY:
        if ((text = json_dumps(v, JSON_COMPACT))) {
            c.type = ROW_JSON;
            c.v.s = row_table_own(t, text);
        }
        break;
    default:
        break;
    }
    return c;
}

void row_table_set(struct row_table_row *row, const char *key, json_t *v)
{
    int col = row_table_column(row->table, key);
    struct row_cell c = {.type = ROW_NULL};

    memset(row->memo, 0, sizeof(row->memo));
    if (col >= 0) {
        if (v)
            c = to_cell(row->table, v);
        row->types[col] = (uint8_t)c.type;
        row->vals[col] = c.v;
        if (row->made) {
            json_decref(row->made[col]);
            row->made[col] = NULL;
        }
    }
    json_decref(v);
}

json_t *row_table_copy_row(const struct row_table_row *row)
{
    struct row_table *t = row->table;
    struct row_table_row *copy = xzalloc(sizeof(*copy));
    size_t ncells = t->ncols ? t->ncols : 1;

    copy->hdr = row->hdr;
    copy->table = t;
    copy->types = xzalloc(ncells * sizeof(*copy->types));
    copy->vals = xzalloc(ncells * sizeof(*copy->vals));
    memcpy(copy->types, row->types, t->ncols * sizeof(*copy->types));
    memcpy(copy->vals, row->vals, t->ncols * sizeof(*copy->vals));
    t->added = xrealloc(t->added, (t->nadded + 1) * sizeof(*t->added));
    t->added[t->nadded++] = copy;
    return &copy->hdr;
}

static void row_release(struct row_table_row *row, size_t ncols)
{
    if (row->made)
        for (size_t i = 0; i < ncols; i++)
            json_decref(row->made[i]);
    free(row->made);
}

static void table_free(struct row_table *t);

void row_table_free(struct row_table *t)
{
    while (t) {
        struct row_table *next = t->next;

        table_free(t);
        t = next;
    }
}

static void table_free(struct row_table *t)
{
    /* a read that failed half way counted rows it made no records for */
    for (size_t i = 0; t->rows && i < t->nrows; i++)
        row_release(&t->rows[i], t->ncols);
    for (size_t i = 0; i < t->nadded; i++) {
        row_release(t->added[i], t->ncols);
        free(t->added[i]->types);
        free(t->added[i]->vals);
        free(t->added[i]);
    }
    for (size_t i = 0; i < t->nowned; i++)
        free(t->owned[i]);
    for (size_t i = 0; i < t->ncols; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->rows);
    free(t->types);
    free(t->vals);
    free(t->text);
    free(t->added);
    free(t->owned);
    free(t);
}
