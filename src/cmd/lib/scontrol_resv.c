/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol_resv.c - the words of scontrol create|update reservation, and
 * show reservation in Slurm 22.05's layout (goldens resv-*)
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/format.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/scontrol_resv.h"
#include "common/timefmt.h"

/* Keys Slurm has that Drover refuses rather than ignore. */
static const char *const unsupported[] = {
    "Licenses", "BurstBuffer", "Features", "Watts",
    "Groups", "MaxStartDelay",
};

static int fail(const char *prog, const char *what, const char *msg)
{
    fprintf(stderr, "%s: error: %s%s\n", prog, what, msg);
    return -1;
}

static int set_time(const char *prog, json_t *b, const char *key,
                    const char *val, time_t now)
{
    time_t t;
    int pos;

    if (sbatch_parse_time(val, now, &t, &pos) < 0) {
        fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos,
                val);
        return fail(prog, "Invalid ", key);
    }
    json_object_set_new(b, key, json_integer(t));
    return 0;
}

static int set_flags(json_t *b, const char *val)
{
    json_t *a = json_array();
    char *copy = strdup(val), *save = NULL;

    for (char *f = strtok_r(copy, ",", &save); f;
         f = strtok_r(NULL, ",", &save))
        json_array_append_new(a, json_string(f));
    free(copy);
    json_object_set_new(b, "flags", a);
    return 0;
}

/* CoreCnt=N or N,M,... (one count per node): "core_cnts". */
static int set_cores(const char *prog, json_t *b, const char *val)
{
    json_t *a = json_array();
    char *copy = strdup(val), *save = NULL, *end;

    for (char *f = strtok_r(copy, ",", &save); f;
         f = strtok_r(NULL, ",", &save)) {
        long long n = strtoll(f, &end, 10);
        if (*end || n < 0) {
            free(copy);
            json_decref(a);
            return fail(prog, "Invalid core count ", val);
        }
        json_array_append_new(a, json_integer(n));
    }
    free(copy);
    json_object_set_new(b, "core_cnts", a);
    return 0;
}

/* TRES=cpu=N,gres/gpu=M,node=K: the CPUs, GPUs and nodes to reserve. */
static int set_tres(const char *prog, json_t *b, const char *val)
{
    char *copy = strdup(val), *save = NULL, *end;
    int rc = 0;

    for (char *f = strtok_r(copy, ",", &save); f && rc == 0;
         f = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(f, '=');
        long long n = eq ? strtoll(eq + 1, &end, 10) : -1;
        if (!eq || *end || n < 0) {
            rc = fail(prog, "Invalid TRES specification ", f);
            break;
        }
        *eq = '\0';
        if (!strcasecmp(f, "cpu"))
            json_object_set_new(b, "core_cnts", json_pack("[I]", n));
        else if (!strcasecmp(f, "gres/gpu"))
            json_object_set_new(b, "gpu_cnt", json_integer(n));
        else if (!strcasecmp(f, "node"))
            json_object_set_new(b, "node_cnt", json_integer(n));
        else
            rc = fail(prog, f, " in TRES= is not supported by Drover "
                               "(cpu, gres/gpu and node are)");
    }
    free(copy);
    return rc;
}

/* One Key=Value word into 'b'. */
static int word(const char *prog, json_t *b, const char *key,
                const char *val, time_t now)
{
    int64_t secs;

    for (size_t i = 0; i < sizeof(unsupported) / sizeof(*unsupported); i++)
        if (!strcasecmp(key, unsupported[i]))
            return fail(prog, key, "= is not supported by Drover");
    if (!strcasecmp(key, "ReservationName") || !strcasecmp(key, "Reservation"))
        json_object_set_new(b, "name", json_string(val));
    else if (!strcasecmp(key, "StartTime"))
        return set_time(prog, b, "start_time", val, now);
    else if (!strcasecmp(key, "EndTime"))
        return set_time(prog, b, "end_time", val, now);
    else if (!strcasecmp(key, "Duration")) {
        if (timefmt_parse_limit(val, &secs, NULL) < 0 || secs <= 0)
            return fail(prog, "Invalid duration ", val);
        json_object_set_new(b, "duration_s", json_integer(secs));
    } else if (!strcasecmp(key, "Nodes"))
        json_object_set_new(b, "nodes", json_string(val));
    else if (!strcasecmp(key, "NodeCnt"))
        json_object_set_new(b, "node_cnt", json_integer(atoll(val)));
    else if (!strcasecmp(key, "Users"))
        json_object_set_new(b, "users", json_string(val));
    else if (!strcasecmp(key, "Accounts"))
        json_object_set_new(b, "accounts", json_string(val));
    else if (!strcasecmp(key, "PartitionName"))
        json_object_set_new(b, "partition", json_string(val));
    else if (!strcasecmp(key, "Flags"))
        return set_flags(b, val);
    else if (!strcasecmp(key, "CoreCnt"))
        return set_cores(prog, b, val);
    else if (!strcasecmp(key, "TRES"))
        return set_tres(prog, b, val);
    else
        return fail(prog, "Unknown parameter ", key);
    return 0;
}

