/* SPDX-License-Identifier: Apache-2.0
 *
 * test_cron.c - crontab time specifications: parsing (every field form,
 * the shortcuts, errors naming the field) and the next matching time
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

#include "common/cron.h"

/* 'iso' ("2026-11-27 14:28") as UTC seconds (the tests run with TZ=UTC). */
static time_t at(const char *iso)
{
    struct tm tm = {0};

    assert_non_null(strptime(iso, "%Y-%m-%d %H:%M", &tm));
    tm.tm_isdst = -1;
    return mktime(&tm);
}

static time_t next_of(const char *line, const char *after)
{
    struct cron_spec s;
    size_t len, cmd;
    drv_error_t e = {{0}};

    assert_int_equal(cron_parse(line, &s, &len, &cmd, &e), 0);
    return cron_next(&s, at(after));
}

static void parses_fields_and_command(void **state)
{
    struct cron_spec s;
    size_t len, cmd;
    const char *line = "  */15 0-6/2 1,15 jan-MAR mon-fri   echo hi there";

    (void)state;
    assert_int_equal(cron_parse(line, &s, &len, &cmd, NULL), 0);
    assert_int_equal(s.minute, 1ull | 1ull << 15 | 1ull << 30 | 1ull << 45);
    assert_int_equal(s.hour, 1u | 1u << 2 | 1u << 4 | 1u << 6);
    assert_int_equal(s.mday, 1u << 1 | 1u << 15);
    assert_int_equal(s.month, 1u << 1 | 1u << 2 | 1u << 3);
    assert_int_equal(s.wday, 0x3e);
    assert_false(s.mday_star);
    assert_false(s.wday_star);
    assert_string_equal(line + cmd, "echo hi there");
    assert_int_equal(len, strlen("  */15 0-6/2 1,15 jan-MAR mon-fri"));
    assert_int_equal(cron_parse("5/20 * * * 7 x", &s, &len, &cmd, NULL), 0);
    assert_int_equal(s.minute, 1ull << 5 | 1ull << 25 | 1ull << 45);
    assert_int_equal(s.wday, 1); /* 7 is Sunday */
    assert_true(s.mday_star);
}

static void shortcuts(void **state)
{
    struct cron_spec s;
    size_t len, cmd;
    const char *line = "@Daily /bin/true";

    (void)state;
    assert_int_equal(cron_parse(line, &s, &len, &cmd, NULL), 0);
    assert_int_equal(len, 6);
    assert_string_equal(line + cmd, "/bin/true");
    assert_int_equal(s.minute, 1);
    assert_int_equal(s.hour, 1);
    assert_int_equal(next_of("@hourly x", "2026-11-27 14:28"),
                     at("2026-11-27 15:00"));
    assert_int_equal(next_of("@weekly x", "2026-11-27 14:28"),
                     at("2026-11-29 00:00")); /* a Sunday */
    assert_int_equal(next_of("@monthly x", "2026-11-27 14:28"),
                     at("2026-12-01 00:00"));
    assert_int_equal(next_of("@yearly x", "2026-11-27 14:28"),
                     at("2027-01-01 00:00"));
    assert_int_equal(next_of("@annually x", "2026-11-27 14:28"),
                     at("2027-01-01 00:00"));
    assert_int_equal(next_of("@midnight x", "2026-11-27 14:28"),
                     at("2026-11-28 00:00"));
}

static void errors_name_the_field(void **state)
{
    struct cron_spec s;
    size_t len, cmd;
    drv_error_t e = {{0}};

    (void)state;
    assert_int_equal(cron_parse("60 * * * * x", &s, &len, &cmd, &e), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(e.text, "minute: '60'"));
    assert_int_equal(cron_parse("* 24 * * * x", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "hour: '24'"));
    assert_int_equal(cron_parse("* * 0 * * x", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "day of month: '0'"));
    assert_int_equal(cron_parse("* * * foo * x", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "month: 'foo'"));
    assert_int_equal(cron_parse("* * * * fri-mon x", &s, &len, &cmd, &e),
                     -1);
    assert_non_null(strstr(e.text, "day of week: 'fri-mon'"));
    assert_int_equal(cron_parse("*/0 * * * * x", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "minute"));
    assert_int_equal(cron_parse("1, * * * * x", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "minute"));
    assert_int_equal(cron_parse("* * * *", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "day of week: missing"));
    assert_int_equal(cron_parse("* * * * *", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "no command"));
    assert_int_equal(cron_parse("@reboot x", &s, &len, &cmd, &e), -1);
    assert_non_null(strstr(e.text, "'@reboot'"));
    assert_int_equal(cron_parse("1-2-3 * * * * x", &s, &len, &cmd, &e), -1);
}

static void next_times(void **state)
{
    (void)state;
    /* strictly after, on whole minutes */
    assert_int_equal(next_of("* * * * * x", "2026-11-27 14:28"),
                     at("2026-11-27 14:29"));
    assert_int_equal(next_of("*/5 * * * * x", "2026-11-27 14:28"),
                     at("2026-11-27 14:30"));
    assert_int_equal(next_of("30 2 * * * x", "2026-11-27 14:28"),
                     at("2026-11-28 02:30"));
    /* month and year roll over */
    assert_int_equal(next_of("0 0 1 jan * x", "2026-11-27 14:28"),
                     at("2027-01-01 00:00"));
    /* Feb 29 of the next leap year */
    assert_int_equal(next_of("0 12 29 2 * x", "2026-11-27 14:28"),
                     at("2028-02-29 12:00"));
    /* a day that never comes */
    assert_int_equal(next_of("0 0 30 feb * x", "2026-11-27 14:28"), -1);
}

static void day_or_rule(void **state)
{
    (void)state;
    /* both restricted: the 1st or any Monday (2026-11-30 is a Monday) */
    assert_int_equal(next_of("0 9 1 * mon x", "2026-11-27 14:28"),
                     at("2026-11-30 09:00"));
    assert_int_equal(next_of("0 9 28 * mon x", "2026-11-27 14:28"),
                     at("2026-11-28 09:00"));
    /* one of them '*': both must match (the next Monday the 1st) */
    assert_int_equal(next_of("0 9 * * mon x", "2026-11-27 14:28"),
                     at("2026-11-30 09:00"));
    assert_int_equal(next_of("0 9 1 * * x", "2026-11-27 14:28"),
                     at("2026-12-01 09:00"));
    /* '*' first (mday 1,8,15,22,29): both must hold */
    assert_int_equal(next_of("0 9 */7 * mon x", "2026-11-27 14:28"),
                     at("2027-02-01 09:00"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_fields_and_command),
        cmocka_unit_test(shortcuts),
        cmocka_unit_test(errors_name_the_field),
        cmocka_unit_test(next_times),
        cmocka_unit_test(day_or_rule),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
