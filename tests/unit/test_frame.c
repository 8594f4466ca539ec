/* SPDX-License-Identifier: Apache-2.0
 *
 * test_frame.c - length-prefixed JSON frames and the incremental decoder
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "proto/frame.h"
#include "proto/msg.h"

/* Build a raw frame: header with 'announced' length, then 'payload'. */
static size_t raw_frame(char *out, uint32_t announced, const char *payload)
{
    size_t n = strlen(payload);

    out[0] = (char)(announced >> 24);
    out[1] = (char)(announced >> 16);
    out[2] = (char)(announced >> 8);
    out[3] = (char)announced;
    memcpy(out + 4, payload, n);
    return 4 + n;
}

static json_t *sample(void)
{
    return json_pack("{s:i s:s s:{s:I s:[i,i] s:f}}", "v", 1, "type",
                     "job_submit", "body", "job_id", (json_int_t)77, "nodes",
                     1, 2, "load", 0.5);
}

static void encode_writes_big_endian_length_then_compact_json(void **state)
{
    json_t *msg = json_pack("{s:i}", "v", 1);
    char *buf = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(proto_frame_encode(msg, &buf, &len), 0);
    assert_int_equal(len, 4 + strlen("{\"v\":1}"));
    assert_memory_equal(buf, "\0\0\0\7{\"v\":1}", len);
    free(buf);
    json_decref(msg);
}

static void encode_decode_round_trip(void **state)
{
    json_t *msg = sample(), *out;
    proto_decoder_t *d = proto_decoder_create();
    char *buf;
    size_t len;

    (void)state;
    assert_non_null(d);
    assert_int_equal(proto_frame_encode(msg, &buf, &len), 0);
    assert_int_equal(proto_decoder_feed(d, buf, len), 0);
    out = proto_decoder_next(d, NULL);
    assert_non_null(out);
    assert_true(json_equal(msg, out));
    assert_int_equal(proto_decoder_buffered(d), 0);
    errno = 0;
    assert_null(proto_decoder_next(d, NULL));
    assert_int_equal(errno, EAGAIN);
    json_decref(out);
    free(buf);
    json_decref(msg);
    proto_decoder_destroy(d);
}

static void decoder_takes_a_frame_byte_by_byte(void **state)
{
    json_t *msg = sample(), *out = NULL;
    proto_decoder_t *d = proto_decoder_create();
    char *buf;
    size_t len;

    (void)state;
    assert_int_equal(proto_frame_encode(msg, &buf, &len), 0);
    for (size_t i = 0; i < len; i++) {
        assert_null(out);
        assert_int_equal(proto_decoder_feed(d, buf + i, 1), 0);
        out = proto_decoder_next(d, NULL);
        if (i + 1 < len) {
            assert_null(out);
            assert_int_equal(errno, EAGAIN);
            assert_int_equal(proto_decoder_buffered(d), i + 1);
        }
    }
    assert_non_null(out);
    assert_true(json_equal(msg, out));
    json_decref(out);
    free(buf);
    json_decref(msg);
    proto_decoder_destroy(d);
}

static void decoder_splits_two_frames_fed_at_once(void **state)
{
    json_t *a = json_pack("{s:s}", "type", "a");
    json_t *b = json_pack("{s:s}", "type", "b");
    json_t *out;
    proto_decoder_t *d = proto_decoder_create();
    char *ba, *bb, *both;
    size_t la, lb;

    (void)state;
    assert_int_equal(proto_frame_encode(a, &ba, &la), 0);
    assert_int_equal(proto_frame_encode(b, &bb, &lb), 0);
    both = malloc(la + lb);
    memcpy(both, ba, la);
    memcpy(both + la, bb, lb);
    assert_int_equal(proto_decoder_feed(d, both, la + lb), 0);
    out = proto_decoder_next(d, NULL);
    assert_true(json_equal(out, a));
    json_decref(out);
    out = proto_decoder_next(d, NULL);
    assert_true(json_equal(out, b));
    json_decref(out);
    assert_null(proto_decoder_next(d, NULL));
    assert_int_equal(errno, EAGAIN);
    free(both);
    free(ba);
    free(bb);
    json_decref(a);
    json_decref(b);
    proto_decoder_destroy(d);
}

