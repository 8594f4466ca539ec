/* SPDX-License-Identifier: Apache-2.0
 *
 * test_hostlist.c - hostlist expressions: expand, compress, round trips
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostlist.h"

/* The hosts of 'hl' joined by single spaces, in a static buffer. */
static const char *joined(const hostlist_t *hl)
{
    static char buf[4096];
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < hostlist_count(hl); i++) {
        int n = snprintf(buf + len,
                         sizeof(buf) - len,
                         "%s%s",
                         i ? " " : "",
                         hostlist_nth(hl, i));
        assert_true(n >= 0 && (size_t)n < sizeof(buf) - len);
        len += (size_t)n;
    }
    return buf;
}

/* A hostlist holding the space-separated names in 'hosts'. */
static hostlist_t *from_words(const char *hosts)
{
    hostlist_t *hl = hostlist_create();
    char *copy = strdup(hosts);
    char *save = NULL;

    assert_non_null(hl);
    assert_non_null(copy);
    for (char *w = strtok_r(copy, " ", &save); w;
         w = strtok_r(NULL, " ", &save))
        assert_int_equal(hostlist_append(hl, w), 0);
    free(copy);
    return hl;
}

static const struct {
    const char *expr;
    const char *hosts;
} decode_cases[] = {
    {"", ""},
    {" , ", ""},
    {"n1", "n1"},
    {"login", "login"},
    {"n[1-3]", "n1 n2 n3"},
    {"node[01-04]", "node01 node02 node03 node04"},
    {"n[8-11]", "n8 n9 n10 n11"},
    {"gpu[08-11]", "gpu08 gpu09 gpu10 gpu11"},
    {"n[098-101]", "n098 n099 n100 n101"},
    {"n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10"},
    {"n[5]", "n5"},
    {"n[1-3,7],login1", "n1 n2 n3 n7 login1"},
    {"n[1,3,5-6,01]", "n1 n3 n5 n6 n01"},
    {"n[1-3,7],m[01-02]x", "n1 n2 n3 n7 m01x m02x"},
    {"a[1-2]b", "a1b a2b"},
    {"r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2"},
    {"[1-3]", "1 2 3"},
    {"n1 n2,,n3\t", "n1 n2 n3"},
    {"n[1-2],n[1-2]", "n1 n2 n1 n2"},
    {"n[0-1]", "n0 n1"},
    {"n[00-01]", "n00 n01"},
};

static void decode_expands_each_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]);
         i++) {
        hostlist_t *hl = hostlist_decode(decode_cases[i].expr, NULL);
        if (!hl)
            fail_msg("decode(\"%s\") failed: %s",
                     decode_cases[i].expr,
                     strerror(errno));
        if (strcmp(joined(hl), decode_cases[i].hosts) != 0)
            fail_msg("decode(\"%s\") = \"%s\", want \"%s\"",
                     decode_cases[i].expr,
                     joined(hl),
                     decode_cases[i].hosts);
        hostlist_destroy(hl);
    }
}

static void decode_keeps_zero_padding(void **state)
{
    (void)state;
    hostlist_t *hl = hostlist_decode("gpu[001-016],login1", NULL);

    assert_non_null(hl);
    assert_int_equal(hostlist_count(hl), 17);
    assert_string_equal(hostlist_nth(hl, 0), "gpu001");
    assert_string_equal(hostlist_nth(hl, 9), "gpu010");
    assert_string_equal(hostlist_nth(hl, 15), "gpu016");
    assert_string_equal(hostlist_nth(hl, 16), "login1");
    hostlist_destroy(hl);
}

static const struct {
    const char *expr;
    int errnum;
    const char *text; /* expected in error.text */
} decode_errors[] = {
    {"gpu[1-4", EINVAL, "']'"},
    {"n[5-3]", EINVAL, "backwards"},
    {"n[5-3]", EINVAL, "column 3"},
    {"n[a-b]", EINVAL, "expected a number"},
    {"n[1-x]", EINVAL, "expected a number"},
    {"n[]", EINVAL, "expected a number"},
    {"n[1,]", EINVAL, "expected a number"},
    {"n[,1]", EINVAL, "expected a number"},
    {"n[1-]", EINVAL, "expected a number"},
    {"n[-1]", EINVAL, "expected a number"},
    {"n[1;2]", EINVAL, "unexpected character"},
    {"n[1 -2]", EINVAL, "unexpected character"},
    {"n[1-2-3]", EINVAL, "unexpected character"},
    {"n1]", EINVAL, "']' without '['"},
    {"n[[1]]", EINVAL, "nested"},
    {"n[1-2],m[3", EINVAL, "']'"},
    {"n[1234567890123456789]", EINVAL, "too long"},
    {"n[1-2000000]", ERANGE, "more than"},
    {"a[1-1000]b[1-1001]", ERANGE, "more than"},
    {"n[0-999999999999999999]", ERANGE, "more than"},
    {"[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1]",
     EINVAL,
     "too many bracket groups"},
};

