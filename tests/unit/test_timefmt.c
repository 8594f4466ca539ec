/* SPDX-License-Identifier: Apache-2.0
 *
 * test_timefmt.c - time limits (parse, squeue/scontrol/sinfo forms), stamps
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/timefmt.h"

static const struct {
    const char *text;
    int64_t secs;
} parse_cases[] = {
    {"0", 0},
    {"5", 300}, /* MM */
    {"30", 1800},
    {"90", 5400}, /* minutes are not range-checked */
    {"1:30", 90}, /* MM:SS */
    {"10:00", 600},
    {"0:45", 45},
    {"1:02:03", 3723}, /* HH:MM:SS */
    {"01:00:00", 3600},
    {"100:00:00", 360000},
    {"2-3", 2 * 86400 + 3 * 3600}, /* D-HH */
    {"1-0", 86400},
    {"1-02:03", 86400 + 2 * 3600 + 3 * 60},        /* D-HH:MM */
    {"1-02:03:04", 86400 + 2 * 3600 + 3 * 60 + 4}, /* D-HH:MM:SS */
    {"7-00:00:00", 7 * 86400},
    {"0-00:00:01", 1},
    {"UNLIMITED", TIME_INFINITE},
    {"unlimited", TIME_INFINITE},
    {"INFINITE", TIME_INFINITE},
    {"Infinite", TIME_INFINITE},
    {"-1", TIME_INFINITE},
    {"999999999", 999999999LL * 60},
};

static void parse_accepts_each_form(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        int64_t secs = -12345;
        drv_error_t error = {{0}};
        if (timefmt_parse_limit(parse_cases[i].text, &secs, &error) != 0)
            fail_msg(
                "parse(\"%s\") failed: %s", parse_cases[i].text, error.text);
        if (secs != parse_cases[i].secs)
            fail_msg("parse(\"%s\") = %lld, want %lld",
                     parse_cases[i].text,
                     (long long)secs,
                     (long long)parse_cases[i].secs);
    }
}

static const char *const parse_errors[] = {
    "",           "abc",          "bogus",
    "1:2:3:4",    "1-2:3:4:5",    "1-",
    "-",          "-5",           "--1",
    ":",          "1:",           ":1",
    "1::2",       "1-2-3",        " 1",
    "1 ",         "1.5",          "+1",
    "1x",         "1m",           "UNLIMITEDx",
    "inf",        "1-:00",        "-1-2",
    "9999999999", "1-9999999999", "1:9999999999",
};

static void parse_rejects_each_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_errors) / sizeof(parse_errors[0]);
         i++) {
        int64_t secs = 42;
        drv_error_t error = {{0}};
        errno = 0;
        if (timefmt_parse_limit(parse_errors[i], &secs, &error) != -1)
            fail_msg("parse(\"%s\") should fail", parse_errors[i]);
        if (errno != EINVAL)
            fail_msg("parse(\"%s\"): errno %d", parse_errors[i], errno);
        if (!strstr(error.text, parse_errors[i]))
            fail_msg("parse(\"%s\"): error \"%s\" does not name the text",
                     parse_errors[i],
                     error.text);
        if (secs != 42)
            fail_msg("parse(\"%s\") wrote *secs on failure", parse_errors[i]);
    }
}

static void parse_rejects_null(void **state)
{
    (void)state;
    int64_t secs = 0;

    errno = 0;
    assert_int_equal(timefmt_parse_limit(NULL, &secs, NULL), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(timefmt_parse_limit("5", NULL, NULL), -1);
    assert_int_equal(errno, EINVAL);
}

static const struct {
    int64_t secs;
    int padded;
    const char *text;
} duration_cases[] = {
    {0, 0, "0:00"},
    {5, 0, "0:05"},
    {12, 0, "0:12"},
    {65, 0, "1:05"},
    {1800, 0, "30:00"},
    {3599, 0, "59:59"},
    {3600, 0, "1:00:00"},
    {3723, 0, "1:02:03"},
    {7200, 0, "2:00:00"},
    {86399, 0, "23:59:59"},
    {86400, 0, "1-00:00:00"},
    {90061, 0, "1-01:01:01"},
    {7 * 86400, 0, "7-00:00:00"},
    {100 * 86400 + 5, 0, "100-00:00:05"},
    {0, 1, "00:00:00"},
    {32, 1, "00:00:32"},
    {61, 1, "00:01:01"},
    {300, 1, "00:05:00"},
    {3600, 1, "01:00:00"},
    {7200, 1, "02:00:00"},
    {86400, 1, "1-00:00:00"},
    {90061, 1, "1-01:01:01"},
    {TIME_INFINITE, 0, "UNLIMITED"},
    {TIME_INFINITE, 1, "UNLIMITED"},
    {-2, 0, "INVALID"},
    {-3600, 1, "INVALID"},
};

static void duration_formats_each_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(duration_cases) / sizeof(duration_cases[0]);
         i++) {
        char buf[32];
        char *s = timefmt_duration(
            duration_cases[i].secs, duration_cases[i].padded, buf, sizeof(buf));
        assert_ptr_equal(s, buf);
        if (strcmp(s, duration_cases[i].text) != 0)
            fail_msg("duration(%lld, %d) = \"%s\", want \"%s\"",
                     (long long)duration_cases[i].secs,
                     duration_cases[i].padded,
                     s,
                     duration_cases[i].text);
    }
}

