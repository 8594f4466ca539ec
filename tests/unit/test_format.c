/* SPDX-License-Identifier: Apache-2.0
 *
 * test_format.c - squeue/sinfo/scontrol output against real Slurm's
 *
 * The formatter is checked on its own (widths, truncation, -o and -O
 * parsing), then job, node and partition records shaped like the
 * controller's (docs/protocol.md) are built to reproduce the queue of the
 * Slurm 22.05.8 golden cases and run through the same printers the commands
 * use; the output must equal the golden stdout byte for byte.  Golden files
 * are copies under tests/unit/data/slurm-golden/.  Times are UTC here; the
 * golden timestamps are taken as UTC so that they line up.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "golden.h"

#include "cmd/lib/format.h"
#include "cmd/lib/print_fields.h"
#include "cmd/lib/scontrol_print.h"
#include "cmd/lib/sinfo_print.h"
#include "cmd/lib/squeue_print.h"
#include "cmd/lib/states.h"
#include "common/xalloc.h"

/* --- helpers ------------------------------------------------------------- */

static time_t ts(const char *s)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    assert_non_null(strptime(s, "%Y-%m-%dT%H:%M:%S", &tm));
    return timegm(&tm);
}

/* Parse a record; string values "@YYYY-MM-DDTHH:MM:SS" become epochs. */
static json_t *rec(const char *text)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    const char *key;
    json_t *v;

    if (!o)
        fail_msg("bad test JSON: %s: %s", jerr.text, text);
    json_object_foreach(o, key, v) {
        if (json_is_string(v) && json_string_value(v)[0] == '@')
            json_object_set_new(o, key,
                                json_integer(ts(json_string_value(v) + 1)));
    }
    return o;
}

/* data/slurm-golden/<name>.stdout (golden.h); a missing file fails. */
static char *golden(const char *name)
{
    char file[256], *text;

    snprintf(file, sizeof(file), "%s.stdout", name);
    if (!(text = golden_text(file)))
        fail_msg("golden file %s not found", file);
    return text;
}

/* Drop the first line (a date). */
static const char *after_first_line(const char *s)
{
    const char *nl = strchr(s, '\n');

    return nl ? nl + 1 : s;
}

/* --- the formatter ------------------------------------------------------- */

static char *pad(const char *v, int width, bool right, bool cut)
{
    struct fmt_buf b = {0};

    fmt_pad(&b, v, width, right, cut);
    fmt_buf_puts(&b, "");
    return b.s;
}

static void pad_follows_slurm_print_str(void **state)
{
    static const struct {
        const char *v;
        int width;
        bool right, cut;
        const char *want;
    } cases[] = {
        {"gpu", 9, true, true, "      gpu"},
        {"gpu", 9, false, true, "gpu      "},
        {"8385_[2-7%2]", 10, true, true, "8385_[2-7%"}, /* %.10i cuts */
        {"TIME_LIMIT", 9, true, true, "TIME_LIMI"},
        {"n[1-200]", 4, true, false, "n[1-200]"},   /* node lists: no cut */
        {"n[1-200]", 4, false, false, "n[1-"},      /* "%.4s" always cuts */
        {"anything", 0, true, true, "anything"},    /* no width: as is */
        {"", 3, false, true, "   "},
        {NULL, 2, true, true, "  "},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = pad(cases[i].v, cases[i].width, cases[i].right,
                        cases[i].cut);

        assert_string_equal(got, cases[i].want);
        free(got);
    }
}

/* The record is the text printed. */
static void p_text(struct fmt_buf *out, const void *rec, const void *ctx)
{
    (void)ctx;
    fmt_buf_puts(out, rec);
}

/* A line pads each value in place (fmt_row_append()): as fmt_pad() would,
 * for every width, justification and cut, with a value written after
 * others on the line, and escaped when it holds a control character. */
static void row_pads_in_place_as_fmt_pad(void **state)
{
    static const char *const values[] = {"", "ab", "abcdef", "x\ny\tz",
                                         "h\xc3\xa9llo", "\x7f"};
    static const int widths[] = {0, 1, 2, 3, 5, 8, 12};

    (void)state;
    for (int cut = 0; cut < 2; cut++) {
        struct fmt_field table[] = {
            {'v', "v", "V", p_text, cut ? 0 : FMT_NOCUT},
            {0, NULL, NULL, NULL, 0}};

        for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
            for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
                for (int right = 0; right < 2; right++) {
                    struct fmt_item items[2] = {
                        {&table[0], 3, false, "|"},
                        {&table[0], widths[w], right, "#"}};
                    struct fmt_spec spec = {.prefix = "<", .items = items,
                                            .count = 2};
                    struct fmt_buf want = {0};
                    char *got = fmt_row(&spec, values[v], NULL);

                    fmt_buf_puts(&want, "<");
                    fmt_pad(&want, values[v], 3, false, cut);
                    fmt_buf_puts(&want, "|");
                    fmt_pad(&want, values[v], widths[w], right, cut);
                    fmt_buf_puts(&want, "#");
                    assert_string_equal(got, fmt_buf_str(&want));
                    free(got);
                    free(want.s);
                }
    }
}

static void p_a(struct fmt_buf *out, const void *rec_, const void *ctx)
{
    fmt_buf_puts(out, (const char *)rec_);
}

static void p_b(struct fmt_buf *out, const void *rec_, const void *ctx)
{
    fmt_buf_puts(out, "bee");
}

static const struct fmt_field test_fields[] = {
    {'a', "Alpha", "ALPHA", p_a, 0},
    {'b', "Beta", "BETA", p_b, 0},
    {0, NULL, NULL, NULL, 0},
};

static void parse_keeps_prefix_suffix_and_widths(void **state)
{
    struct fmt_spec *spec = fmt_parse("<%.6a|%-4b>%%%b", test_fields);
    char *line;

    (void)state;
    assert_string_equal(spec->prefix, "<");
    assert_int_equal(spec->count, 3);
    assert_true(spec->items[0].right);
    assert_int_equal(spec->items[0].width, 6);
    assert_string_equal(spec->items[0].suffix, "|");
    assert_false(spec->items[1].right);
    assert_int_equal(spec->items[1].width, 4);
    assert_string_equal(spec->items[1].suffix, ">");
    assert_int_equal(spec->bad, 0);
    line = fmt_row(spec, "xy", NULL);
    assert_string_equal(line, "<    xy|bee >bee");
    free(line);
    line = fmt_header(spec);
    assert_string_equal(line, "< ALPHA|BETA>BETA");
    free(line);
    fmt_spec_destroy(spec);
}

