/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sizefmt.c - memory sizes: sbatch --mem parsing, TRES formatting
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/sizefmt.h"

static const struct {
    const char *text;
    uint64_t mib;
} parse_cases[] = {
    {"16G", 16384},
    {"512M", 512},
    {"4096", 4096},
    {"0", 0},
    {"1T", 1048576},
    {"2048K", 2},
    {"2047K", 2}, /* K rounds up to whole MiB */
    {"2049K", 3},
    {"1K", 1},
    {"0K", 0},
    {"16g", 16384},
    {"512m", 512},
    {"1t", 1048576},
    {"1k", 1},
    {"16GB", 16384},
    {"16gb", 16384},
    {"512MB", 512},
    {"1Tb", 1048576},
    {"007", 7},
    {"18446744073709551615", UINT64_MAX},
    {"18446744073709551615K", 18014398509481984ULL},
};

static void parse_accepts_each_form(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        uint64_t mib = 12345;
        drv_error_t error = {{0}};
        if (sizefmt_parse_mib(parse_cases[i].text, &mib, &error) != 0)
            fail_msg(
                "parse(\"%s\") failed: %s", parse_cases[i].text, error.text);
        if (mib != parse_cases[i].mib)
            fail_msg("parse(\"%s\") = %llu, want %llu",
                     parse_cases[i].text,
                     (unsigned long long)mib,
                     (unsigned long long)parse_cases[i].mib);
    }
}

static const struct {
    const char *text;
    int errnum;
} parse_errors[] = {
    {"", EINVAL},
    {"abc", EINVAL},
    {"-1", EINVAL},
    {"16X", EINVAL},
    {"G", EINVAL},
    {"16GG", EINVAL},
    {"16GBB", EINVAL},
    {"16B", EINVAL},
    {"16 G", EINVAL},
    {" 16", EINVAL},
    {"16G ", EINVAL},
    {"1.5G", EINVAL},
    {"+5", EINVAL},
    {"16P", EINVAL}, /* sbatch knows K, M, G and T only */
    {"18446744073709551616", ERANGE},
    {"99999999999999999999999", ERANGE},
    {"18446744073709551615G", ERANGE},
    {"17592186044416T", ERANGE}, /* 2^44 TiB = 2^64 MiB */
};

static void parse_rejects_each_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_errors) / sizeof(parse_errors[0]);
         i++) {
        uint64_t mib = 42;
        drv_error_t error = {{0}};
        errno = 0;
        if (sizefmt_parse_mib(parse_errors[i].text, &mib, &error) != -1)
            fail_msg("parse(\"%s\") should fail", parse_errors[i].text);
        if (errno != parse_errors[i].errnum)
            fail_msg("parse(\"%s\"): errno %d, want %d",
                     parse_errors[i].text,
                     errno,
                     parse_errors[i].errnum);
        if (!strstr(error.text, parse_errors[i].text))
            fail_msg("parse(\"%s\"): error \"%s\" does not name the text",
                     parse_errors[i].text,
                     error.text);
        if (mib != 42)
            fail_msg("parse(\"%s\") wrote *mib on failure",
                     parse_errors[i].text);
    }
}

static void parse_rejects_null(void **state)
{
    (void)state;
    uint64_t mib;

    errno = 0;
    assert_int_equal(sizefmt_parse_mib(NULL, &mib, NULL), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(sizefmt_parse_mib("16G", NULL, NULL), -1);
    assert_int_equal(errno, EINVAL);
}

static const struct {
    uint64_t mib;
    const char *text;
} format_cases[] = {
    {0, "0"}, /* AllocTRES prints "mem=0" */
    {1, "1M"},
    {512, "512M"},
    {1000, "1000M"},
    {1536, "1536M"},
    {4000, "4000M"},
    {8000, "8000M"},
    {16000, "16000M"},
    {1024, "1G"},
    {3072, "3G"},
    {16384, "16G"},
    {1048576, "1T"},
    {2097152, "2T"},
    {1048576 + 1024, "1025G"},
    {1073741824, "1P"},
    {UINT64_MAX, "18446744073709551615M"},
};

static void format_uses_largest_exact_unit(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]);
         i++) {
        char buf[32];
        char *s = sizefmt_mib(format_cases[i].mib, buf, sizeof(buf));
        assert_ptr_equal(s, buf);
        if (strcmp(s, format_cases[i].text) != 0)
            fail_msg("format(%llu) = \"%s\", want \"%s\"",
                     (unsigned long long)format_cases[i].mib,
                     s,
                     format_cases[i].text);
    }
}

static void format_then_parse_round_trips(void **state)
{
    (void)state;
    static const uint64_t values[] = {
        0, 1, 512, 1000, 1024, 4000, 16000, 16384, 1048576};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        char buf[32];
        uint64_t mib;
        assert_int_equal(
            sizefmt_parse_mib(
                sizefmt_mib(values[i], buf, sizeof(buf)), &mib, NULL),
            0);
        assert_int_equal(mib, values[i]);
    }
}

static void format_truncates_to_buffer(void **state)
{
    (void)state;
    char buf[3] = "xy";

    assert_string_equal(sizefmt_mib(4000, buf, sizeof(buf)), "40");
    assert_ptr_equal(sizefmt_mib(4000, buf, 0), buf);
    assert_string_equal(buf, "40");
    assert_null(sizefmt_mib(4000, NULL, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_accepts_each_form),
        cmocka_unit_test(parse_rejects_each_error),
        cmocka_unit_test(parse_rejects_null),
        cmocka_unit_test(format_uses_largest_exact_unit),
        cmocka_unit_test(format_then_parse_round_trips),
        cmocka_unit_test(format_truncates_to_buffer),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