int scontrol_resv_parse(const char *prog, int argc, char **argv, bool update,
                        time_t now, json_t **body)
{
    json_t *b = json_object();

    *body = NULL;
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        char key[64];
        if (!eq || (size_t)(eq - argv[i]) >= sizeof(key)) {
            json_decref(b);
            return fail(prog, "Unknown parameter ", argv[i]);
        }
        snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
        if (!update && !strcasecmp(key, "reservation"))
            continue; /* "create reservation" written as a word */
        if (word(prog, b, key, eq + 1, now) < 0) {
            json_decref(b);
            return -1;
        }
    }
    if (!update && !json_object_get(b, "users")
        && !json_object_get(b, "accounts")) {
        json_decref(b);
        return fail(prog, "Either Users or Accounts must be specified.  ",
                    "No reservation created.");
    }
    if (update && !json_object_get(b, "name")) {
        json_decref(b);
        return fail(prog, "ReservationName must be specified.", "");
    }
    *body = b;
    return 0;
}

static void put(struct fmt_buf *b, bool one_liner)
{
    fmt_buf_puts(b, one_liner ? " " : "\n   ");
}

static void print_one(struct fmt_buf *b, const json_t *r, bool one_liner)
{
    char t1[32], t2[32], d[32];
    int64_t start = jint(r, "start_time", 0), end = jint(r, "end_time", 0);
    const json_t *flags = json_object_get(r, "flags");
    json_t *f;
    size_t i;

    fmt_buf_printf(b, "ReservationName=%s StartTime=%s EndTime=%s "
                      "Duration=%s",
                   jstr_or(r, "name", ""), timefmt_stamp(start, 0, t1, 32),
                   timefmt_stamp(end, 0, t2, 32),
                   timefmt_duration(end - start, 1, d, sizeof(d)));
    put(b, one_liner);
    fmt_buf_printf(b, "Nodes=%s NodeCnt=%lld CoreCnt=%lld Features=(null) "
                      "PartitionName=%s Flags=",
                   jstr_or(r, "nodes", ""), (long long)jint(r, "node_cnt", 0),
                   (long long)jint(r, "core_cnt", 0),
                   jstr_or(r, "partition", "(null)"));
    json_array_foreach(flags, i, f) {
        const char *name = json_string_value(f);
        fmt_buf_printf(b, "%s%s", i ? "," : "", name);
        if (name && !strcmp(name, "PURGE_COMP")) /* as Slurm: its time */
            fmt_buf_printf(b, "=%s",
                           timefmt_duration(jint(r, "purge_s", 300), 1, d,
                                            sizeof(d)));
    }
    put(b, one_liner);
    fmt_buf_printf(b, "TRES=cpu=%lld", (long long)jint(r, "core_cnt", 0));
    if (jint(r, "gpu_cnt", 0))
        fmt_buf_printf(b, ",gres/gpu=%lld", (long long)jint(r, "gpu_cnt", 0));
    put(b, one_liner);
    fmt_buf_printf(b, "Users=%s Groups=(null) Accounts=%s Licenses=(null) "
                      "State=%s BurstBuffer=(null) Watts=n/a",
                   jstr_or(r, "users", "(null)"),
                   jstr_or(r, "accounts", "(null)"),
                   jbool(r, "active", false) ? "ACTIVE" : "INACTIVE");
    put(b, one_liner);
    fmt_buf_puts(b, "MaxStartDelay=(null)\n");
    if (!one_liner)
        fmt_buf_puts(b, "\n");
}

void scontrol_resv_print(FILE *out, const json_t *resp, bool one_liner)
{
    const json_t *list = json_object_get(resp, "reservations");
    struct fmt_buf b = {0};
    json_t *r;
    size_t i;

    if (!json_array_size(list)) {
        fputs("No reservations in the system\n", out);
        return;
    }
    json_array_foreach(list, i, r)
        print_one(&b, r, one_liner);
    fputs(fmt_buf_str(&b), out);
    free(b.s);
}