static void duration_truncates_to_buffer(void **state)
{
    (void)state;
    char buf[4] = "xyz";

    assert_string_equal(timefmt_duration(3723, 0, buf, sizeof(buf)), "1:0");
    assert_ptr_equal(timefmt_duration(5, 0, buf, 0), buf);
    assert_string_equal(buf, "1:0"); /* size 0: untouched */
    assert_null(timefmt_duration(5, 0, NULL, 0));
}

static void limit_formats_infinite_per_command(void **state)
{
    (void)state;
    char buf[32];

    assert_string_equal(timefmt_limit(TIME_INFINITE, 0, buf, sizeof(buf)),
                        "UNLIMITED");
    assert_string_equal(timefmt_limit(TIME_INFINITE, 1, buf, sizeof(buf)),
                        "infinite");
    assert_string_equal(timefmt_limit(1800, 0, buf, sizeof(buf)), "30:00");
    assert_string_equal(timefmt_limit(1800, 1, buf, sizeof(buf)), "30:00");
    assert_string_equal(timefmt_limit(3600, 0, buf, sizeof(buf)), "1:00:00");
    assert_string_equal(timefmt_limit(7 * 86400, 1, buf, sizeof(buf)),
                        "7-00:00:00");
    assert_string_equal(timefmt_limit(-2, 0, buf, sizeof(buf)), "INVALID");
}

static void parse_then_format_round_trips(void **state)
{
    (void)state;
    static const char *const texts[] = {"30:00",
                                        "1:00:00",
                                        "2:00:00",
                                        "1-00:00:00",
                                        "7-00:00:00",
                                        "1-02:03:04",
                                        "UNLIMITED"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        int64_t secs;
        char buf[32];
        /* "30:00" parses as MM:SS, so feed the minutes form for it. */
        const char *in = strcmp(texts[i], "30:00") == 0 ? "30" : texts[i];
        assert_int_equal(timefmt_parse_limit(in, &secs, NULL), 0);
        assert_string_equal(timefmt_limit(secs, 0, buf, sizeof(buf)), texts[i]);
    }
}

static void stamp_formats_local_time(void **state)
{
    (void)state;
    char buf[32];

    /* 2026-11-21T06:11:18Z; the test runs with TZ=UTC (see main). */
    assert_string_equal(timefmt_stamp(1795241478, 0, buf, sizeof(buf)),
                        "2026-11-21T06:11:18");
    assert_string_equal(timefmt_stamp(1, 1, buf, sizeof(buf)),
                        "1970-01-01T00:00:01");
}

static void stamp_names_missing_times(void **state)
{
    (void)state;
    char buf[32];
    char small[5];

    assert_string_equal(timefmt_stamp(0, 0, buf, sizeof(buf)), "Unknown");
    assert_string_equal(timefmt_stamp(0, 1, buf, sizeof(buf)), "None");
    assert_string_equal(timefmt_stamp((time_t)-1, 0, buf, sizeof(buf)),
                        "Unknown");
    assert_string_equal(timefmt_stamp(1795241478, 0, small, sizeof(small)),
                        "Unkn"); /* too small for a date: truncated */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_accepts_each_form),
        cmocka_unit_test(parse_rejects_each_error),
        cmocka_unit_test(parse_rejects_null),
        cmocka_unit_test(duration_formats_each_case),
        cmocka_unit_test(duration_truncates_to_buffer),
        cmocka_unit_test(limit_formats_infinite_per_command),
        cmocka_unit_test(parse_then_format_round_trips),
        cmocka_unit_test(stamp_formats_local_time),
        cmocka_unit_test(stamp_names_missing_times),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