static void decode_rejects_each_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(decode_errors) / sizeof(decode_errors[0]);
         i++) {
        drv_error_t error = {{0}};
        errno = 0;
        if (hostlist_decode(decode_errors[i].expr, &error) != NULL)
            fail_msg("decode(\"%s\") should fail", decode_errors[i].expr);
        if (errno != decode_errors[i].errnum)
            fail_msg("decode(\"%s\"): errno %d, want %d",
                     decode_errors[i].expr,
                     errno,
                     decode_errors[i].errnum);
        if (!strstr(error.text, decode_errors[i].text))
            fail_msg("decode(\"%s\"): error \"%s\" lacks \"%s\"",
                     decode_errors[i].expr,
                     error.text,
                     decode_errors[i].text);
    }
}

static void decode_rejects_null(void **state)
{
    (void)state;
    drv_error_t error = {{0}};

    errno = 0;
    assert_null(hostlist_decode(NULL, &error));
    assert_int_equal(errno, EINVAL);
    assert_true(error.text[0] != '\0');
    errno = 0;
    assert_null(hostlist_decode("n[1", NULL)); /* error may be NULL */
    assert_int_equal(errno, EINVAL);
}

static void decode_accepts_exactly_max_hosts(void **state)
{
    (void)state;
    hostlist_t *hl = hostlist_decode("n[1-1000000]", NULL);

    assert_non_null(hl);
    assert_int_equal(hostlist_count(hl), HOSTLIST_MAX);
    assert_string_equal(hostlist_nth(hl, HOSTLIST_MAX - 1), "n1000000");
    hostlist_destroy(hl);
    errno = 0;
    assert_null(hostlist_decode("n[1-1000000],x1", NULL));
    assert_int_equal(errno, ERANGE);
}

static const struct {
    const char *hosts;
    const char *expr;
} encode_cases[] = {
    {"", ""},
    {"n1", "n1"},
    {"login", "login"},
    {"n01 n02 n03 n05", "n[01-03,05]"},
    {"n1 n2 n3 n4", "n[1-4]"},
    {"n1 n2 m3", "n[1-2],m3"},
    {"n1 n3", "n[1,3]"},
    {"n3 n2 n1", "n[3,2,1]"},
    {"n1 m1 n2", "n1,m1,n2"},
    {"n1 login n2 n3", "n1,login,n[2-3]"},
    {"n9 n10", "n[9-10]"},
    {"n09 n10", "n[09-10]"},
    {"n99 n100", "n[99-100]"},
    {"n099 n100", "n[099-100]"},
    {"n10 n11", "n[10-11]"},
    {"n0 n1", "n[0-1]"},
    {"n00 n01", "n[00-01]"},
    {"n01 n1", "n[01,1]"},
    {"n1 n01", "n[1,01]"},
    {"n9 n010", "n[9,010]"},
    {"n1 n1", "n[1,1]"},
    {"m01x m02x", "m01x,m02x"},
    {"a b", "a,b"},
    {"1 2 3", "[1-3]"},
    {"n1 n2 n3 n4 n5 n6 n7 n8 n9 n10 n11", "n[1-11]"},
    {"gpu1 n1", "gpu1,n1"},
    {"n1234567890123456789 n1234567890123456790",
     "n1234567890123456789,n1234567890123456790"},
};

static void encode_compresses_each_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(encode_cases) / sizeof(encode_cases[0]);
         i++) {
        hostlist_t *hl = from_words(encode_cases[i].hosts);
        char *s = hostlist_encode(hl);
        assert_non_null(s);
        if (strcmp(s, encode_cases[i].expr) != 0)
            fail_msg("encode(%s) = \"%s\", want \"%s\"",
                     encode_cases[i].hosts,
                     s,
                     encode_cases[i].expr);
        free(s);
        hostlist_destroy(hl);
    }
}

/* Expressions that encode(decode(x)) gives back unchanged. */
static const char *const canonical[] = {
    "n1",
    "n[1-4]",
    "gpu[001-016],login1",
    "n[1-3,7],login1",
    "n[01-03,05]",
    "n[9-10]",
    "n[099-100]",
    "n[1,3,5-7]",
    "n[1-2],m3",
    "[1-3]",
    "n[3,2,1]",
    "n[1-2],login,n[4-5]",
};

