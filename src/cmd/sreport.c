/* SPDX-License-Identifier: Apache-2.0
 *
 * sreport.c - usage reports from the accounting rollups (Slurm's sreport)
 *
 * "sreport [options] cluster utilization|AccountUtilizationByUser
 * [conditions]" and "sreport user topusage [conditions]": the conditions
 * (start=, end=, format=, users=, accounts=, clusters=, topcount=, group)
 * become an acct_usage_report request to droverdbd (docs/protocol.md,
 * "Usage reports"), printed by sreport_print.c.  The window defaults to
 * yesterday 00:00 to today 00:00 and is rounded to whole hours as Slurm's
 * slurmdb_report_set_start_end_time() does.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/slurm_texts.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/sreport_print.h"
#include "cmd/lib/sreport_window.h"
#include "common/xalloc.h"

static const struct cmd_opt opts[] = {
    {"all_clusters", 'a', no_argument, NULL},
    {"cluster", 'M', required_argument, NULL},
    {"federation", CMD_OPT_LONG + 1, no_argument, NULL},
    {"help", 'h', no_argument, NULL},
    {"local", CMD_OPT_LONG + 2, no_argument, NULL},
    {"noheader", 'n', no_argument, NULL},
    {"parsable", 'p', no_argument, NULL},
    {"parsable2", 'P', no_argument, NULL},
    {"quiet", 'Q', no_argument, NULL},
    {"time", 't', required_argument, NULL},
    {"tres", 'T', required_argument, NULL},
    {"usage", 'u', no_argument, NULL},
    {"verbose", 'v', no_argument, NULL},
    {"version", 'V', no_argument, NULL},
    CMD_OPT_END,
};

struct args {
    const char *prog;
    struct sreport_out out;
    char *tres_str;
    const char *cluster;
    bool all_clusters;
    const char *report;
    const char *format;
    time_t start, end;
    json_t *users, *accounts;
    int64_t top_count;
    bool group;
};

/* sreport's message for a bad word, then exit 1. */
static void fail(const char *msg, const char *what)
{
    fprintf(stderr, "%s%s\n", msg, what);
    exit(1);
}

static void parse_options(int argc, char **argv, struct args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'a': a->all_clusters = true; break;
        case 'M': a->cluster = optarg; break;
        case 'n': a->out.noheader = true; break;
        case 'p': a->out.parsable = 1; break;
        case 'P': a->out.parsable = 2; break;
        case 'Q': case 'v': break;
        case CMD_OPT_LONG + 1: /* one cluster: federation and local */
        case CMD_OPT_LONG + 2: /* reports are the same */
            break;
        case 't':
            if (sreport_time_parse(optarg, &a->out.time) < 0)
                fail("unknown time format ", optarg);
            break;
        case 'T':
            free(a->tres_str);
            a->tres_str = xstrdup(optarg);
            break;
        case 'h': case 'u':
            fputs(sreport_help_text, stdout);
            exit(0);
        case 'V':
            cmd_print_version();
            exit(0);
        default:
            fprintf(stderr, "Try \"sreport --help\" for more information\n");
            exit(1);
        }
    }
}

