/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonw.h - JSON text written straight into a growing buffer
 *
 * A listing of 10,000 jobs built as jansson objects costs an allocation
 * per key and value and a second walk to serialize them; written with
 * jsonw it is one buffer fill (docs/architecture.md, "Listings").  The
 * writer inserts the commas itself: open, key, value, close in order.
 * It does not check nesting: a caller that closes what it did not open
 * writes bad JSON, which the peer's decoder refuses.
 *
 * Out of memory sticks: every later call is a no-op and jsonw_take()
 * returns NULL with errno ENOMEM, so a caller checks once, at the end.
 *
 * struct jsonw_sink lets one piece of code fill either a jansson object
 * or a writer, so a record's fields are described once for both.
 */
#ifndef DROVER_PROTO_JSONW_H
#define DROVER_PROTO_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct jsonw {
    char *buf;
    size_t len, cap; /* bytes */
    bool comma;      /* the next key or value needs a comma before it */
    bool failed;     /* out of memory: nothing more is written */
};

/* An empty writer whose first 'reserve' bytes are left for the caller (a
 * frame header and envelope: proto_respond_raw()); they count in 'len'.
 * Allocates nothing until the first write.
 */
void jsonw_init(struct jsonw *w, size_t reserve);

/* Free the buffer; the writer can be initialized again. */
void jsonw_release(struct jsonw *w);

/* '{' '}' '[' ']'. */
void jsonw_obj_open(struct jsonw *w);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w);
void jsonw_arr_close(struct jsonw *w);

/* The key of the next member ('key' is escaped as any string). */
void jsonw_key(struct jsonw *w, const char *key);

/* Values.  jsonw_str() escapes as JSON requires ('"', '\\', bytes below
 * 0x20); NULL writes null.  Bytes from 0x80 pass unchanged: strings the
 * daemons hold came in as JSON, so they are UTF-8 already.
 */
void jsonw_str(struct jsonw *w, const char *s);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);

/* 'n' bytes of text as they are, with no separator: the caller's own
 * framing around a body. */
void jsonw_raw(struct jsonw *w, const char *text, size_t n);

/* A jansson value (borrowed), serialized compactly. */
void jsonw_json(struct jsonw *w, const json_t *v);

/* Each member of object 'obj' (borrowed) as a member of the object being
 * written. */
void jsonw_members(struct jsonw *w, const json_t *obj);

/* Take the text: *len gets its length in bytes (the reserved bytes
 * included); the caller frees the buffer.  The writer is left empty.
 * Returns NULL with errno ENOMEM if any write ran out of memory.
 */
char *jsonw_take(struct jsonw *w, size_t *len);

/* A record written as a row of values: the columns are fixed keys, and a
 * record's members come by key (in any order; a key that is not a column
 * is dropped) and are written as one array, null where a record has no
 * value.  Listings of many records (job_info "rows") are read without a
 * hash table per record.  Members that come in column order (a plan's
 * fields do) go straight to the writer; from the first that comes out of
 * order or again, the row is collected in 'vals' and written whole.
 */
struct jsonw_row {
    const char *const *keys; /* the columns (borrowed) */
    size_t ncols;
    size_t *off, *len;       /* each column's value: in 'out' while
                              * written straight, else in 'vals'; len 0:
                              * none */
    struct jsonw vals;       /* a collected row's values */
    size_t guess;            /* the column after the last one put: records
                              * put their members in the same order */
    size_t open;             /* the column whose value is being written */
    struct jsonw *out;       /* the writer of jsonw_row_begin() */
    size_t start;            /* out->len when the row began */
    bool comma_before;       /* out->comma then */
    size_t next;             /* columns before it are written to 'out' */
    bool started;            /* the row's '[' is written */
    bool collected;          /* the row is collected in 'vals' */
};

/* Columns 'keys[0..n)' (borrowed: they must outlive the row). */
void jsonw_row_init(struct jsonw_row *r, const char *const *keys, size_t n);
void jsonw_row_release(struct jsonw_row *r);
/* Start a record, every column empty, to be written to 'w' as
 * [v0,v1,...] (a value of what 'w' writes).  Nothing else may be written
 * to 'w' until jsonw_row_write(). */
void jsonw_row_begin(struct jsonw_row *r, struct jsonw *w);
/* Finish the record: its columns not put are null.  'w' is the writer of
 * jsonw_row_begin(). */
void jsonw_row_write(struct jsonw_row *r, struct jsonw *w);

/* Where a record's members go: the object 'obj' when it is not NULL, the
 * row 'row' when it is not NULL, else the writer 'w' (inside an object it
 * opened). */
struct jsonw_sink {
    json_t *obj;
    struct jsonw *w;
    struct jsonw_row *row;
};

void jsonw_put_int(const struct jsonw_sink *s, const char *key, int64_t v);
void jsonw_put_bool(const struct jsonw_sink *s, const char *key, bool v);
/* NULL 'v' writes nothing. */
void jsonw_put_str(const struct jsonw_sink *s, const char *key,
                   const char *v);
/* Steals 'v'; NULL writes nothing. */
void jsonw_put_json(const struct jsonw_sink *s, const char *key, json_t *v);

/* Each member of object 'members' (stolen; NULL writes nothing), for
 * groups of keys a module writes into a jansson object. */
void jsonw_put_members(const struct jsonw_sink *s, json_t *members);

#endif /* !DROVER_PROTO_JSONW_H */