static void decoder_rejects_length_over_the_limit_at_once(void **state)
{
    proto_decoder_t *d = proto_decoder_create();
    char hdr[4] = { 0x04, 0x00, 0x00, 0x01 }; /* 64 MiB + 1 */
    drv_error_t error = { { 0 } };

    (void)state;
    /* Only the header arrived: the decoder must not wait for 64 MiB. */
    assert_int_equal(proto_decoder_feed(d, hdr, sizeof(hdr)), 0);
    errno = 0;
    assert_null(proto_decoder_next(d, &error));
    assert_int_equal(errno, EPROTO);
    assert_non_null(strstr(error.text, "67108865"));
    /* The stream stays failed. */
    assert_int_equal(proto_decoder_feed(d, "x", 1), -1);
    assert_int_equal(errno, EPROTO);
    assert_null(proto_decoder_next(d, NULL));
    assert_int_equal(errno, EPROTO);
    proto_decoder_destroy(d);
}

static void decoder_accepts_length_at_the_limit_header(void **state)
{
    proto_decoder_t *d = proto_decoder_create();
    char hdr[4] = { 0x04, 0x00, 0x00, 0x00 }; /* exactly 64 MiB */

    (void)state;
    assert_int_equal(proto_decoder_feed(d, hdr, sizeof(hdr)), 0);
    assert_null(proto_decoder_next(d, NULL));
    assert_int_equal(errno, EAGAIN); /* waits for the payload */
    proto_decoder_destroy(d);
}

static void decoder_rejects_payloads_that_are_not_objects(void **state)
{
    static const char *const bad[] = {
        "[1,2]", "42", "\"str\"", "null", "not json", "{\"a\":1", "{} {}",
        "{\"a\":1,\"a\":2}", /* duplicate keys */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        proto_decoder_t *d = proto_decoder_create();
        drv_error_t error = { { 0 } };
        char buf[64];
        size_t n = raw_frame(buf, (uint32_t)strlen(bad[i]), bad[i]);

        assert_int_equal(proto_decoder_feed(d, buf, n), 0);
        errno = 0;
        assert_null(proto_decoder_next(d, &error));
        assert_int_equal(errno, EPROTO);
        assert_true(error.text[0] != '\0');
        proto_decoder_destroy(d);
    }
}