static void parse_skips_unknown_letter(void **state)
{
    struct fmt_spec *spec = fmt_parse("%a %z %b", test_fields);

    (void)state;
    assert_int_equal(spec->bad, 'z');
    assert_int_equal(spec->count, 2);
    fmt_spec_destroy(spec);
    spec = fmt_parse("", test_fields);
    assert_int_equal(spec->count, 0);
    assert_string_equal(spec->prefix, "");
    fmt_spec_destroy(spec);
}

static void parse_long_names_and_widths(void **state)
{
    struct fmt_spec *spec =
        fmt_parse_long("alpha:5,BETA,nosuch,Beta:.7", test_fields, 20);
    char *line;

    (void)state;
    assert_int_equal(spec->count, 3);
    assert_string_equal(spec->bad_name, "nosuch");
    assert_int_equal(spec->items[1].width, 20);
    assert_true(spec->items[2].right);
    line = fmt_row(spec, "x", NULL);
    assert_string_equal(line, "x    bee                     bee");
    free(line);
    fmt_spec_destroy(spec);
}

/* --- squeue -------------------------------------------------------------- */

/* The "mixed" queue of the golden cases, in the controller's (creation)
 * order: running train (8379, n1), sweep (8382, n[1-2]) and array arr's
 * tasks 0 and 1 (8386, 8387 on n1); pending bigsim (8380, Resources, backfill
 * start 06:41:21), wide (8381, Priority, 08:41:00), post (8383, Dependency),
 * held (8384, JobHeldUser) and arr's remaining tasks 2-7 (8385).  Priorities
 * are the golden's; arr's pending record gets one more point than post's,
 * which is how their order came out in that run (equal priorities may come
 * out either way).
 */
static const char *const mixed_queue[] = {
    "{\"job_id\":8379,\"name\":\"train\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"RUNNING\","
    "\"state_reason\":\"None\",\"priority\":7666,\"submit_time\":"
    "\"@2026-11-21T06:11:18\",\"start_time\":\"@2026-11-21T06:11:18\","
    "\"time_limit_s\":3600,\"nodes\":\"n1\",\"node_count\":1,\"num_cpus\":16}",
    "{\"job_id\":8380,\"name\":\"bigsim\",\"user_id\":1002,\"user_name\":"
    "\"bob\",\"partition\":\"gpu\",\"job_state\":\"PENDING\","
    "\"state_reason\":\"Resources\",\"priority\":4333,\"start_time\":"
    "\"@2026-11-21T06:41:21\",\"time_limit_s\":7200,\"nodes\":\"\","
    "\"nodes_min\":2,\"nodes_max\":2,\"num_cpus\":2}",
    "{\"job_id\":8381,\"name\":\"wide\",\"user_id\":1002,\"user_name\":"
    "\"bob\",\"partition\":\"gpu\",\"job_state\":\"PENDING\","
    "\"state_reason\":\"Priority\",\"priority\":4333,\"start_time\":"
    "\"@2026-11-21T08:41:00\",\"time_limit_s\":1800,\"nodes\":\"\","
    "\"nodes_min\":3,\"num_cpus\":3}",
    "{\"job_id\":8382,\"name\":\"sweep\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"RUNNING\","
    "\"state_reason\":\"None\",\"priority\":7666,\"start_time\":"
    "\"@2026-11-21T06:11:21\",\"time_limit_s\":1800,\"nodes\":\"n[1-2]\","
    "\"node_count\":2,\"num_cpus\":2}",
    "{\"job_id\":8383,\"name\":\"post\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"PENDING\","
    "\"state_reason\":\"Dependency\",\"priority\":7666,\"time_limit_s\":600,"
    "\"nodes\":\"\",\"nodes_min\":1,\"num_cpus\":1}",
    "{\"job_id\":8384,\"name\":\"held\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"PENDING\","
    "\"state_reason\":\"JobHeldUser\",\"priority\":0,\"time_limit_s\":600,"
    "\"nodes\":\"\",\"nodes_min\":1,\"num_cpus\":1,\"hold\":true}",
    "{\"job_id\":8385,\"name\":\"arr\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"PENDING\","
    "\"state_reason\":\"JobArrayTaskLimit\",\"priority\":7667,"
    "\"time_limit_s\":1800,\"nodes\":\"\",\"nodes_min\":1,\"num_cpus\":4,"
    "\"array_job_id\":8385,\"array_task_str\":\"2-7%2\"}",
    "{\"job_id\":8386,\"name\":\"arr\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"RUNNING\","
    "\"state_reason\":\"None\",\"priority\":7666,\"start_time\":"
    "\"@2026-11-21T06:11:21\",\"time_limit_s\":1800,\"nodes\":\"n1\","
    "\"node_count\":1,\"num_cpus\":4,\"array_job_id\":8385,"
    "\"array_task_id\":0}",
    "{\"job_id\":8387,\"name\":\"arr\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"RUNNING\","
    "\"state_reason\":\"None\",\"priority\":7666,\"start_time\":"
    "\"@2026-11-21T06:11:21\",\"time_limit_s\":1800,\"nodes\":\"n1\","
    "\"node_count\":1,\"num_cpus\":4,\"array_job_id\":8385,"
    "\"array_task_id\":1}",
};

/* Select, sort (by 'sort', NULL: squeue's default) and print records as
 * squeue does; returns the output.
 */
static char *run_squeue_sorted(const char *const *texts, size_t n,
                               const struct squeue_filter *f,
                               const char *format, bool long_format,
                               bool noheader, time_t now, const char *sort)
{
    struct squeue_ctx ctx = {.now = now};
    struct fmt_spec *spec = long_format
                                ? fmt_parse_long(format, squeue_fields, 20)
                                : fmt_parse(format, squeue_fields);
    json_t **recs = calloc(n, sizeof(*recs));
    const json_t **sel = calloc(n, sizeof(*sel));
    char *out = NULL;
    size_t len = 0, nsel = 0;
    FILE *m = open_memstream(&out, &len);

    assert_int_equal(spec->bad, 0);
    assert_null(spec->bad_name);
    for (size_t i = 0; i < n; i++) {
        recs[i] = rec(texts[i]);
        if (squeue_job_selected(recs[i], f))
            sel[nsel++] = recs[i];
    }
    squeue_sort(sel, nsel, sort, now);
    squeue_print(m, spec, sel, nsel, &ctx, noheader);
    fclose(m);
    for (size_t i = 0; i < n; i++)
        json_decref(recs[i]);
    free(recs);
    free(sel);
    fmt_spec_destroy(spec);
    return out;
}

