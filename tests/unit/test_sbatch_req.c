/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sbatch_req.c - sbatch's --begin and --signal parsers, --uid/--gid
 * and the GPU options of the job description (src/cmd/lib/sbatch_req.c)
 *
 * Times are in UTC: main() sets TZ.  "now" is Tuesday 2026-03-10 12:00:00.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/sbatch_req.h"

#define NOW ((time_t)1773144000)     /* 2026-03-10 12:00:00 */
#define TODAY ((time_t)1773100800)   /* 2026-03-10 00:00:00 */
#define TOMORROW ((time_t)1773187200) /* 2026-03-11 00:00:00 */

static time_t begin(const char *s)
{
    time_t t = 0;

    errno = 0;
    if (sbatch_parse_begin(s, NOW, &t) < 0) {
        assert_int_equal(errno, EINVAL);
        return -1;
    }
    return t;
}

/* Where Slurm's parse_time() says a bad time failed: (pos=N). */
static void bad_time_reports_slurms_position(void **state)
{
    static const struct { const char *s; int pos; } cases[] = {
        {"bogus", 0}, {"2020-13-45", 5}, {"2020-01-45", 8}, {"now+abc", 3},
        {"25:00", 0}, {"2020-01-01Tx", 11},
    };
    time_t t;
    int pos;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(sbatch_parse_time(cases[i].s, NOW, &t, &pos), -1);
        assert_int_equal(pos, cases[i].pos);
    }
}

static void begin_now_takes_offsets_in_any_unit_prefix(void **state)
{
    (void)state;
    assert_int_equal(begin("now"), NOW);
    assert_int_equal(begin("now+60"), NOW + 60);
    assert_int_equal(begin("now+5minutes"), NOW + 300);
    assert_int_equal(begin("now+5m"), NOW + 300);
    assert_int_equal(begin("now+1hour"), NOW + 3600);
    assert_int_equal(begin("now+2days"), NOW + 2 * 86400);
    assert_int_equal(begin("now+1w"), NOW + 7 * 86400);
    assert_int_equal(begin("NOW+10s"), NOW + 10);
}

static void begin_time_of_day_is_today_or_tomorrow(void **state)
{
    (void)state;
    assert_int_equal(begin("15:30"), TODAY + 15 * 3600 + 30 * 60);
    assert_int_equal(begin("15:30:20"), TODAY + 15 * 3600 + 30 * 60 + 20);
    /* 09:00 has passed at noon: tomorrow. */
    assert_int_equal(begin("09:00"), TOMORROW + 9 * 3600);
}

static void begin_dates_and_words(void **state)
{
    (void)state;
    assert_int_equal(begin("2026-12-25T08:05:03"), 1798185903);
    assert_int_equal(begin("2026-04-01"), 1775001600);
    assert_int_equal(begin("04/01"), 1775001600);
    assert_int_equal(begin("01/02/27"), 1798848000);
    assert_int_equal(begin("today"), TODAY);
    assert_int_equal(begin("tomorrow"), TOMORROW);
    assert_int_equal(begin("midnight"), TOMORROW);
    assert_int_equal(begin("noon"), TODAY + 12 * 3600);
    assert_int_equal(begin("teatime"), TODAY + 16 * 3600);
    assert_int_equal(begin("tomorrowT09:00"), TOMORROW + 9 * 3600);
    /* sbatch(1)'s other words and forms: elevenses (11 AM, passed at
     * noon: tomorrow), fika (3 PM), AM/PM, MMDDYY */
    assert_int_equal(begin("elevenses"), TOMORROW + 11 * 3600);
    assert_int_equal(begin("fika"), TODAY + 15 * 3600);
    assert_int_equal(begin("4:30PM"), TODAY + 16 * 3600 + 30 * 60);
    assert_int_equal(begin("4:30 pm"), TODAY + 16 * 3600 + 30 * 60);
    assert_int_equal(begin("12:00:05AM"), TOMORROW + 5);
    assert_int_equal(begin("040126"), 1775001600);
    assert_int_equal(begin("tomorrowT4:30PM"), TOMORROW + 16 * 3600 + 1800);
}

static void begin_rejects_malformed_values(void **state)
{
    static const char *const bad[] = {
        "", "now+", "now+x", "now+5parsecs", "now-5", "25:00", "12:60",
        "2026-13-01", "2026-02-30x", "yesterday", "13/01", "todayT25:00",
        "13:00PM", "0:30AM", "4:30XM", "130126", "04012",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (begin(bad[i]) != -1)
            fail_msg("--begin=%s was accepted", bad[i]);
    }
}

struct sig {
    const char *text;
    int signo, secs, batch;
};

