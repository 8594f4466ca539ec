/* SPDX-License-Identifier: Apache-2.0
 *
 * rowtable_load.c - which reader reads a listing answer into a table
 *
 * A small answer is read with jansson and its rows moved into a table; a
 * large one with simdjson (rowtable_read.cc), from a module loaded the
 * first time one comes, so that a command asking for a few jobs loads
 * neither libstdc++ nor libsimdjson.  Both give the same table
 * (test_squeue_fields and fuzz_rows compare them).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#include "cmd/lib/rowtable.h"
#include "common/selfpath.h"
#include "common/xalloc.h"

/* --- the jansson path -------------------------------------------------- */

/* 'v' (borrowed) as cell 'i' of 't', of column 'last' (its last string
 * kept: see row_table_keep()).  -1 when a text does not fit (it always
 * does) or without memory. */
static int put_cell(struct row_table *t, size_t i, const json_t *v,
                    const char **last)
{
    t->vals[i].i = 0;
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        t->types[i] = ROW_INT;
        t->vals[i].i = (int64_t)json_integer_value(v);
        return 0;
    case JSON_REAL:
        t->types[i] = ROW_REAL;
        t->vals[i].d = json_real_value(v);
        return 0;
    case JSON_TRUE:
    case JSON_FALSE:
        t->types[i] = ROW_BOOL;
        t->vals[i].i = json_is_true(v);
        return 0;
    case JSON_STRING:
        t->types[i] = ROW_STR;
        t->vals[i].s = row_table_keep(t, last, json_string_value(v),
                                      json_string_length(v));
        return t->vals[i].s ? 0 : -1;
    case JSON_OBJECT:
    case JSON_ARRAY:
        t->types[i] = ROW_JSON;
        t->vals[i].s = row_table_own(t, json_dumps(v, JSON_COMPACT));
        return t->vals[i].s ? 0 : -1;
    default:
        t->types[i] = ROW_NULL;
        return 0;
    }
}

/* The rows of 'rows' (an array of arrays, 'len' the frame's bytes) into
 * a new table; NULL with 'error' set. */
static struct row_table *rows_to_table(const json_t *rows, const json_t *keys,
                                       const struct row_table *prev,
                                       size_t len, drv_error_t *error)
{
    struct row_table *t = xzalloc(sizeof(*t));
    size_t nrows = json_array_size(rows);
    size_t ncols = json_array_size(json_array_get(rows, 0));
    const char **last = xzalloc((ncols + 1) * sizeof(*last));
    const json_t *row;
    size_t r;

    if (row_table_keys(t, keys, prev, nrows, ncols, error) < 0)
        goto fail;
    t->text = xzalloc(len + 1);
    t->text_cap = len + 1;
    t->types = xzalloc(nrows * ncols + 1);
    t->vals = xzalloc((nrows * ncols + 1) * sizeof(*t->vals));
    json_array_foreach(rows, r, row) {
        if (!json_is_array(row) || json_array_size(row) != ncols) {
            errno = EPROTO;
            errprintf(error, "frame has rows of different lengths");
            goto fail;
        }
        for (size_t c = 0; c < ncols; c++)
            if (put_cell(t, r * ncols + c, json_array_get(row, c), &last[c])
                < 0) {
                errno = ENOMEM;
                errprintf(error, "out of memory reading a frame");
                goto fail;
            }
    }
    t->nrows = nrows;
    free(last);
    return t;
fail:
    free(last);
    row_table_free(t);
    return NULL;
}

json_t *row_table_jansson_read(const char *text, size_t len, void *arg,
                               drv_error_t *error)
{
    struct row_table_read *out = arg;
    struct row_table *t;
    json_error_t jerr;
    json_t *msg, *body, *rows, *list;

    if (!(msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr))) {
        errno = json_error_code(&jerr) == json_error_out_of_memory ? ENOMEM
                                                                   : EPROTO;
        errprintf(error, "frame is not valid JSON: %s", jerr.text);
        return NULL;
    }
    if (!json_is_object(msg)) {
        json_decref(msg);
        errno = EPROTO;
        errprintf(error, "frame is not a JSON object");
        return NULL;
    }
    body = json_object_get(msg, "body");
    rows = json_object_get(body, out->rows_key);
    /* rows only when the first is an array: an older controller's
     * objects stay jansson's */
    if (!json_is_object(body) || !json_is_array(rows)
        || (json_array_size(rows) && !json_is_array(json_array_get(rows, 0))))
        return msg;
    if (!(t = rows_to_table(rows, json_object_get(body, "keys"), out->table,
                            len, error))) {
        json_decref(msg);
        return NULL;
    }
    if (!(list = row_table_records(t, t->ncols))) {
        errno = ENOMEM;
        errprintf(error, "out of memory reading a frame");
        row_table_free(t);
        json_decref(msg);
        return NULL;
    }
    t->next = out->table;
    out->table = t;
    json_object_set_new(body, out->rows_key, list);
    return msg;
}

/* --- which one --------------------------------------------------------- */

/* How the module is opened.  Lazily: libstdc++'s functions are bound as
 * they are first called, not all at once (0.7 -> 0.55 ms for the load;
 * libsimdjson binds its own at once, BIND_NOW).  The module is linked
 * with every symbol defined (--no-undefined, src/cmd/meson.build), so no
 * call can fail to bind. */
#define MODULE_OPEN (RTLD_LAZY | RTLD_LOCAL)

/* ROW_TABLE_MODULE beside the running command, or NULL. */
static void *open_beside(void)
{
    char *path = self_sibling(ROW_TABLE_MODULE);
    void *lib = path && access(path, R_OK) == 0 ? dlopen(path, MODULE_OPEN)
                                                : NULL;

    free(path);
    return lib;
}

/* simdjson's reader from ROW_TABLE_MODULE, loaded once; NULL when it
 * cannot be (the jansson path reads every answer then). */
static proto_frame_reader_f simd_reader(void)
{
    static bool tried;
    static proto_frame_reader_f fn;
    void *lib;

    if (!tried) {
        tried = true;
        if ((lib = open_beside())
            || (lib = dlopen(DROVER_ROWS_MODULE, MODULE_OPEN)))
            *(void **)&fn = dlsym(lib, "row_table_simd_read");
    }
    return fn;
}

json_t *row_table_frame_reader(const char *text, size_t len, void *arg,
                               drv_error_t *error)
{
    proto_frame_reader_f simd;

    if (len >= ROW_TABLE_SIMD_MIN && (simd = simd_reader()))
        return simd(text, len, arg, error);
    return row_table_jansson_read(text, len, arg, error);
}