static void decoder_limit_can_be_lowered_and_raised(void **state)
{
    proto_decoder_t *d = proto_decoder_create();
    drv_error_t error = { { 0 } };
    char buf[64];
    size_t n = raw_frame(buf, 7, "{\"a\":1}");
    json_t *msg;

    (void)state;
    assert_int_equal(proto_decoder_set_max(d, 0), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(proto_decoder_set_max(d, PROTO_FRAME_MAX + 1), -1);
    assert_int_equal(errno, EINVAL);
    /* 7 bytes fit a limit of 7; the next header, over 4, does not */
    assert_int_equal(proto_decoder_set_max(d, 7), 0);
    assert_int_equal(proto_decoder_feed(d, buf, n), 0);
    assert_non_null(msg = proto_decoder_next(d, NULL));
    json_decref(msg);
    assert_int_equal(proto_decoder_set_max(d, 4), 0);
    assert_int_equal(proto_decoder_feed(d, buf, 4), 0); /* header only */
    errno = 0;
    assert_null(proto_decoder_next(d, &error));
    assert_int_equal(errno, EPROTO);
    assert_string_equal(error.text, "frame length 7 exceeds the 4 byte limit");
    proto_decoder_destroy(d);

    /* raised again (after authentication), a large frame goes through */
    d = proto_decoder_create();
    assert_int_equal(proto_decoder_set_max(d, 4), 0);
    assert_int_equal(proto_decoder_set_max(d, PROTO_FRAME_MAX), 0);
    assert_int_equal(proto_decoder_feed(d, buf, n), 0);
    assert_non_null(msg = proto_decoder_next(d, NULL));
    json_decref(msg);
    proto_decoder_destroy(d);
}

static void decoder_refuses_a_non_object_at_its_first_byte(void **state)
{
    proto_decoder_t *d = proto_decoder_create();
    drv_error_t error = { { 0 } };
    char buf[64];
    /* announces 60 MiB, sends one byte of garbage */
    size_t n = raw_frame(buf, 60u * 1024 * 1024, "x");

    (void)state;
    assert_int_equal(proto_decoder_feed(d, buf, n), 0);
    errno = 0;
    assert_null(proto_decoder_next(d, &error));
    assert_int_equal(errno, EPROTO);
    assert_string_equal(error.text, "frame is not a JSON object");
    proto_decoder_destroy(d);

    /* leading JSON whitespace is still an object's possible start */
    d = proto_decoder_create();
    n = raw_frame(buf, 60u * 1024 * 1024, " \n{");
    assert_int_equal(proto_decoder_feed(d, buf, n), 0);
    assert_null(proto_decoder_next(d, NULL));
    assert_int_equal(errno, EAGAIN);
    proto_decoder_destroy(d);
}

static void decoder_rejects_empty_frame(void **state)
{
    proto_decoder_t *d = proto_decoder_create();
    drv_error_t error = { { 0 } };

    (void)state;
    assert_int_equal(proto_decoder_feed(d, "\0\0\0\0", 4), 0);
    assert_null(proto_decoder_next(d, &error));
    assert_int_equal(errno, EPROTO);
    assert_string_equal(error.text, "empty frame");
    proto_decoder_destroy(d);
}

static void decoder_reports_truncated_frame_as_buffered_bytes(void **state)
{
    proto_decoder_t *d = proto_decoder_create();
    char buf[64];
    size_t n = raw_frame(buf, 20, "{\"v\":1"); /* announces 20, has 6 */

    (void)state;
    assert_int_equal(proto_decoder_feed(d, buf, n), 0);
    assert_null(proto_decoder_next(d, NULL));
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(proto_decoder_buffered(d), n);
    proto_decoder_destroy(d);
}

static void decoder_handles_a_large_frame_in_chunks(void **state)
{
    size_t big = 3 * 1024 * 1024;
    char *s = malloc(big + 1);
    json_t *msg, *out = NULL;
    proto_decoder_t *d = proto_decoder_create();
    char *buf;
    size_t len, off;

    (void)state;
    memset(s, 'x', big);
    s[big] = '\0';
    msg = json_pack("{s:s}", "data", s);
    assert_int_equal(proto_frame_encode(msg, &buf, &len), 0);
    for (off = 0; off < len; off += 65536) {
        size_t n = len - off < 65536 ? len - off : 65536;
        assert_int_equal(proto_decoder_feed(d, buf + off, n), 0);
        out = proto_decoder_next(d, NULL);
        if (off + n < len)
            assert_null(out);
    }
    assert_non_null(out);
    assert_true(json_equal(out, msg));
    json_decref(out);
    free(buf);
    free(s);
    json_decref(msg);
    proto_decoder_destroy(d);
}

static void encode_rejects_non_objects_and_null(void **state)
{
    json_t *arr = json_array();
    char *buf = (char *)"untouched";
    size_t len = 99;

    (void)state;
    errno = 0;
    assert_int_equal(proto_frame_encode(arr, &buf, &len), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(proto_frame_encode(NULL, &buf, &len), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(buf, "untouched");
    assert_int_equal(len, 99);
    json_decref(arr);
}

static void encode_rejects_text_over_the_limit(void **state)
{
    size_t big = PROTO_FRAME_MAX; /* plus quotes and key: over the limit */
    char *s = malloc(big + 1);
    json_t *msg;
    char *buf = NULL;
    size_t len = 0;

    (void)state;
    memset(s, 'a', big);
    s[big] = '\0';
    msg = json_object();
    json_object_set_new(msg, "d", json_stringn_nocheck(s, big));
    free(s);
    errno = 0;
    assert_int_equal(proto_frame_encode(msg, &buf, &len), -1);
    assert_int_equal(errno, EMSGSIZE);
    assert_null(buf);
    json_decref(msg);
}

static void msg_parse_checks_the_envelope(void **state)
{
    static const struct {
        const char *json;
        int errnum;
    } cases[] = {
        { "{\"type\":\"x\"}", EPROTO },
        { "{\"v\":\"1\",\"type\":\"x\"}", EPROTO },
        { "{\"v\":2,\"type\":\"x\"}", EPROTONOSUPPORT },
        { "{\"v\":1}", EPROTO },
        { "{\"v\":1,\"type\":\"\"}", EPROTO },
        { "{\"v\":1,\"type\":\"x\",\"cred\":5}", EPROTO },
        { "{\"v\":1,\"type\":\"x\",\"body\":[]}", EPROTO },
        { "{\"v\":1,\"type\":\"x\",\"future\":true}", 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *msg = json_loads(cases[i].json, 0, NULL);
        struct proto_msg m;
        drv_error_t error = { { 0 } };
        int rc = proto_msg_parse(msg, &m, &error);

        if (cases[i].errnum) {
            assert_int_equal(rc, -1);
            assert_int_equal(errno, cases[i].errnum);
            assert_true(error.text[0] != '\0');
        }
        else {
            assert_int_equal(rc, 0);
            assert_string_equal(m.type, "x");
            assert_null(m.cred);
            assert_true(json_is_object(m.body)); /* absent body is {} */
        }
        json_decref(msg);
    }
}

static void msg_error_round_trip(void **state)
{
    json_t *msg = proto_msg_error(EDRV_INVALID_JOB_ID, "job 77 not found");
    struct proto_msg m;
    const char *errstr;
    int errnum;

    (void)state;
    assert_int_equal(proto_msg_parse(msg, &m, NULL), 0);
    assert_string_equal(m.type, PROTO_TYPE_ERROR);
    proto_msg_error_parse(m.body, &errnum, &errstr);
    assert_int_equal(errnum, 2017);
    assert_string_equal(errstr, "job 77 not found");
    json_decref(msg);

    msg = proto_msg_error(0, NULL);
    assert_int_equal(proto_msg_parse(msg, &m, NULL), 0);
    proto_msg_error_parse(m.body, &errnum, &errstr);
    assert_int_equal(errnum, EDRV_ERROR);
    assert_null(errstr);
    json_decref(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_writes_big_endian_length_then_compact_json),
        cmocka_unit_test(encode_decode_round_trip),
        cmocka_unit_test(decoder_takes_a_frame_byte_by_byte),
        cmocka_unit_test(decoder_splits_two_frames_fed_at_once),
        cmocka_unit_test(decoder_rejects_length_over_the_limit_at_once),
        cmocka_unit_test(decoder_accepts_length_at_the_limit_header),
        cmocka_unit_test(decoder_rejects_payloads_that_are_not_objects),
        cmocka_unit_test(decoder_limit_can_be_lowered_and_raised),
        cmocka_unit_test(decoder_refuses_a_non_object_at_its_first_byte),
        cmocka_unit_test(decoder_rejects_empty_frame),
        cmocka_unit_test(decoder_reports_truncated_frame_as_buffered_bytes),
        cmocka_unit_test(decoder_handles_a_large_frame_in_chunks),
        cmocka_unit_test(encode_rejects_non_objects_and_null),
        cmocka_unit_test(encode_rejects_text_over_the_limit),
        cmocka_unit_test(msg_parse_checks_the_envelope),
        cmocka_unit_test(msg_error_round_trip),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
