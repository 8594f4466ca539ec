/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_rows.c - a listing answer read as squeue reads it, by both of its
 * readers (src/cmd/lib/rowtable.h): jansson's, for small answers, and
 * simdjson's, for large ones.  Each table's every column of every row is
 * then read as each type, and rows copied and changed as squeue -r does.
 *
 * Invariants beyond "no crash, leak, UB or hang": each reader answers a
 * message, or NULL with errno EPROTO or ENOMEM; when both answer, their
 * tables hold the same cells and their messages the same other members.
 * An input with a NUL byte is two frames, the parts of one answer.
 */
#include "fuzz.h"

#include <errno.h>
#include <math.h>

#include <jansson.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/rowtable.h"
#include "proto/frame.h"

static void read_rows(struct row_table *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        json_t *row = row_table_record(t, i), *copy;

        for (size_t k = 0; k < t->ncols; k++) {
            const char *key = t->keys[k];
            const char *s = jstr(row, key);

            FUZZ_ASSERT(!s || strlen(s) < (size_t)-1);
            (void)jint(row, key, 0);
            (void)jbool(row, key, false);
            (void)jhas(row, key);
            (void)jget(row, key);
        }
        if (i < 4 && t->ncols) {
            int64_t before = jint(row, t->keys[0], -7);
            const char *text = jstr(row, t->keys[0]);

            copy = jcopy(row);
            jset(copy, t->keys[0], json_integer((json_int_t)i));
            FUZZ_ASSERT(jint(copy, t->keys[0], -1) == (int64_t)i);
            /* the copy's change leaves the row as it was */
            FUZZ_ASSERT(jint(row, t->keys[0], -7) == before
                        && jstr(row, t->keys[0]) == text);
            jset(copy, t->keys[t->ncols - 1], NULL);
            FUZZ_ASSERT(!jhas(copy, t->keys[t->ncols - 1]));
            jset(copy, "a key that may be no column", json_string("x"));
        }
    }
}

/* Two JSON texts of equal values (the readers keep an object's text as
 * simdjson saw it or as jansson writes it). */
static bool same_json(const char *a, const char *b)
{
    json_t *x = json_loads(a, JSON_DECODE_ANY, NULL);
    json_t *y = json_loads(b, JSON_DECODE_ANY, NULL);
    bool same = (!x && !y) || (x && y && json_equal(x, y));

    json_decref(x);
    json_decref(y);
    return same;
}

static void same_tables(const struct row_table *a, const struct row_table *b)
{
    FUZZ_ASSERT(a->nrows == b->nrows && a->ncols == b->ncols);
    for (size_t k = 0; k < a->ncols; k++)
        FUZZ_ASSERT(!strcmp(a->keys[k], b->keys[k]));
    for (size_t i = 0; i < a->nrows * a->ncols; i++) {
        union row_value x = a->vals[i], y = b->vals[i];

        FUZZ_ASSERT(a->types[i] == b->types[i]);
        switch (a->types[i]) {
        case ROW_INT:
        case ROW_BOOL:
            FUZZ_ASSERT(x.i == y.i);
            break;
        case ROW_REAL:
            FUZZ_ASSERT(x.d == y.d || (isnan(x.d) && isnan(y.d)));
            break;
        case ROW_STR:
            FUZZ_ASSERT(!strcmp(x.s, y.s));
            break;
        case ROW_JSON:
            FUZZ_ASSERT(same_json(x.s, y.s));
            break;
        default:
            break;
        }
    }
}

static json_t *read_with(proto_frame_reader_f reader, const uint8_t *data,
                         size_t size, struct row_table_read *read)
{
    char *text = malloc(size + PROTO_DECODER_SLACK);
    struct row_table *before = read->table;
    drv_error_t error = {{0}};
    json_t *msg;

    if (!text)
        abort();
    memcpy(text, data, size);
    memset(text + size, 0, PROTO_DECODER_SLACK);
    errno = 0;
    msg = reader(text, size, read, &error);
    FUZZ_ASSERT(msg || errno == EPROTO || errno == ENOMEM);
    /* a frame refused adds no table; one read adds one, or none */
    FUZZ_ASSERT(msg ? read->table == before || read->table->next == before
                    : read->table == before);
    free(text);
    return msg;
}

/* One frame read by both readers, each after the frames before it (an
 * answer in parts: a later one may take the columns of the one before). */
static void read_frame(const uint8_t *data, size_t size,
                       struct row_table_read *sr, struct row_table_read *jr)
{
    struct row_table *sbefore = sr->table, *jbefore = jr->table;
    json_t *sm = read_with(row_table_simd_read, data, size, sr);
    json_t *jm = read_with(row_table_jansson_read, data, size, jr);

    if (sm && jm) {
        json_t *sb = json_object_get(sm, "body");
        json_t *jb = json_object_get(jm, "body");
        bool snew = sr->table != sbefore, jnew = jr->table != jbefore;

        FUZZ_ASSERT(snew == jnew);
        if (snew && jnew) {
            same_tables(sr->table, jr->table);
            /* the rows compared, the rest of the message must agree */
            json_object_del(sb, "jobs");
            json_object_del(jb, "jobs");
        }
        FUZZ_ASSERT(json_equal(sm, jm));
    }
    json_decref(sm);
    json_decref(jm);
}

/* The input is one frame, or two parted by its first NUL byte (which no
 * frame of JSON holds): the second read after the first, as the parts of
 * an answer are. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct row_table_read sr = {.rows_key = "jobs"};
    struct row_table_read jr = {.rows_key = "jobs"};
    const uint8_t *cut = memchr(data, 0, size);
    size_t first = cut ? (size_t)(cut - data) : size;

    read_frame(data, first, &sr, &jr);
    if (cut)
        read_frame(cut + 1, size - first - 1, &sr, &jr);
    for (struct row_table *t = sr.table; t; t = t->next)
        read_rows(t);
    for (struct row_table *t = jr.table; t; t = t->next)
        read_rows(t);
    row_table_free(sr.table);
    row_table_free(jr.table);
    return 0;
}
