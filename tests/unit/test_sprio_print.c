/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sprio_print.c - sprio's table against Slurm 22.05.8's
 *
 * priority_info answers (docs/protocol.md shapes) rebuilt from each
 * golden case's setup: PriorityType=priority/multifactor with weights
 * Age 1000, Fairshare 10000, Partition 1000, QOS 1000 (Assoc, JobSize and
 * TRES unset); Fair Tree ranks alice 0.666667 and bob 0.333333, the
 * partition factor is 1 and the jobs are too young for an age factor.
 * sprio-default/-l: bob's pending jobs 8380 and 8381 (priority 4333);
 * the *-fairshare cases and sprio-n/-w/-j/-u/-o: alice's 70369 and 70371
 * (7666), bob's 70370 and 70372 (4333).  The printed text must equal the
 * golden's stdout byte for byte.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/sprio_print.h"
#include "golden.h"

static json_t *weights(void)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:{}}", "age", 1000, "assoc",
                     0, "fairshare", 10000, "jobsize", 0, "partition", 1000,
                     "qos", 1000, "tres");
}

static json_t *job(int id, const char *user, int prio, double fs)
{
    return json_pack("{s:i,s:s,s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:i,"
                     "s:{}}",
                     "job_id", id, "partition", "gpu", "user", user,
                     "priority", prio, "site", 0, "age", 0.0, "assoc", 0.0,
                     "fairshare", fs, "jobsize", 0.0, "partition_factor",
                     1.0, "qos", 0.0, "nice", 0, "tres");
}

static json_t *answer(json_t *jobs)
{
    return json_pack("{s:s,s:o,s:o}", "type", "priority/multifactor",
                     "weights", weights(), "jobs", jobs);
}

/* Bob's two pending jobs of the first queue (sprio-default, sprio-l). */
static json_t *queue_bob(void)
{
    return answer(json_pack("[o,o]", job(8381, "bob", 4333, 0.3333333),
                            job(8380, "bob", 4333, 0.3333333)));
}

/* The four pending jobs of the fair-share cases, as the controller may
 * list them (not in id order). */
static json_t *queue_fairshare(void)
{
    return answer(json_pack("[o,o,o,o]",
                            job(70372, "bob", 4333, 1.0 / 3),
                            job(70369, "alice", 7666, 2.0 / 3),
                            job(70370, "bob", 4333, 1.0 / 3),
                            job(70371, "alice", 7666, 2.0 / 3)));
}

/* The controller's answer to a filtered request: only the jobs whose
 * 'key' is 'value' (a string, or the job id when 'id' is set). */
static json_t *only(json_t *resp, const char *key, const char *value,
                    json_int_t id)
{
    json_t *jobs = json_object_get(resp, "jobs"), *kept = json_array(), *j;
    size_t i;

    json_array_foreach(jobs, i, j) {
        json_t *v = json_object_get(j, key);
        if (value ? !strcmp(json_string_value(v), value)
                  : json_integer_value(v) == id)
            json_array_append(kept, j);
    }
    json_object_set_new(resp, "jobs", kept);
    return resp;
}

static char *print(json_t *resp, const struct sprio_out *o)
{
    struct fmt_buf b = {0};

    sprio_print(&b, resp, o);
    json_decref(resp);
    return b.s ? b.s : strdup("");
}

static void check(const char *golden, json_t *resp, const struct sprio_out *o)
{
    char *got = print(resp, o);

    golden_assert(golden, got);
    free(got);
}

static void default_shows_weighted_factors(void **state)
{
    struct sprio_out o = {0};

    (void)state;
    check("sprio-default", queue_bob(), &o);
    check("sprio-fairshare", queue_fairshare(), &o);
}

static void long_shows_every_factor(void **state)
{
    struct sprio_out o = {.long_list = true};

    (void)state;
    check("sprio-l", queue_bob(), &o);
    check("sprio-l-fairshare", queue_fairshare(), &o);
}

static void norm_shows_factors_and_priority_fraction(void **state)
{
    struct sprio_out o = {.normalized = true};

    (void)state;
    check("sprio-n", queue_fairshare(), &o);
}

static void format_letters(void **state)
{
    struct sprio_out o = {.format = "%.15i %9r %.10Y %.10F %.10A"};

    (void)state;
    check("sprio-o-format", queue_fairshare(), &o);
}

static void weights_line(void **state)
{
    struct sprio_out o = {.weights = true};

    (void)state;
    check("sprio-w", queue_fairshare(), &o);
}

static void user_filter_adds_user_column(void **state)
{
    struct sprio_out o = {.users_given = true};

    (void)state;
    check("sprio-u-bob", only(queue_fairshare(), "user", "bob", 0), &o);
}

static void job_filter(void **state)
{
    struct sprio_out o = {.jobs_given = true};

    (void)state;
    check("sprio-j", only(queue_fairshare(), "job_id", NULL, 70369), &o);
}

