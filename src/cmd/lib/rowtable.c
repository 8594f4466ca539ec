/* SPDX-License-Identifier: Apache-2.0
 *
 * rowtable.c - a listing answer's rows: columns, cells and their records
 *
 * The reading itself is rowtable_read.cc (simdjson); this is what the
 * commands do with the rows once read, in C.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/rowtable.h"
#include "common/xalloc.h"

json_t *row_table_record(struct row_table *t, size_t i)
{
    return &t->rows[i].hdr;
}

static int column_search(const struct row_table *t, const char *key)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->keys[i], key))
            return (int)i;
    return -1;
}

int row_table_column(struct row_table *t, const char *key)
{
    /* Fibonacci hashing of the address (its low bits are alignment), then
     * the next slots in turn: a key keeps its slot for the table's life */
    size_t h = (size_t)(((uintptr_t)key * 0x9e3779b97f4a7c15ull) >> 56);

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

const struct row_cell *row_table_cell(const struct row_table_row *row,
                                      const char *key)
{
    int col = row_table_column(row->table, key);

    return col < 0 ? NULL : &row->cells[col];
}

static json_t *cell_value(const struct row_cell *c)
{
    switch (c->type) {
    case ROW_INT:
        return json_integer((json_int_t)c->v.i);
    case ROW_REAL:
        return json_real(c->v.d);
    case ROW_BOOL:
        return json_boolean(c->v.i);
    case ROW_STR:
        return json_stringn(c->v.s, c->len);
    case ROW_JSON:
        return json_loadb(c->v.s, c->len, 0, NULL);
    default:
        return NULL;
    }
}

json_t *row_table_value(struct row_table_row *row, const char *key)
{
    int col = row_table_column(row->table, key);

    if (col < 0 || row->cells[col].type == ROW_NULL)
        return NULL;
    if (!row->made)
        row->made = xzalloc(row->table->ncols * sizeof(*row->made));
    if (!row->made[col])
        row->made[col] = cell_value(&row->cells[col]);
    return row->made[col];
}

/* Keep 'text' (malloc'ed) until the table is freed; returns it. */
static char *own(struct row_table *t, char *text)
{
    t->owned = xrealloc(t->owned, (t->nowned + 1) * sizeof(*t->owned));
    t->owned[t->nowned++] = text;
    return text;
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
        c.len = (uint32_t)json_string_length(v);
        text = own(t, xzalloc(c.len + 1));
        memcpy(text, json_string_value(v), c.len + 1);
        c.v.s = text;
        break;
    case JSON_OBJECT:
    case JSON_ARRAY:
        if ((text = json_dumps(v, JSON_COMPACT))) {
            c.type = ROW_JSON;
            c.len = (uint32_t)strlen(text);
            c.v.s = own(t, text);
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

    if (col >= 0) {
        row->cells[col] = v ? to_cell(row->table, v)
                            : (struct row_cell){.type = ROW_NULL};
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
    copy->cells = xzalloc(ncells * sizeof(*copy->cells));
    memcpy(copy->cells, row->cells, t->ncols * sizeof(*copy->cells));
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

void row_table_free(struct row_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows; i++)
        row_release(&t->rows[i], t->ncols);
    for (size_t i = 0; i < t->nadded; i++) {
        row_release(t->added[i], t->ncols);
        free(t->added[i]->cells);
        free(t->added[i]);
    }
    for (size_t i = 0; i < t->nowned; i++)
        free(t->owned[i]);
    for (size_t i = 0; i < t->ncols; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->rows);
    free(t->cells);
    free(t->text);
    free(t->added);
    free(t->owned);
    free(t);
}