static void signal_parses_names_numbers_and_prefixes(void **state)
{
    static const struct sig good[] = {
        {"USR1", SIGUSR1, 60, 0},       {"B:USR1@30", SIGUSR1, 30, 1},
        {"R:SIGTERM@5", SIGTERM, 5, 0}, {"10@120", 10, 120, 0},
        {"sigusr2@0", SIGUSR2, 0, 0},   {"B:HUP", SIGHUP, 60, 1},
        {"KILL@65535", SIGKILL, 65535, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        int signo = -1, secs = -1, batch = -1;

        assert_int_equal(sbatch_parse_signal(good[i].text, &signo, &secs,
                                             &batch), 0);
        assert_int_equal(signo, good[i].signo);
        assert_int_equal(secs, good[i].secs);
        assert_int_equal(batch, good[i].batch);
    }
}

static void signal_rejects_malformed_values(void **state)
{
    static const char *const bad[] = {
        "", "FOO", "USR1@", "USR1@-1", "USR1@65536", "USR1@5s", "0",
        "65@1", "X:USR1", "B:", "@10",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int signo, secs, batch;

        errno = 0;
        if (sbatch_parse_signal(bad[i], &signo, &secs, &batch) != -1)
            fail_msg("--signal=%s was accepted", bad[i]);
        assert_int_equal(errno, EINVAL);
    }
}

static void finish_turns_signal_into_description_fields(void **state)
{
    json_t *d = json_pack("{s:s}", "signal", "B:USR1@2");
    struct sbatch_error e = {0};

    (void)state;
    assert_int_equal(sbatch_req_finish(d, NOW, &e), 0);
    assert_null(json_object_get(d, "signal"));
    assert_int_equal(json_integer_value(json_object_get(d, "signal_num")),
                     SIGUSR1);
    assert_int_equal(json_integer_value(json_object_get(d, "signal_secs")), 2);
    assert_true(json_is_true(json_object_get(d, "signal_batch_only")));
    json_decref(d);
    d = json_pack("{s:s}", "signal", "USR1@x");
    assert_int_equal(sbatch_req_finish(d, NOW, &e), -1);
    assert_int_equal(e.exit_code, 255);
    assert_string_equal(e.text, "Invalid --signal specification");
    json_decref(d);
}

static void identity_is_for_root_only(void **state)
{
    json_t *d = json_pack("{s:s}", "uid", "root");
    struct sbatch_error e = {0};

    (void)state;
    assert_int_equal(sbatch_req_identity(d, 1000, &e), -1);
    assert_int_equal(e.exit_code, 255);
    assert_string_equal(e.text, "--uid only permitted by root user");
    json_decref(d);
    d = json_pack("{s:s}", "gid", "0");
    assert_int_equal(sbatch_req_identity(d, 1000, &e), -1);
    assert_string_equal(e.text, "--gid only permitted by root user");
    json_decref(d);
}

static void identity_resolves_names_and_numbers(void **state)
{
    json_t *d = json_pack("{s:s s:s}", "uid", "root", "gid", "0");
    struct sbatch_error e = {0};

    (void)state;
    assert_int_equal(sbatch_req_identity(d, 0, &e), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "user_id")), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "group_id")), 0);
    assert_null(json_object_get(d, "uid"));
    assert_null(json_object_get(d, "gid"));
    json_decref(d);
    d = json_pack("{s:s}", "uid", "no-such-user-drover");
    assert_int_equal(sbatch_req_identity(d, 0, &e), -1);
    assert_string_equal(e.text, "Invalid --uid specification");
    json_decref(d);
}

static void gpu_options_become_numbers(void **state)
{
    json_t *d = json_pack("{s:s s:s s:s}", "gpus_per_task", "a100:2",
                          "cpus_per_gpu", "4", "mem_per_gpu", "2G");
    struct sbatch_error e = {0};

    (void)state;
    assert_int_equal(sbatch_req_gpu_opts(d, &e), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "gpus_per_task")),
                     2);
    assert_string_equal(json_string_value(json_object_get(d, "gpu_type")),
                        "a100");
    assert_int_equal(json_integer_value(json_object_get(d, "cpus_per_gpu")), 4);
    assert_int_equal(
        json_integer_value(json_object_get(d, "mem_per_gpu_mib")), 2048);
    assert_null(json_object_get(d, "mem_per_gpu"));
    json_decref(d);
}

static void gpu_options_reject_bad_values(void **state)
{
    static const char *const cases[][3] = {
        {"gpus_per_task", "x", "Invalid --gpus-per-task specification"},
        {"gpus_per_task", "0", "Invalid --gpus-per-task specification"},
        {"gpus_per_task", ":2", "Invalid --gpus-per-task specification"},
        {"cpus_per_gpu", "-1", "Invalid --cpus-per-gpu specification"},
        {"mem_per_gpu", "lots", "Invalid --mem-per-gpu specification"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *d = json_pack("{s:s}", cases[i][0], cases[i][1]);
        struct sbatch_error e = {0};

        assert_int_equal(sbatch_req_gpu_opts(d, &e), -1);
        assert_int_equal(e.exit_code, 255);
        assert_string_equal(e.text, cases[i][2]);
        json_decref(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(begin_now_takes_offsets_in_any_unit_prefix),
        cmocka_unit_test(begin_time_of_day_is_today_or_tomorrow),
        cmocka_unit_test(begin_dates_and_words),
        cmocka_unit_test(begin_rejects_malformed_values),
        cmocka_unit_test(bad_time_reports_slurms_position),
        cmocka_unit_test(signal_parses_names_numbers_and_prefixes),
        cmocka_unit_test(signal_rejects_malformed_values),
        cmocka_unit_test(finish_turns_signal_into_description_fields),
        cmocka_unit_test(identity_is_for_root_only),
        cmocka_unit_test(identity_resolves_names_and_numbers),
        cmocka_unit_test(gpu_options_become_numbers),
        cmocka_unit_test(gpu_options_reject_bad_values),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
