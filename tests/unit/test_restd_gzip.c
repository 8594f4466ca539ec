/* SPDX-License-Identifier: Apache-2.0
 *
 * test_restd_gzip.c - droverrestd's gzip answers (src/restd/gzip.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "restd/gzip.h"

static void accept_encoding_values(void **state)
{
    (void)state;
    assert_false(rest_accepts_gzip(NULL));
    assert_false(rest_accepts_gzip(""));
    assert_false(rest_accepts_gzip("identity"));
    assert_false(rest_accepts_gzip("br, deflate"));
    assert_false(rest_accepts_gzip("gzipx"));
    assert_false(rest_accepts_gzip("gzip;q=0"));
    assert_false(rest_accepts_gzip("gzip; q=0.000, br"));
    assert_true(rest_accepts_gzip("gzip"));
    assert_true(rest_accepts_gzip("GZip"));
    assert_true(rest_accepts_gzip("gzip, deflate"));   /* python-requests */
    assert_true(rest_accepts_gzip("deflate, gzip;q=1.0, *;q=0.5"));
    assert_true(rest_accepts_gzip("br, x-gzip"));
    assert_true(rest_accepts_gzip("*"));
    assert_true(rest_accepts_gzip("gzip;q=0.5"));
    assert_true(rest_accepts_gzip(" gzip ; q=0.01"));
}

/* What rest_gzip() made inflates back to the input, and is smaller for
 * a listing's repetitive JSON. */
static void gzip_round_trip(void **state)
{
    size_t n = 200000, zlen = 0;
    char *in = malloc(n), *z, *back = malloc(n + 1);
    z_stream s = {0};

    (void)state;
    for (size_t i = 0; i < n; i++)
        in[i] = "{\"job_id\":12345,\"job_state\":\"RUNNING\"},"[i % 40];
    z = rest_gzip(in, n, &zlen);
    assert_non_null(z);
    assert_true(zlen < n / 10);
    assert_int_equal((unsigned char)z[0], 0x1f);
    assert_int_equal((unsigned char)z[1], 0x8b);
    assert_int_equal(inflateInit2(&s, 15 + 16), Z_OK);
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)zlen;
    s.next_out = (Bytef *)back;
    s.avail_out = (uInt)(n + 1);
    assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
    assert_int_equal(s.total_out, n);
    assert_memory_equal(back, in, n);
    inflateEnd(&s);
    free(z);
    free(back);
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accept_encoding_values),
        cmocka_unit_test(gzip_round_trip),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