static char *run_squeue(const char *const *texts, size_t n,
                        const struct squeue_filter *f, const char *format,
                        bool long_format, bool noheader, time_t now)
{
    return run_squeue_sorted(texts, n, f, format, long_format, noheader, now,
                             NULL);
}

#define MIXED_NOW ts("2026-11-21T06:11:33")
#define NQ (sizeof(mixed_queue) / sizeof(mixed_queue[0]))

static void squeue_default_mixed(void **state)
{
    struct squeue_filter f = {0};
    char *out = run_squeue(mixed_queue, NQ, &f, SQUEUE_FORMAT_DEFAULT, false,
                           false, MIXED_NOW);

    (void)state;
    golden_assert("squeue-default-mixed", out);
    free(out);
    out = run_squeue(mixed_queue, NQ, &f, "%.18i %.9P %.8j %.8u %.2t %.10M "
                                          "%.6D %R",
                     false, false, MIXED_NOW);
    golden_assert("squeue-format-o", out);
    free(out);
}

static void squeue_long(void **state)
{
    struct squeue_filter f = {0};
    char *out = run_squeue(mixed_queue, NQ, &f, SQUEUE_FORMAT_LONG, false,
                           false, MIXED_NOW);
    char *want = golden("squeue-long");

    (void)state;
    /* The first golden line is the date squeue.c prints. */
    assert_string_equal(after_first_line(want), out);
    free(want);
    free(out);
}

static void squeue_selections(void **state)
{
    struct squeue_filter f = {0};
    int pd = job_state_lookup("PD"), r = job_state_lookup("R");
    uid_t bob = 1002;
    char *out;

    (void)state;
    out = run_squeue(mixed_queue, NQ, &f, "%i", false, true, MIXED_NOW);
    golden_assert("squeue-noheader-ids", out);
    free(out);
    f.states = &pd;
    f.nstates = 1;
    out = run_squeue(mixed_queue, NQ, &f, "%i %r", false, false, MIXED_NOW);
    golden_assert("squeue-pending-reasons", out);
    free(out);
    f.states = &r;
    out = run_squeue(mixed_queue, NQ, &f, SQUEUE_FORMAT_DEFAULT, false, false,
                     MIXED_NOW);
    golden_assert("squeue-states-R", out);
    free(out);
    memset(&f, 0, sizeof(f));
    f.uids = &bob;
    f.nuids = 1;
    f.users_given = true;
    out = run_squeue(mixed_queue, NQ, &f, SQUEUE_FORMAT_DEFAULT, false, false,
                     MIXED_NOW);
    golden_assert("squeue-user-bob", out);
    free(out);
}

static void squeue_format_long_names(void **state)
{
    struct squeue_filter f = {0};
    char *out = run_squeue(mixed_queue, NQ, &f, "JobID,Name:30,State,Reason",
                           true, false, MIXED_NOW);

    (void)state;
    golden_assert("squeue-format-O", out);
    free(out);
}

/* Job 8388 (quick) completed a few seconds before; 8389 ran at once,
 * 8390 (-N 10) pends on PartitionNodeLimit, later both cancelled.
 */
static const char quick_job[] =
    "{\"job_id\":8388,\"name\":\"quick\",\"user_id\":1001,\"user_name\":"
    "\"alice\",\"partition\":\"gpu\",\"job_state\":\"COMPLETED\","
    "\"state_reason\":\"None\",\"priority\":7666,\"start_time\":"
    "\"@2026-11-21T06:11:39\",\"end_time\":\"@2026-11-21T06:11:39\","
    "\"time_limit_s\":-1,\"nodes\":\"\",\"last_nodes\":\"n1\",\"num_cpus\":1}";

static void squeue_finished_jobs(void **state)
{
    const char *const jobs[] = {quick_job};
    uint32_t id = 8388;
    struct squeue_filter f = {.job_ids = &id, .njob_ids = 1};
    time_t now = ts("2026-11-21T06:11:45");
    char *out;

    (void)state;
    out = run_squeue(jobs, 1, &f, SQUEUE_FORMAT_DEFAULT, false, false, now);
    golden_assert("squeue-finished-job", out);
    free(out);
    f.all_states = true;
    out = run_squeue(jobs, 1, &f, SQUEUE_FORMAT_DEFAULT, false, false, now);
    golden_assert("squeue-finished-job-t-all", out);
    free(out);
}

static void squeue_cancelled_and_odd_reasons(void **state)
{
    const char *const jobs[] = {
        "{\"job_id\":8389,\"name\":\"wrap\",\"user_id\":1001,\"job_state\":"
        "\"COMPLETED\",\"state_reason\":\"None\",\"start_time\":"
        "\"@2026-11-21T06:12:22\",\"end_time\":\"@2026-11-21T06:12:22\","
        "\"nodes\":\"\",\"last_nodes\":\"n1\"}",
        "{\"job_id\":8390,\"name\":\"wrap\",\"user_id\":1001,\"job_state\":"
        "\"PENDING\",\"state_reason\":\"PartitionNodeLimit\",\"nodes_min\":10,"
        "\"nodes\":\"\"}",
        "{\"job_id\":8390,\"name\":\"wrap\",\"user_id\":1001,\"job_state\":"
        "\"CANCELLED\",\"state_reason\":\"PartitionNodeLimit\","
        "\"nodes_min\":10,\"nodes\":\"\",\"end_time\":\"@2026-11-21T06:12:30\"}",
    };
    uint32_t ids[] = {8389, 8390};
    struct squeue_filter f = {.job_ids = ids, .njob_ids = 2};
    time_t now = ts("2026-11-21T06:12:30");
    char *out;

    (void)state;
    out = run_squeue(jobs, 2, &f, "%i %j %t %D %r", false, false, now);
    golden_assert("squeue-odd-pending-reasons", out);
    free(out);
    f.all_states = true;
    out = run_squeue((const char *const[]){jobs[0], jobs[2]}, 2, &f,
                     "%i %j %T %r", false, false, now);
    golden_assert("squeue-cancelled-just-now", out);
    free(out);
}