static void unknown_job_says_so(void **state)
{
    struct sprio_out o = {.jobs_given = true};
    char *got;

    (void)state;
    got = print(only(queue_fairshare(), "job_id", NULL, 99), &o);
    assert_string_equal(got, "Unable to find jobs matching user/id(s) "
                             "specified\n");
    free(got);
}

static void noheader(void **state)
{
    struct sprio_out o = {.noheader = true, .format = "%i %Y"};
    char *got;

    (void)state;
    got = print(queue_bob(), &o);
    assert_string_equal(got, "8380 4333\n8381 4333\n");
    free(got);
}

/* A TRES weight adds the TRES column; its values are factor x weight,
 * each TRES with a value, in the weights' order. */
static void tres_column(void **state)
{
    json_t *resp = queue_bob(), *w = json_object_get(resp, "weights");
    json_t *j = json_array_get(json_object_get(resp, "jobs"), 0);
    struct sprio_out o = {0};
    char *fmt, *got;

    (void)state;
    json_object_set_new(w, "tres",
                        json_pack("{s:i,s:i,s:i}", "cpu", 2000, "mem", 0,
                                  "gres/gpu", 4000));
    json_object_set_new(j, "tres", json_pack("{s:f,s:f,s:f}", "cpu", 0.25,
                                             "mem", 0.5, "gres/gpu", 0.5));
    fmt = sprio_default_format(resp, &o);
    assert_string_equal(fmt, "%.15i %9r %.10Y %.10S %.10A %.10F %.10P "
                             "%.10Q %.20T");
    free(fmt);
    o.format = "%i|%T|%t|";
    json_incref(resp);
    got = print(resp, &o);
    assert_string_equal(got, "JOBID|TRES|TRES|\n"
                             "8380|||\n"
                             "8381|cpu=500,gres/gpu=2000|cpu=0.25,gres/gpu="
                             "0.50|\n");
    free(got);
    o.weights = true;
    json_incref(resp);
    got = print(resp, &o);
    assert_string_equal(got, "JOBID|TRES|TRES|\n"
                             "Weights|cpu=2000,gres/gpu=4000||\n");
    free(got);
    /* PriorityWeightTRES as written, when the controller sends it. */
    json_object_set_new(w, "tres_text", json_string("CPU=2000,GRES/gpu=4000"));
    got = print(resp, &o);
    assert_string_equal(got, "JOBID|TRES|TRES|\n"
                             "Weights|CPU=2000,GRES/gpu=4000||\n");
    free(got);
}

static void tres_weights_of_zero_add_no_column(void **state)
{
    json_t *resp = queue_bob();
    struct sprio_out o = {.normalized = true};
    char *fmt;

    (void)state;
    json_object_set_new(json_object_get(resp, "weights"), "tres",
                        json_pack("{s:i,s:i}", "cpu", 0, "mem", 0));
    fmt = sprio_default_format(resp, &o);
    assert_string_equal(fmt, "%.15i %9r %10y %10a %10f %10p %10q");
    free(fmt);
    json_decref(resp);
}

static void bad_letters_are_listed(void **state)
{
    char bad[8];

    (void)state;
    assert_int_equal(sprio_bad_letters("%.15i %Z %%x %5K", bad, sizeof(bad)),
                     3);
    assert_string_equal(bad, "ZxK");
    assert_int_equal(sprio_bad_letters("%.15i %9r", bad, sizeof(bad)), 0);
    assert_string_equal(bad, "");
}

static void basic_priority_is_refused(void **state)
{
    json_t *resp = json_pack("{s:s}", "type", "priority/basic");
    struct fmt_buf b = {0};

    (void)state;
    assert_int_equal(sprio_check_type(resp, &b), -1);
    assert_string_equal(b.s, "You are not running a supported priority "
                             "plugin\n(priority/basic).\n"
                             "Only 'priority/multifactor' is supported.\n");
    free(b.s);
    json_decref(resp);
    resp = queue_bob();
    b = (struct fmt_buf){0};
    assert_int_equal(sprio_check_type(resp, &b), 0);
    assert_null(b.s);
    json_decref(resp);
}

static char *capture(void (*fn)(FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    fn(f);
    fclose(f);
    return buf;
}

static void help_and_usage_are_slurms(void **state)
{
    char *got;

    (void)state;
    got = capture(sprio_print_help);
    golden_assert("help-sprio", got);
    free(got);
    got = capture(sprio_print_usage);
    golden_assert("usage-sprio", got);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_shows_weighted_factors),
        cmocka_unit_test(long_shows_every_factor),
        cmocka_unit_test(norm_shows_factors_and_priority_fraction),
        cmocka_unit_test(format_letters),
        cmocka_unit_test(weights_line),
        cmocka_unit_test(user_filter_adds_user_column),
        cmocka_unit_test(job_filter),
        cmocka_unit_test(unknown_job_says_so),
        cmocka_unit_test(noheader),
        cmocka_unit_test(tres_column),
        cmocka_unit_test(tres_weights_of_zero_add_no_column),
        cmocka_unit_test(bad_letters_are_listed),
        cmocka_unit_test(basic_priority_is_refused),
        cmocka_unit_test(help_and_usage_are_slurms),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
