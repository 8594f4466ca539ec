/* SPDX-License-Identifier: Apache-2.0
 *
 * rowtable_read.cc - read a listing answer's rows with simdjson
 *
 * One pass of simdjson's On-Demand parser over the frame: the members of
 * the message and of its body become jansson values (each parsed from its
 * own JSON text: they are few and small), except the body's member of
 * rows, which fills a struct row_table (rowtable.h).  The only C++ file:
 * it is built into a module of its own (libdrover-rows.so) that a command
 * loads for a large answer only (row_table_frame_reader()), so that no
 * command loads libstdc++ and libsimdjson at start.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include <simdjson.h>

extern "C" {
#include "cmd/lib/rowtable.h"
#include "proto/frame.h"
}

using namespace simdjson;

static_assert(PROTO_DECODER_SLACK >= SIMDJSON_PADDING,
              "the decoder keeps simdjson's padding after a frame");

namespace {

/* What one read builds; freed by the destructor unless taken. */
struct reader {
    struct row_table *t = nullptr;
    size_t cap_cells = 0;
    size_t row_len = SIZE_MAX; /* values in each row: the first row's */
    drv_error_t *error;

    explicit reader(drv_error_t *e) : error(e) {}
    ~reader() { row_table_free(t); }

    /* A failure: errno 'errnum' (EPROTO unless ENOMEM), 'error' set. */
    json_t *fail(const char *what, error_code code = SUCCESS)
    {
        if (code == MEMALLOC) {
            errno = ENOMEM;
            errprintf(error, "out of memory reading a frame");
            return nullptr;
        }
        errno = EPROTO;
        if (code != SUCCESS)
            errprintf(error, "frame is not valid JSON: %s: %s", what,
                      error_message(code));
        else
            errprintf(error, "frame %s", what);
        return nullptr;
    }

    /* The index of the next cell of the row being read, or SIZE_MAX
     * without memory.  A frame of 'len' bytes holds at most len / 2 values
     * ("0,"): that many are allocated at once, and only the pages used
     * are ever touched. */
    size_t next_cell()
    {
        if (ncells == cap_cells) {
            size_t cap = cap_cells ? cap_cells * 2 : len / 2 + 16;
            void *p = realloc(t->types, cap * sizeof(*t->types));

            if (!p)
                return SIZE_MAX;
            t->types = static_cast<uint8_t *>(p);
            if (!(p = realloc(t->vals, cap * sizeof(*t->vals))))
                return SIZE_MAX;
            t->vals = static_cast<union row_value *>(p);
            cap_cells = cap;
        }
        return ncells++;
    }

    size_t len = 0; /* the frame's bytes */

    size_t ncells = 0;
    bool not_rows = false; /* the first row is not an array */

    /* Each column's last string kept (row_table_keep()). */
    std::vector<const char *> last;

    error_code cell(ondemand::value v, struct row_cell *c, size_t col);

    json_t *rows(ondemand::array a);
};

/* The JSON text of any value. */
static error_code raw_text(ondemand::value v, std::string_view &out)
{
    ondemand::json_type type;
    error_code e = v.type().get(type);

    if (e)
        return e;
    if (type == ondemand::json_type::object) {
        ondemand::object o;
        if ((e = v.get_object().get(o)))
            return e;
        return o.raw_json().get(out);
    }
    if (type == ondemand::json_type::array) {
        ondemand::array a;
        if ((e = v.get_array().get(a)))
            return e;
        return a.raw_json().get(out);
    }
    out = v.raw_json_token();
    return SUCCESS;
}

/* A value as jansson's (small members only), or NULL with 'error' set. */
static json_t *to_jansson(ondemand::value v, reader &r)
{
    std::string_view text;
    error_code e = raw_text(v, text);
    json_error_t jerr;
    json_t *j;

    if (e)
        return r.fail("a member", e);
    if (!(j = json_loadb(text.data(), text.size(), JSON_DECODE_ANY
                         | JSON_REJECT_DUPLICATES, &jerr))) {
        errno = EPROTO;
        errprintf(r.error, "frame is not valid JSON: %s", jerr.text);
    }
    return j;
}