static void squeue_running_held(void **state)
{
    const char *const jobs[] = {
        "{\"job_id\":8379,\"name\":\"train\",\"user_id\":1001,\"job_state\":"
        "\"RUNNING\",\"state_reason\":\"JobHeldUser\",\"priority\":0,"
        "\"start_time\":\"@2026-11-21T06:11:18\",\"nodes\":\"n1\"}",
        "{\"job_id\":8383,\"name\":\"post\",\"user_id\":1001,\"job_state\":"
        "\"PENDING\",\"state_reason\":\"Dependency\",\"priority\":7666,"
        "\"nodes\":\"\"}",
    };
    uint32_t ids[] = {8379, 8383};
    struct squeue_filter f = {.job_ids = ids, .njob_ids = 2};
    char *out = run_squeue(jobs, 2, &f, "%.8i %.8j %.2t %.10M %.20r %.10Q",
                           false, false, ts("2026-11-21T06:12:22"));

    (void)state;
    golden_assert("squeue-running-held", out);
    free(out);
}

/* The busier queue of squeue-O-gres and squeue-sort-format: more of alice's
 * jobs (h2 held, a2 an array with task 0 running, g8 over the GPU limit),
 * in the order the controller listed them.
 */
#define J(id, user, st, prio, cpus, extra)                                     \
    "{\"job_id\":" #id ",\"user_id\":1001,\"user_name\":\"" user "\","      \
    "\"partition\":\"gpu\",\"job_state\":\"" st "\",\"priority\":" #prio     \
    ",\"num_cpus\":" #cpus ",\"nodes\":\"\"" extra "}"

static const char *const busy_queue[] = {
    J(8397, "alice", "PENDING", 7666, 1,
      ",\"array_job_id\":8397,\"array_task_str\":\"1-3%1\""),
    J(8398, "alice", "PENDING", 7666, 1, ",\"tres_per_node\":\"gres:gpu:8\""),
    J(8385, "alice", "PENDING", 7666, 4,
      ",\"array_job_id\":8385,\"array_task_str\":\"2-7%2\""),
    J(8383, "alice", "PENDING", 7666, 1, ""),
    J(8381, "bob", "PENDING", 4333, 3, ""),
    J(8396, "alice", "PENDING", 0, 1, ""),
    J(8384, "alice", "PENDING", 0, 1, ""),
    J(8399, "alice", "RUNNING", 7666, 1,
      ",\"start_time\":\"@2026-11-21T06:13:27\",\"array_job_id\":8397,"
      "\"array_task_id\":0"),
    J(8382, "alice", "RUNNING", 7666, 2,
      ",\"start_time\":\"@2026-11-21T06:11:21\""),
    J(8386, "alice", "RUNNING", 7666, 4,
      ",\"start_time\":\"@2026-11-21T06:11:21\",\"array_job_id\":8385,"
      "\"array_task_id\":0"),
    J(8387, "alice", "RUNNING", 7666, 4,
      ",\"start_time\":\"@2026-11-21T06:11:21\",\"array_job_id\":8385,"
      "\"array_task_id\":1"),
    J(8379, "alice", "RUNNING", 7666, 16,
      ",\"start_time\":\"@2026-11-21T06:11:18\","
      "\"tres_per_node\":\"gres:gpu:2\""),
    J(8380, "bob", "RUNNING", 4333, 64,
      ",\"start_time\":\"@2026-11-21T06:12:40\""),
};

static void squeue_busy_queue(void **state)
{
    const size_t n = sizeof(busy_queue) / sizeof(busy_queue[0]);
    struct squeue_filter f = {0};
    time_t now = ts("2026-11-21T06:13:40");
    char *out;

    (void)state;
    out = run_squeue(busy_queue, n, &f,
                     "JobID:10,UserName:8,tres-per-node:20,NumCPUs:6,"
                     "MinMemory:10,State:10",
                     true, false, now);
    golden_assert("squeue-O-gres", out);
    free(out);
    out = run_squeue_sorted(busy_queue, n, &f, "%.10i %.8u %.10T %.6C %.10b",
                            false, false, now, "i");
    golden_assert("squeue-sort-format", out);
    free(out);
}

/* squeue -s: the batch step of each running job, in job id order. */
static void squeue_steps(void **state)
{
    static const char *const jobs[] = {
        "{\"job_id\":8382,\"user_name\":\"alice\",\"partition\":\"gpu\","
        "\"job_state\":\"RUNNING\",\"start_time\":\"@2026-11-21T06:11:22\","
        "\"nodes\":\"n[1-2]\",\"batch_host\":\"n1\"}",
        "{\"job_id\":8379,\"user_name\":\"alice\",\"partition\":\"gpu\","
        "\"job_state\":\"RUNNING\",\"start_time\":\"@2026-11-21T06:11:19\","
        "\"nodes\":\"n1\"}",
        "{\"job_id\":8399,\"user_name\":\"alice\",\"partition\":\"gpu\","
        "\"job_state\":\"RUNNING\",\"start_time\":\"@2026-11-21T06:13:27\","
        "\"nodes\":\"n1\",\"array_job_id\":8397,\"array_task_id\":0}",
        "{\"job_id\":8387,\"user_name\":\"alice\",\"partition\":\"gpu\","
        "\"job_state\":\"RUNNING\",\"start_time\":\"@2026-11-21T06:11:22\","
        "\"nodes\":\"n1\",\"array_job_id\":8385,\"array_task_id\":1}",
        "{\"job_id\":8386,\"user_name\":\"alice\",\"partition\":\"gpu\","
        "\"job_state\":\"RUNNING\",\"start_time\":\"@2026-11-21T06:11:22\","
        "\"nodes\":\"n1\",\"array_job_id\":8385,\"array_task_id\":0}",
        "{\"job_id\":8380,\"user_name\":\"bob\",\"partition\":\"gpu\","
        "\"job_state\":\"RUNNING\",\"start_time\":\"@2026-11-21T06:12:41\","
        "\"nodes\":\"n[3-4]\"}",
    };
    const size_t n = sizeof(jobs) / sizeof(jobs[0]);
    struct squeue_ctx ctx = {.now = ts("2026-11-21T06:13:38")};
    struct fmt_spec *spec = fmt_parse(SQUEUE_FORMAT_STEPS, squeue_step_fields);
    json_t *recs[sizeof(jobs) / sizeof(jobs[0])];
    const json_t *sel[sizeof(jobs) / sizeof(jobs[0])];
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);

    (void)state;
    for (size_t i = 0; i < n; i++)
        sel[i] = recs[i] = rec(jobs[i]);
    squeue_sort(sel, n, "P,i", ctx.now);
    squeue_print(m, spec, sel, n, &ctx, false);
    fclose(m);
    golden_assert("squeue-steps", out);
    free(out);
    for (size_t i = 0; i < n; i++)
        json_decref(recs[i]);
    fmt_spec_destroy(spec);
}

