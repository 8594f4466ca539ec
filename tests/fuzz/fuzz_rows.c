/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_rows.c - a listing answer read as squeue reads it: the frame's
 * text through row_table_frame_reader() (simdjson, src/cmd/lib/rowtable.h),
 * then every column of every row read as each type, a row copied and
 * changed, as squeue -r does
 *
 * Invariant beyond "no crash, leak, UB or hang": the reader answers a
 * message, or NULL with errno EPROTO or ENOMEM.
 */
#include "fuzz.h"

#include <errno.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + PROTO_DECODER_SLACK);
    struct row_table_read read = {.rows_key = "jobs"};
    drv_error_t error = {{0}};
    json_t *msg;

    if (!text)
        abort();
    memcpy(text, data, size);
    memset(text + size, 0, PROTO_DECODER_SLACK);
    errno = 0;
    msg = row_table_frame_reader(text, size, &read, &error);
    FUZZ_ASSERT(msg || errno == EPROTO || errno == ENOMEM);
    FUZZ_ASSERT(msg || !read.table);
    if (read.table)
        read_rows(read.table);
    json_decref(msg);
    row_table_free(read.table);
    free(text);
    return 0;
}