error_code reader::cell(ondemand::value v, struct row_cell *c, size_t col)
{
    ondemand::json_type type;
    error_code e = v.type().get(type);
    std::string_view s;

    if (e)
        return e;
    switch (type) {
    case ondemand::json_type::null: {
        bool null;
        if ((e = v.is_null().get(null)))
            return e;
        c->type = ROW_NULL;
        return null ? SUCCESS : INCORRECT_TYPE;
    }
    case ondemand::json_type::boolean: {
        bool b;
        if ((e = v.get_bool().get(b)))
            return e;
        c->type = ROW_BOOL;
        c->v.i = b;
        return SUCCESS;
    }
    case ondemand::json_type::number: {
        ondemand::number_type nt;
        if ((e = v.get_number_type().get(nt)))
            return e;
        if (nt == ondemand::number_type::signed_integer) {
            c->type = ROW_INT;
            return v.get_int64().get(c->v.i);
        }
        /* an integer beyond int64_t is refused, as jansson refuses it;
         * a number with a fraction or exponent is read whole (number's
         * as_double() gave 0 for 121 digits and ".5": found by fuzz_rows) */
        if (nt != ondemand::number_type::floating_point_number)
            return NUMBER_OUT_OF_RANGE;
        c->type = ROW_REAL;
        return v.get_double().get(c->v.d);
    }
    case ondemand::json_type::string:
        if ((e = v.get_string().get(s)))
            return e;
        c->type = ROW_STR;
        break;
    default: /* an object or array: its text */
        if ((e = raw_text(v, s)))
            return e;
        c->type = ROW_JSON;
        break;
    }
    if (s.size() > UINT32_MAX || memchr(s.data(), '\0', s.size()))
        return STRING_ERROR; /* jansson too refuses \u0000 */
    if (c->type == ROW_STR && col >= last.size())
        last.resize(col + 1, nullptr);
    c->v.s = row_table_keep(t, c->type == ROW_STR ? &last[col] : nullptr,
                            s.data(), s.size());
    return c->v.s ? SUCCESS : CAPACITY;
}

/* The rows of array 'a' into the table; a jansson array of their
 * records, or NULL with 'error' set. */
json_t *reader::rows(ondemand::array a)
{
    json_t *list;
    error_code e;

    for (auto rv : a) {
        ondemand::array row;

        if ((e = rv.get_array().get(row))) {
            not_rows = e == INCORRECT_TYPE && t->nrows == 0;
            return fail("rows", e);
        }
        size_t row_start = ncells, count;

        for (auto v : row) {
            ondemand::value val;
            struct row_cell c = {};
            size_t i;

            if ((e = v.get(val)))
                return fail("rows", e);
            if ((i = next_cell()) == SIZE_MAX)
                return fail("", MEMALLOC);
            if ((e = cell(val, &c, i - row_start)))
                return fail("rows", e);
            t->types[i] = static_cast<uint8_t>(c.type);
            t->vals[i] = c.v;
        }
        count = ncells - row_start;
        if (row_len == SIZE_MAX)
            row_len = count;
        else if (count != row_len)
            return fail("has rows of different lengths");
        t->nrows++;
    }
    if (row_len == SIZE_MAX)
        row_len = 0;
    if (!(list = row_table_records(t, row_len)))
        return fail("", MEMALLOC);
    return list;
}

/* The members of object 'o' ('what' in messages) as a jansson object:
 * the member 'special' read by read_special(value), the others by
 * to_jansson().  A key seen twice is refused before its value is read
 * (a second member of rows would fill the table again).  NULL with
 * 'error' set. */