/* --- scontrol show job --------------------------------------------------- */

/* Fields common to the golden jobs: alice or bob in account research,
 * submitted from localhost (session 30799) in /tmp/golden.
 */
#define ALICE                                                                  \
    "\"user_id\":1001,\"user_name\":\"alice\",\"group_id\":1001,"             \
    "\"group_name\":\"alice\",\"account\":\"research\",\"qos\":\"gpu4\","     \
    "\"partition\":\"gpu\",\"alloc_node\":\"localhost\",\"alloc_sid\":30799,"  \
    "\"work_dir\":\"/tmp/golden\",\"exit_status\":0,\"requeue\":true,"         \
    "\"batch_flag\":1"
#define BOB                                                                    \
    "\"user_id\":1002,\"user_name\":\"bob\",\"group_id\":1002,"               \
    "\"group_name\":\"bob\",\"account\":\"research\",\"qos\":\"normal\","     \
    "\"partition\":\"gpu\",\"alloc_node\":\"localhost\",\"alloc_sid\":30799,"  \
    "\"work_dir\":\"/tmp/golden\",\"exit_status\":0,\"requeue\":true,"         \
    "\"batch_flag\":1"

static const char train_job[] =
    "{\"job_id\":8379,\"name\":\"train\"," ALICE ",\"priority\":7666,"
    "\"job_state\":\"RUNNING\",\"state_reason\":\"None\","
    "\"submit_time\":\"@2026-11-21T06:11:18\","
    "\"eligible_time\":\"@2026-11-21T06:11:18\","
    "\"start_time\":\"@2026-11-21T06:11:18\",\"time_limit_s\":3600,"
    "\"nodes\":\"n1\",\"batch_host\":\"n1\",\"node_count\":1,\"num_cpus\":16,"
    "\"num_tasks\":1,\"cpus_per_task\":16,\"ntasks_per_node\":0,"
    "\"tres_alloc\":\"cpu=16,node=1,billing=16,gres/gpu=2\","
    "\"tres_per_node\":\"gres:gpu:2\",\"gres\":\"gpu:2\","
    "\"alloc\":[{\"node\":\"n1\",\"cpus\":16,\"cpu_ids\":\"0-15\","
    "\"mem_mib\":0,\"gpus\":\"0-1\"}]}";

static const char bigsim_pending[] =
    "{\"job_id\":8380,\"name\":\"bigsim\"," BOB ",\"priority\":4333,"
    "\"job_state\":\"PENDING\",\"state_reason\":\"Resources\","
    "\"submit_time\":\"@2026-11-21T06:11:19\","
    "\"eligible_time\":\"@2026-11-21T06:11:19\","
    "\"start_time\":\"@2026-11-21T06:41:21\","
    "\"end_time\":\"@2026-11-21T08:41:21\","
    "\"last_sched_eval\":\"@2026-11-21T06:11:42\",\"time_limit_s\":7200,"
    "\"nodes\":\"\",\"sched_nodes\":\"n[2-3]\",\"nodes_min\":2,\"nodes_max\":2,"
    "\"num_cpus\":2,\"num_tasks\":2,\"cpus_per_task\":1,\"exclusive\":true,"
    "\"tres_req\":\"cpu=2,mem=8000M,node=2,billing=2\"}";

static const char bigsim_running[] =
    "{\"job_id\":8380,\"name\":\"bigsim\"," BOB ",\"priority\":4333,"
    "\"job_state\":\"RUNNING\",\"state_reason\":\"None\","
    "\"submit_time\":\"@2026-11-21T06:11:19\","
    "\"eligible_time\":\"@2026-11-21T06:11:19\","
    "\"start_time\":\"@2026-11-21T06:12:40\",\"time_limit_s\":7200,"
    "\"nodes\":\"n[3-4]\",\"batch_host\":\"n3\",\"node_count\":2,"
    "\"nodes_min\":2,\"nodes_max\":2,\"num_cpus\":64,\"num_tasks\":2,"
    "\"cpus_per_task\":1,\"exclusive\":true,"
    "\"tres_req\":\"cpu=2,mem=8000M,node=2,billing=2\","
    "\"tres_alloc\":\"cpu=64,node=2,billing=64,gres/gpu=16\"}";

static const char held_job[] =
    "{\"job_id\":8384,\"name\":\"held\"," ALICE ",\"priority\":0,"
    "\"job_state\":\"PENDING\",\"state_reason\":\"JobHeldUser\","
    "\"submit_time\":\"@2026-11-21T06:11:21\",\"eligible_time\":0,"
    "\"time_limit_s\":600,\"nodes\":\"\",\"nodes_min\":1,\"num_cpus\":1,"
    "\"num_tasks\":1,\"cpus_per_task\":1,\"hold\":true,"
    "\"tres_req\":\"cpu=1,mem=4000M,node=1,billing=1\"}";

static const char post_job[] =
    "{\"job_id\":8383,\"name\":\"post\"," ALICE ",\"priority\":7666,"
    "\"job_state\":\"PENDING\",\"state_reason\":\"Dependency\","
    "\"dependency\":\"afterok:8379(unfulfilled)\","
    "\"submit_time\":\"@2026-11-21T06:11:21\",\"eligible_time\":0,"
    "\"time_limit_s\":600,\"nodes\":\"\",\"nodes_min\":1,\"num_cpus\":1,"
    "\"num_tasks\":1,\"cpus_per_task\":1,"
    "\"tres_req\":\"cpu=1,mem=4000M,node=1,billing=1\"}";

