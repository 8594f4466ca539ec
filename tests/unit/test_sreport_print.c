/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sreport_print.c - sreport's layout (src/cmd/lib/sreport_print.c)
 *
 * Answers of acct_usage_report are built by hand; the printed text is
 * compared whole, in Slurm 22.05's print_fields layout.
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
#include <jansson.h>

#include "cmd/lib/sreport_print.h"

static const char *const cpu[] = {"cpu"};

/* 2026-11-20 00:00 - 2026-11-21 00:00 in local time, 10 CPUs, 3 h used. */
static json_t *utilization(void)
{
    struct tm tm = {.tm_year = 126, .tm_mon = 10, .tm_mday = 20,
                    .tm_isdst = -1};
    time_t s = mktime(&tm);

    return json_pack("{s:s s:I s:I s:[{s:s s:{s:i} s:{s:i} s:{s:i} "
                     "s:{s:i} s:{s:i} s:{s:i} s:{s:i}}]}",
                     "report", "cluster_utilization", "start", (json_int_t)s,
                     "end", (json_int_t)s + 86400, "clusters", "cluster",
                     "drover", "count", "cpu", 10, "allocated", "cpu", 10800,
                     "down", "cpu", 0, "planned_down", "cpu", 0, "idle", "cpu",
                     864000 - 10800, "planned", "cpu", 0, "reported", "cpu",
                     864000);
}

static char *print(json_t *ans, const char *format, struct sreport_out *o)
{
    struct fmt_buf out = {0};
    drv_error_t error = {{0}};
    char *s;

    o->tres = cpu;
    o->ntres = 1;
    assert_int_equal(sreport_print(&out, ans, format, o, &error), 0);
    s = strdup(fmt_buf_str(&out));
    free(out.s);
    return s;
}

static void time_formats_are_slurms(void **state)
{
    enum sreport_time t;
    char *s;

    (void)state;
    assert_int_equal(sreport_time_parse("HourPer", &t), 0);
    assert_int_equal(t, SREPORT_HOURS_PER);
    assert_int_equal(sreport_time_parse("s", &t), 0);
    assert_int_equal(t, SREPORT_SECS);
    assert_int_equal(sreport_time_parse("Hours", &t), 0);
    assert_int_equal(t, SREPORT_HOURS);
    assert_int_equal(sreport_time_parse("minper", &t), 0);
    assert_int_equal(t, SREPORT_MINS_PER);
    errno = 0;
    assert_int_equal(sreport_time_parse("fortnight", &t), -1);
    assert_int_equal(errno, EINVAL);
    s = sreport_time_str(SREPORT_MINS, 90, 0);
    assert_string_equal(s, "2"); /* %.0lf of 1.5 rounds to even */
    free(s);
    s = sreport_time_str(SREPORT_PERCENT, 1, 200);
    assert_string_equal(s, "0.50%");
    free(s);
    s = sreport_time_str(SREPORT_SECS_PER, 10800, 864000);
    assert_string_equal(s, "10800(1.25%)");
    free(s);
}

static void cluster_utilization_default_layout(void **state)
{
    struct sreport_out o = {.time = SREPORT_MINS};
    json_t *ans = utilization();
    char *s = print(ans, NULL, &o);

    (void)state;
    assert_string_equal(s,
        "--------------------------------------------------------------------"
        "------------\n"
        "Cluster Utilization 2026-11-20T00:00:00 - 2026-11-20T23:59:59\n"
        "Usage reported in CPU Minutes\n"
        "--------------------------------------------------------------------"
        "------------\n"
        "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported \n"
        "--------- -------- -------- -------- -------- -------- -------- \n"
        "   drover      180        0        0    14220        0    14400 \n");
    free(s);
    json_decref(ans);
}

static void parsable_and_noheader(void **state)
{
    struct sreport_out o = {.time = SREPORT_SECS, .parsable = 2,
                            .noheader = true};
    json_t *ans = utilization();
    char *s = print(ans, "Cluster,Allocated,Reported", &o);

    (void)state;
    assert_string_equal(s, "drover|10800|864000\n");
    free(s);
    o.parsable = 1;
    o.noheader = false;
    o.time = SREPORT_PERCENT;
    s = print(ans, "cl,al", &o);
    assert_non_null(strstr(s, "Usage reported in Percentage of Total\n"));
    assert_non_null(strstr(s, "Cluster|Allocated|\ndrover|1.25%|\n"));
    free(s);
    json_decref(ans);
}

static void an_unknown_field_is_named(void **state)
{
    struct sreport_out o = {.time = SREPORT_MINS, .tres = cpu, .ntres = 1};
    struct fmt_buf out = {0};
    drv_error_t error = {{0}};
    json_t *ans = utilization();

    (void)state;
    errno = 0;
    assert_int_equal(sreport_print(&out, ans, "Cluster,Nosuch", &o, &error),
                     -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(error.text, " Unknown field 'Nosuch'");
    fmt_buf_reset(&out);
    json_decref(ans);
}

static void topusage_rows_and_title(void **state)
{
    struct sreport_out o = {.time = SREPORT_SECS, .top_count = 10};
    json_t *ans = json_pack(
        "{s:s s:i s:i s:[{s:s s:{s:i} s:{s:i} s:[{s:s s:[s,s] s:{s:i}}]}]}",
        "report", "user_topusage", "start", 0, "end", 3600, "clusters",
        "cluster", "c", "reported", "cpu", 36000, "count", "cpu", 10, "rows",
        "user", "nosuchuser-x", "accounts", "a", "b", "used", "cpu", 3600);
    char *s = print(ans, NULL, &o);

    (void)state;
    assert_non_null(strstr(s, "Top 10 Users "));
    assert_non_null(strstr(s, " (3600 secs)\n"));
    assert_non_null(strstr(s, "  Cluster     Login     Proper Name         "
                              "Account     Used   Energy \n"));
    assert_non_null(strstr(s, "        c nosuchus+                            "
                              "a, b     3600        0 \n"));
    free(s);
    json_decref(ans);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_formats_are_slurms),
        cmocka_unit_test(cluster_utilization_default_layout),
        cmocka_unit_test(parsable_and_noheader),
        cmocka_unit_test(an_unknown_field_is_named),
        cmocka_unit_test(topusage_rows_and_title),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