template <typename F>
static json_t *read_members(reader &r, ondemand::object o, const char *what,
                            std::string_view special, F read_special)
{
    json_t *obj = json_object();
    error_code e;

    if (!obj)
        return r.fail("", MEMALLOC);
    for (auto field : o) {
        std::string_view key;
        ondemand::value v;
        json_t *m;
        char *k;

        if ((e = field.unescaped_key().get(key)) || (e = field.value().get(v)))
            return json_decref(obj), r.fail(what, e);
        if (json_object_getn(obj, key.data(), key.size()))
            return json_decref(obj), r.fail("has a duplicate key");
        if (!(m = key == special ? read_special(v) : to_jansson(v, r)))
            return json_decref(obj), nullptr;
        if (!(k = strndup(key.data(), key.size()))
            || json_object_set_new(obj, k, m) < 0) {
            free(k);
            return json_decref(obj), r.fail("", MEMALLOC);
        }
        free(k);
    }
    return obj;
}

/* The body: its members, the member of rows read into the table (whose
 * columns, in a later part of an answer, may be those of 'prev'). */
static json_t *read_body(reader &r, ondemand::object o, const char *rows_key,
                         const struct row_table *prev)
{
    bool rows = false;
    json_t *body = read_members(r, o, "body", rows_key,
                                [&](ondemand::value v) -> json_t * {
        ondemand::json_type type;
        ondemand::array a;
        error_code e;

        if ((e = v.type().get(type)))
            return r.fail("body", e);
        if (type != ondemand::json_type::array || v.get_array().get(a))
            return to_jansson(v, r);
        rows = true;
        return r.rows(a);
    });

    if (!body)
        return nullptr;
    if (!rows) { /* no rows: nothing of the table is used */
        row_table_free(r.t);
        r.t = nullptr;
    } else if (row_table_keys(r.t, json_object_get(body, "keys"), prev,
                              r.t->nrows, r.row_len, r.error) < 0) {
        return json_decref(body), nullptr;
    }
    return body;
}

/* The whole frame read by jansson, as proto_decoder_next() does. */
static json_t *whole(const char *text, size_t len, drv_error_t *error)
{
    json_error_t jerr;
    json_t *msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);

    if (!msg) {
        errno = EPROTO;
        errprintf(error, "frame is not valid JSON: %s", jerr.text);
    }
    return msg;
}

} // namespace

extern "C" __attribute__((visibility("default"))) json_t *
row_table_simd_read(const char *text, size_t len, void *arg,
                    drv_error_t *error)
{
    struct row_table_read *out = static_cast<struct row_table_read *>(arg);
    reader r(error);
    /* kept: the parts of an answer reuse its memory */
    static thread_local ondemand::parser parser;
    ondemand::document doc;
    ondemand::object o;
    json_t *msg;
    error_code e;

    r.len = len;
    if (!(r.t = static_cast<struct row_table *>(calloc(1, sizeof(*r.t))))
        || !(r.t->text = static_cast<char *>(malloc(len + 1))))
        return r.fail("", MEMALLOC);
    r.t->text_cap = len + 1;
    if ((e = parser.iterate(text, len, len + PROTO_DECODER_SLACK).get(doc))
        || (e = doc.get_object().get(o)))
        return r.fail("message", e == INCORRECT_TYPE ? TAPE_ERROR : e);
    msg = read_members(r, o, "message", "body",
                       [&](ondemand::value v) -> json_t * {
        ondemand::object b;

        return v.get_object().get(b) ? to_jansson(v, r)
                                     : read_body(r, b, out->rows_key,
                                                 out->table);
    });
    if (!msg && r.not_rows) /* an older controller's objects */
        return whole(text, len, error);
    if (!msg)
        return nullptr;
    const char *after;
    if (doc.current_location().get(after) != OUT_OF_BOUNDS)
        return json_decref(msg), r.fail("has text after its object");
    if (r.t && r.t->keys) { /* read_body() read rows into it */
        r.t->next = out->table;
        out->table = r.t;
        r.t = nullptr;
    }
    return msg;
}