static const char quick_done[] =
    "{\"job_id\":8388,\"name\":\"quick\"," ALICE ",\"priority\":7666,"
    "\"job_state\":\"COMPLETED\",\"state_reason\":\"None\","
    "\"submit_time\":\"@2026-11-21T06:11:39\","
    "\"eligible_time\":\"@2026-11-21T06:11:39\","
    "\"start_time\":\"@2026-11-21T06:11:39\","
    "\"end_time\":\"@2026-11-21T06:11:39\",\"time_limit_s\":-1,"
    "\"nodes\":\"\",\"last_nodes\":\"n1\",\"num_cpus\":1,\"num_tasks\":1,"
    "\"cpus_per_task\":1,\"tres_alloc\":\"cpu=1,node=1,billing=1\"}";

static char *show_job(const char *text, const char *now, bool detail,
                      bool one_liner)
{
    struct scontrol_ctx ctx = {ts(now), one_liner, detail, 6818};
    json_t *job = rec(text);
    char *out = scontrol_sprint_job(job, &ctx);

    json_decref(job);
    return out;
}

static void scontrol_jobs(void **state)
{
    static const struct {
        const char *golden, *job, *now;
        bool detail, one_liner;
    } cases[] = {
        {"scontrol-show-job-running", train_job, "2026-11-21T06:11:50",
         false, false},
        {"scontrol-show-job-d-gpu", train_job, "2026-11-21T06:11:50", true,
         false},
        {"scontrol-o-show-job", train_job, "2026-11-21T06:11:50", false,
         true},
        {"scontrol-show-job-pending", bigsim_pending, "2026-11-21T06:11:50",
         false, false},
        {"scontrol-show-job-exclusive", bigsim_running,
         "2026-11-21T06:13:26", false, false},
        {"scontrol-show-job-held", held_job, "2026-11-21T06:11:50", false,
         false},
        {"scontrol-show-job-pending-dependency", post_job,
         "2026-11-21T06:11:50", false, false},
        {"scontrol-show-job-finished", quick_done, "2026-11-21T06:11:45",
         false, false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = show_job(cases[i].job, cases[i].now, cases[i].detail,
                             cases[i].one_liner);

        golden_assert(cases[i].golden, out);
        free(out);
    }
}

/* --- steps --------------------------------------------------------------- */

#define STEP_BATCH 0xfffffffbLL

static json_t *step_rec(json_int_t job, json_int_t step, int uid,
                        const char *start, const char *nodes,
                        const char *name)
{
    return json_pack("{s:I s:I s:i s:s s:s s:s s:I s:i s:i s:i s:s s:s}",
                     "job_id", job, "step_id", step, "user_id", uid, "state",
                     "RUNNING", "partition", "gpu", "nodes", nodes,
                     "start_time", (json_int_t)ts(start), "nnodes", 1,
                     "ntasks", 1, "ncpus", 16, "name", name, "alloc_tres",
                     "cpu=16,mem=4000M,node=1");
}

/* scontrol show step (golden scontrol-show-steps-all): the batch steps of
 * train (8379, alice 1001), bigsim (8380, bob 1002) and sweep (8382);
 * a batch step shows CPUs=0 and no TRES or srun whatever its record says.
 */
static void scontrol_steps(void **state)
{
    json_t *steps[] = {
        step_rec(8379, STEP_BATCH, 1001, "2026-11-21T06:11:18", "n1", "batch"),
        step_rec(8380, STEP_BATCH, 1002, "2026-11-21T06:12:40", "n3", "batch"),
        step_rec(8382, STEP_BATCH, 1001, "2026-11-21T06:11:21", "n1", "batch"),
    };
    struct scontrol_ctx ctx = {ts("2026-11-21T06:13:38"), false, false, 6818};
    char *all = xstrdup(""), *one, *t;

    (void)state;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        one = scontrol_sprint_step(steps[i], &ctx);
        t = xasprintf("%s%s", all, one);
        free(all);
        free(one);
        all = t;
        json_decref(steps[i]);
    }
    golden_assert("scontrol-show-steps-all", all);
    free(all);
}

/* An srun step: its CPUs, TRES, block distribution and srun's host:pid. */
static void scontrol_srun_step(void **state)
{
    json_t *st = step_rec(8379, 0, 1001, "2026-11-21T06:12:00", "n1", "sleep");
    struct scontrol_ctx ctx = {ts("2026-11-21T06:13:38"), false, false, 6818};
    char *out;

    (void)state;
    json_object_set_new(st, "srun_host", json_string("login1"));
    json_object_set_new(st, "srun_pid", json_integer(4242));
    out = scontrol_sprint_step(st, &ctx);
    assert_string_equal(
        out, "StepId=8379.0 UserId=1001 StartTime=2026-11-21T06:12:00 "
             "TimeLimit=UNLIMITED\n"
             "   State=RUNNING Partition=gpu NodeList=n1\n"
             "   Nodes=1 CPUs=16 Tasks=1 Name=sleep Network=(null)\n"
             "   TRES=cpu=16,mem=4000M,node=1\n"
             "   ResvPorts=(null)\n"
             "   CPUFreqReq=Default Dist=Block\n"
             "   SrunHost:Pid=login1:4242\n\n");
    free(out);
    json_decref(st);
}

/* squeue -s over jobs that carry step records: each job's running steps,
 * batch first (Slurm's order), finished ones left out, TIME from the
 * step's start. */