static void encode_inverts_decode(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++) {
        hostlist_t *hl = hostlist_decode(canonical[i], NULL);
        char *s;
        assert_non_null(hl);
        assert_non_null(s = hostlist_encode(hl));
        if (strcmp(s, canonical[i]) != 0)
            fail_msg("encode(decode(\"%s\")) = \"%s\"", canonical[i], s);
        free(s);
        hostlist_destroy(hl);
    }
}

/* Expressions whose encoding differs but names the same hosts in order. */
static const char *const noncanonical[] = {
    "n[09-100]",
    "m[01-02]x",
    "r[1-2]n[1-2]",
    "n[1,01,001]",
    "n[1-3],n4",
    "n[5,6,7]",
    "n[08-12],n[8-12]",
    "a[1-2]b,c",
};

static void decode_inverts_encode(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(noncanonical) / sizeof(noncanonical[0]);
         i++) {
        hostlist_t *a = hostlist_decode(noncanonical[i], NULL);
        hostlist_t *b;
        char *s;
        char want[4096];
        assert_non_null(a);
        assert_non_null(s = hostlist_encode(a));
        assert_non_null(b = hostlist_decode(s, NULL));
        snprintf(want, sizeof(want), "%s", joined(a));
        if (strcmp(joined(b), want) != 0)
            fail_msg("\"%s\" -> \"%s\" -> %s, want %s",
                     noncanonical[i],
                     s,
                     joined(b),
                     want);
        free(s);
        hostlist_destroy(a);
        hostlist_destroy(b);
    }
}

static void append_nth_find_count(void **state)
{
    (void)state;
    hostlist_t *hl = hostlist_create();

    assert_non_null(hl);
    assert_int_equal(hostlist_count(hl), 0);
    assert_int_equal(hostlist_append(hl, "n2"), 0);
    assert_int_equal(hostlist_append(hl, "n1"), 0);
    assert_int_equal(hostlist_append(hl, "n2"), 0);
    assert_int_equal(hostlist_count(hl), 3);
    assert_string_equal(hostlist_nth(hl, 1), "n1");
    assert_int_equal(hostlist_find(hl, "n2"), 0); /* first match */
    assert_int_equal(hostlist_find(hl, "n1"), 1);
    assert_int_equal(hostlist_find(hl, "n3"), -1);
    assert_int_equal(hostlist_find(hl, NULL), -1);
    errno = 0;
    assert_null(hostlist_nth(hl, 3));
    assert_int_equal(errno, ERANGE);
    errno = 0;
    assert_int_equal(hostlist_append(hl, NULL), -1);
    assert_int_equal(errno, EINVAL);
    hostlist_destroy(hl);
}

static void append_copies_the_name(void **state)
{
    (void)state;
    hostlist_t *hl = hostlist_create();
    char name[] = "n1";

    assert_non_null(hl);
    assert_int_equal(hostlist_append(hl, name), 0);
    name[1] = '9';
    assert_string_equal(hostlist_nth(hl, 0), "n1");
    hostlist_destroy(hl);
}

static void null_and_empty_lists(void **state)
{
    (void)state;
    hostlist_t *hl = hostlist_create();
    char *s;

    assert_int_equal(hostlist_count(NULL), 0);
    assert_int_equal(hostlist_find(NULL, "n1"), -1);
    errno = 0;
    assert_null(hostlist_nth(NULL, 0));
    assert_int_equal(errno, ERANGE);
    assert_non_null(s = hostlist_encode(hl));
    assert_string_equal(s, "");
    free(s);
    hostlist_destroy(hl);
}

static void destroy_keeps_errno(void **state)
{
    (void)state;
    hostlist_t *hl = hostlist_decode("n[1-3]", NULL);

    assert_non_null(hl);
    errno = EPERM;
    hostlist_destroy(hl);
    assert_int_equal(errno, EPERM);
    hostlist_destroy(NULL);
    assert_int_equal(errno, EPERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_expands_each_case),
        cmocka_unit_test(decode_keeps_zero_padding),
        cmocka_unit_test(decode_rejects_each_error),
        cmocka_unit_test(decode_rejects_null),
        cmocka_unit_test(decode_accepts_exactly_max_hosts),
        cmocka_unit_test(encode_compresses_each_case),
        cmocka_unit_test(encode_inverts_decode),
        cmocka_unit_test(decode_inverts_encode),
        cmocka_unit_test(append_nth_find_count),
        cmocka_unit_test(append_copies_the_name),
        cmocka_unit_test(null_and_empty_lists),
        cmocka_unit_test(destroy_keeps_errno),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