static time_t midnight(time_t now, int days_back)
{
    struct tm tm;

    localtime_r(&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_mday -= days_back;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

static time_t parse_when(const struct args *a, const char *s, time_t now)
{
    time_t t;
    int pos;

    if (sbatch_parse_past(s, now, &t, &pos) < 0) {
        fprintf(stderr, "%s: error: Invalid time specification (pos=%d): "
                "%s\n", a->prog, pos, s);
        exit(1);
    }
    return t;
}

static json_t *name_list(const char *s)
{
    json_t *list = json_array();
    char *copy = xstrdup(s), *tok, *save = NULL;

    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        json_array_append_new(list, json_string(tok));
    free(copy);
    return list;
}

/* One "key=value" (or bare word) condition, Slurm's prefix rules. */
static void parse_condition(struct args *a, const char *arg, time_t now)
{
    const char *eq = strchr(arg, '=');
    size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *v = eq ? eq + 1 : NULL;

#define KEY(name, min) (klen >= (min) && !strncasecmp(arg, name, klen) \
                        && klen <= strlen(name))
    if (!v && KEY("all_clusters", 1))
        a->all_clusters = true;
    else if (!v && KEY("group", 1))
        a->group = true;
    else if (v && KEY("start", 1))
        a->start = parse_when(a, v, now);
    else if (v && KEY("end", 1))
        a->end = parse_when(a, v, now);
    else if (v && KEY("format", 1))
        a->format = v;
    else if (v && KEY("users", 1))
        a->users = name_list(v);
    else if (v && (KEY("accounts", 2) || KEY("acct", 4)))
        a->accounts = name_list(v);
    else if (v && KEY("clusters", 1))
        a->cluster = v;
    else if (v && KEY("topcount", 1))
        a->top_count = strtoll(v, NULL, 10);
    else
        fail(" Unknown condition: ", arg);
#undef KEY
}

/* The report a pair of words names, or exit as sreport does. */
static const char *report_of(const char *what, const char *which)
{
    size_t wl = strlen(what), rl = which ? strlen(which) : 0;

    if (wl >= 2 && !strncasecmp(what, "cluster", wl) && which) {
        if (!strncasecmp(which, "AccountUtilizationByUser", 1) && rl >= 1
            && !strncasecmp(which, "AccountUtilizationByUser", rl))
            return "account_utilization_by_user";
        if (rl >= 2 && !strncasecmp(which, "Utilization", rl))
            return "cluster_utilization";
        fprintf(stderr, "Not valid report %s\nValid cluster reports are, "
                "\"AccountUtilizationByUser\", \"Utilization\"\n", which);
        exit(1);
    }
    if (wl >= 1 && !strncasecmp(what, "user", wl) && which) {
        if (!strncasecmp(which, "Top", 1))
            return "user_topusage";
        fprintf(stderr, "Not valid report %s\nValid user reports are, "
                "\"Top\"\n", which);
        exit(1);
    }
    if (!which)
        fprintf(stderr, "too few arguments for keyword:%s\n", what);
    else
        fprintf(stderr, "invalid keyword: %s\n", what);
    exit(1);
}

/* The window: yesterday 00:00 to today 00:00 unless given. */
static void set_window(struct args *a, time_t now)
{
    if (!a->end)
        a->end = midnight(now, 0);
    if (!a->start)
        a->start = midnight(now, 1);
    sreport_window(&a->start, &a->end, now);
}

/* Split --tres into the list the printer walks. */
static const char **tres_list(const char *s, size_t *n)
{
    const char **v = xzalloc(9 * sizeof(*v));
    char *copy = xstrdup(s ? s : "cpu"), *tok, *save = NULL;

    *n = 0;
    for (tok = strtok_r(copy, ",", &save); tok && *n < 8;
         tok = strtok_r(NULL, ",", &save))
        v[(*n)++] = xstrdup(tok);
    free(copy);
    return v;
}

static void args_free(struct args *a)
{
    for (size_t i = 0; i < a->out.ntres; i++)
        free((char *)a->out.tres[i]);
    free((void *)a->out.tres);
    free(a->tres_str);
}

int main(int argc, char **argv)
{
    struct args a = {.prog = cmd_prog_name(argv[0]), .top_count = 10,
                     .out = {.time = SREPORT_MINS}};
    struct fmt_buf out = {0};
    drv_error_t error = {{0}};
    time_t now = time(NULL);
    json_t *body, *resp = NULL;
    const char *env = getenv("SREPORT_TRES");
    int rc = 0;

    if (env)
        a.tres_str = xstrdup(env);
    parse_options(argc, argv, &a);
    if (optind >= argc) {
        fputs(sreport_help_text, stderr);
        return 1;
    }
    a.report = report_of(argv[optind],
                         optind + 1 < argc ? argv[optind + 1] : NULL);
    for (int i = optind + 2; i < argc; i++)
        parse_condition(&a, argv[i], now);
    set_window(&a, now);
    if (!a.cluster && !a.all_clusters) {
        const struct slurm_conf *conf = cmd_conf(a.prog);
        a.cluster = conf->cluster_name ? conf->cluster_name : "cluster";
    }
    a.out.tres_given = a.tres_str != NULL;
    a.out.tres = tres_list(a.tres_str, &a.out.ntres);
    a.out.top_count = a.top_count;
    body = json_pack("{s:s s:I s:I s:s s:I s:b}", "report", a.report, "start",
                     (json_int_t)a.start, "end", (json_int_t)a.end, "tres",
                     a.tres_str ? a.tres_str : "cpu", "top_count",
                     (json_int_t)a.top_count, "group", a.group);
    if (a.cluster)
        json_object_set_new(body, "cluster", json_string(a.cluster));
    if (a.users)
        json_object_set_new(body, "users", a.users);
    if (a.accounts)
        json_object_set_new(body, "accounts", a.accounts);
    if (cmd_rpc_dbd(a.prog, "acct_usage_report", body, &resp, &error) < 0) {
        fprintf(stderr, "sreport: error: %s\n", error.text);
        rc = 1;
    } else if (sreport_print(&out, resp, a.format, &a.out, &error) < 0) {
        fprintf(stderr, "%s\n", error.text);
        rc = 1;
    } else {
        fputs(fmt_buf_str(&out), stdout);
    }
    free(out.s);
    json_decref(resp);
    args_free(&a);
    return rc;
}