static void squeue_srun_steps(void **state)
{
    json_t *jobs[] = {
        rec("{\"job_id\":8379,\"user_name\":\"alice\",\"partition\":"
            "\"gpu\",\"job_state\":\"RUNNING\",\"start_time\":"
            "\"@2026-11-21T06:11:18\",\"nodes\":\"n1\"}"),
        rec("{\"job_id\":8382,\"user_name\":\"alice\",\"partition\":"
            "\"gpu\",\"job_state\":\"RUNNING\",\"start_time\":"
            "\"@2026-11-21T06:11:21\",\"nodes\":\"n[1-2]\"}"),
    };
    json_t *s8379 = json_pack(
        "[o o o]",
        step_rec(8379, STEP_BATCH, 1001, "2026-11-21T06:11:18", "n1", "batch"),
        step_rec(8379, 0, 1001, "2026-11-21T06:12:00", "n1", "sleep"),
        step_rec(8379, 1, 1001, "2026-11-21T06:12:30", "n1", "true"));
    json_t *s8382 = json_pack(
        "[o o]",
        step_rec(8382, STEP_BATCH, 1001, "2026-11-21T06:11:21", "n1", "batch"),
        step_rec(8382, 0, 1001, "2026-11-21T06:13:00", "n[1-2]", "hostname"));
    struct squeue_ctx ctx = {.now = ts("2026-11-21T06:13:38")};
    struct fmt_spec *spec = fmt_parse(SQUEUE_FORMAT_STEPS, squeue_step_fields);
    const json_t **sel, *sorted[2];
    json_t *rows, *row;
    char *out = NULL;
    size_t len = 0, i;
    FILE *m = open_memstream(&out, &len);

    (void)state;
    json_object_set_new(json_array_get(s8379, 2), "state",
                        json_string("COMPLETED"));
    json_object_set_new(jobs[0], "steps", s8379);
    json_object_set_new(jobs[1], "steps", s8382);
    sorted[0] = jobs[0];
    sorted[1] = jobs[1];
    rows = squeue_step_rows(sorted, 2);
    sel = calloc(json_array_size(rows) + 1, sizeof(*sel));
    json_array_foreach(rows, i, row)
        sel[i] = row;
    squeue_print(m, spec, sel, json_array_size(rows), &ctx, false);
    fclose(m);
    assert_string_equal(
        out,
        "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
        "     8379.batch    batch       gpu    alice      2:20 n1\n"
        "         8379.0    sleep       gpu    alice      1:38 n1\n"
        "     8382.batch    batch       gpu    alice      2:17 n1\n"
        "         8382.0 hostname       gpu    alice      0:38 n[1-2]\n");
    free(out);
    free(sel);
    json_decref(rows);
    json_decref(jobs[0]);
    json_decref(jobs[1]);
    fmt_spec_destroy(spec);
}

/* --- nodes and partitions ------------------------------------------------ */

/* The four golden nodes: 2 sockets x 16 cores, 4000 MiB, 8 GPUs, one slurmd
 * each on ports 17001-17004.  'state' and the rest vary per case.
 */
#define NODE(n, port)                                                          \
    "\"name\":\"n" #n "\",\"addr\":\"127.0.0.1\",\"hostname\":\"localhost\","  \
    "\"port\":" #port ",\"version\":\"22.05.8\",\"arch\":\"x86_64\","          \
    "\"os\":\"Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0\",\"cpus\":32,"  \
    "\"sockets\":2,\"cores_per_socket\":16,\"threads_per_core\":1,"            \
    "\"real_memory_mib\":4000,\"alloc_mem_mib\":0,\"gres\":\"gpu:8\","        \
    "\"weight\":1,\"partitions\":[\"gpu\"],"                                   \
    "\"boot_time\":\"@2026-11-21T04:10:49\","                                  \
    "\"cfg_tres\":\"cpu=32,mem=4000M,billing=32,gres/gpu=8\""

static const char node_n1[] =
    "{" NODE(1, 17001) ",\"state\":\"MIXED\",\"alloc_cpus\":25,"
    "\"gres_used\":\"gpu:2(IDX:0-1)\",\"cpu_load\":5,\"free_mem_mib\":23447,"
    "\"slurmd_start_time\":\"@2026-11-21T05:59:58\","
    "\"last_busy_time\":\"@2026-11-21T06:01:56\","
    "\"alloc_tres\":\"cpu=25,gres/gpu=2\"}";
static const char node_n2[] =
    "{" NODE(2, 17002) ",\"state\":\"MIXED\",\"alloc_cpus\":1}";
static const char node_n3_planned[] =
    "{" NODE(3, 17003) ",\"state\":\"IDLE\",\"planned\":true,"
    "\"alloc_cpus\":0}";
static const char node_n4_drained[] =
    "{" NODE(4, 17004) ",\"state\":\"IDLE\",\"drain\":true,\"alloc_cpus\":0,"
    "\"cpu_load\":2,\"free_mem_mib\":23440,"
    "\"slurmd_start_time\":\"@2026-11-21T05:59:59\","
    "\"last_busy_time\":\"@2026-11-21T05:59:59\",\"alloc_tres\":\"\","
    "\"reason\":\"bad gpu\",\"reason_user\":\"root\","
    "\"reason_time\":\"@2026-11-21T06:11:18\"}";
static const char node_n4_idle[] =
    "{" NODE(4, 17004) ",\"state\":\"IDLE\",\"alloc_cpus\":0}";
static const char node_n3_alloc[] =
    "{" NODE(3, 17003) ",\"state\":\"ALLOCATED\",\"alloc_cpus\":32}";
static const char node_n4_alloc[] =
    "{" NODE(4, 17004) ",\"state\":\"ALLOCATED\",\"alloc_cpus\":32}";

static const char part_gpu[] =
    "{\"name\":\"gpu\",\"default\":true,\"state\":\"UP\",\"nodes\":\"n[1-4]\","
    "\"total_cpus\":128,\"total_nodes\":4,\"max_time_s\":-1,"
    "\"default_time_s\":-1,\"max_nodes\":-1,\"priority_tier\":1,"
    "\"priority_job_factor\":1,"
    "\"tres\":\"cpu=128,mem=16000M,node=4,billing=128,gres/gpu=32\"}";

static void scontrol_nodes_and_partition(void **state)
{
    struct scontrol_ctx ctx = {ts("2026-11-21T06:12:00"), false, false, 6818};
    json_t *r;
    char *out;

    (void)state;
    r = rec(node_n1);
    out = scontrol_sprint_node(r, &ctx);
    golden_assert("scontrol-show-node-n1", out);
    free(out);
    json_decref(r);
    r = rec(node_n4_drained);
    out = scontrol_sprint_node(r, &ctx);
    golden_assert("scontrol-show-node-n4-drained", out);
    free(out);
    json_decref(r);
    r = rec(part_gpu);
    out = scontrol_sprint_partition(r, &ctx);
    golden_assert("scontrol-show-partition", out);
    free(out);
    json_decref(r);
}

/* --- sinfo --------------------------------------------------------------- */

static char *run_sinfo(const char *const *nodes, size_t n,
                       const struct sinfo_opts *opts, const char *format,
                       bool long_format, bool node_field, bool part_field)
{
    json_t *parts = json_array(), *arr = json_array();
    struct fmt_spec *spec = long_format
                                ? fmt_parse_long(format, sinfo_fields, 20)
                                : fmt_parse(format, sinfo_fields);
    struct sinfo_row *rows;
    size_t nrows, len = 0;
    char *out = NULL;
    FILE *m = open_memstream(&out, &len);

    assert_int_equal(spec->bad, 0);
    assert_null(spec->bad_name);
    json_array_append_new(parts, rec(part_gpu));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, rec(nodes[i]));
    rows = sinfo_rows_build(spec, parts, arr, opts, &nrows);
    if (!long_format)
        sinfo_fit_widths(spec, rows, nrows, node_field, part_field);
    sinfo_print(m, spec, rows, nrows, false);
    fclose(m);
    sinfo_rows_destroy(rows, nrows);
    fmt_spec_destroy(spec);
    json_decref(parts);
    json_decref(arr);
    return out;
}

static const char *const mixed_nodes[] = {node_n1, node_n2, node_n3_planned,
                                          node_n4_drained};

static void sinfo_partition_views(void **state)
{
    const char *const resumed[] = {node_n1, node_n2, node_n3_planned,
                                   node_n4_idle};
    const char *const busy[] = {node_n1, node_n2, node_n3_alloc,
                                node_n4_alloc};
    struct sinfo_opts o = {0};
    char *out;

    (void)state;
    out = run_sinfo(mixed_nodes, 4, &o, SINFO_FORMAT_DEFAULT, false, false,
                    true);
    golden_assert("sinfo-default", out);
    free(out);
    out = run_sinfo(resumed, 4, &o, SINFO_FORMAT_DEFAULT, false, false, true);
    golden_assert("sinfo-after-resume", out);
    free(out);
    out = run_sinfo(busy, 4, &o, SINFO_FORMAT_DEFAULT, false, false, true);
    golden_assert("sinfo-all-busy", out);
    free(out);
    out = run_sinfo(mixed_nodes, 4, &o, "%20N %10c %10m %20G %10t", false,
                    false, false);
    golden_assert("sinfo-format", out);
    free(out);
    o.summarize = true;
    out = run_sinfo(mixed_nodes, 4, &o, SINFO_FORMAT_SUMMARIZE, false, false,
                    true);
    golden_assert("sinfo-s", out);
    free(out);
}

static void sinfo_node_views(void **state)
{
    const char *const busy[] = {node_n1, node_n2, node_n3_alloc,
                                node_n4_alloc};
    struct sinfo_opts o = {.node_view = true};
    char *out, *want;

    (void)state;
    out = run_sinfo(mixed_nodes, 4, &o, SINFO_FORMAT_NODE, false, true, true);
    golden_assert("sinfo-N", out);
    free(out);
    out = run_sinfo(mixed_nodes, 4, &o, SINFO_FORMAT_NODE_LONG, false, true,
                    true);
    want = golden("sinfo-N-l");
    assert_string_equal(after_first_line(want), out);
    free(want);
    free(out);
    out = run_sinfo(busy, 4, &o, SINFO_FORMAT_NODE_LONG, false, true, true);
    want = golden("sinfo-N-l-all-busy");
    assert_string_equal(after_first_line(want), out);
    free(want);
    free(out);
    out = run_sinfo(mixed_nodes, 4, &o,
                    "NodeList,CPUsState,Gres:12,GresUsed:25,StateLong", true,
                    false, false);
    golden_assert("sinfo-node-gres-used", out);
    free(out);
}

static void sinfo_reasons(void **state)
{
    const char *const resumed[] = {node_n1, node_n2, node_n3_planned,
                                   node_n4_idle};
    struct sinfo_opts o = {.reasons = true};
    char *out;

    (void)state;
    out = run_sinfo(mixed_nodes, 4, &o, SINFO_FORMAT_REASONS, false, false,
                    false);
    golden_assert("sinfo-R", out);
    free(out);
    out = run_sinfo(resumed, 4, &o, SINFO_FORMAT_REASONS, false, false,
                    false);
    golden_assert("sinfo-R-none", out);
    free(out);
}

/* A value with a newline (a job name from an old record) cannot forge a
 * line of squeue or sacct output. */
static void control_characters_print_escaped(void **state)
{
    struct fmt_buf b = {0};
    char *e;

    (void)state;
    assert_null(fmt_escape("plain job"));
    assert_null(fmt_escape(NULL));
    e = fmt_escape("a\nb\tc\x1b[2J\x7f");
    assert_string_equal(e, "a\\nb\\tc\\x1b[2J\\x7f");
    free(e);
    fmt_pad(&b, "x\ny", 0, false, true);
    assert_string_equal(fmt_buf_str(&b), "x\\ny");
    fmt_buf_reset(&b);
    fmt_pad(&b, "x\ny", 3, false, true);
    assert_string_equal(fmt_buf_str(&b), "x\\n");
    fmt_buf_reset(&b);
    pf_cell(&b, PF_PARSABLE, NULL, "a\nb", 0, false, true); /* sacct -p */
    assert_string_equal(fmt_buf_str(&b), "a\\nb|");
    free(b.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pad_follows_slurm_print_str),
        cmocka_unit_test(control_characters_print_escaped),
        cmocka_unit_test(row_pads_in_place_as_fmt_pad),
        cmocka_unit_test(parse_keeps_prefix_suffix_and_widths),
        cmocka_unit_test(parse_skips_unknown_letter),
        cmocka_unit_test(parse_long_names_and_widths),
        cmocka_unit_test(squeue_default_mixed),
        cmocka_unit_test(squeue_long),
        cmocka_unit_test(squeue_selections),
        cmocka_unit_test(squeue_format_long_names),
        cmocka_unit_test(squeue_finished_jobs),
        cmocka_unit_test(squeue_cancelled_and_odd_reasons),
        cmocka_unit_test(squeue_running_held),
        cmocka_unit_test(squeue_steps),
        cmocka_unit_test(squeue_busy_queue),
        cmocka_unit_test(scontrol_jobs),
        cmocka_unit_test(scontrol_steps),
        cmocka_unit_test(scontrol_srun_step),
        cmocka_unit_test(squeue_srun_steps),
        cmocka_unit_test(scontrol_nodes_and_partition),
        cmocka_unit_test(sinfo_partition_views),
        cmocka_unit_test(sinfo_node_views),
        cmocka_unit_test(sinfo_reasons),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
