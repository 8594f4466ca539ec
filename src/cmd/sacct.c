/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct.c - accounting records of jobs and steps (Slurm's sacct)
 *
 * Builds an acct_job_query filter from the options (docs/protocol.md,
 * "Accounting daemon"), asks droverdbd at AccountingStorageHost:Port, and
 * prints the answer through sacct_print.c.  The time window follows Slurm:
 * since 00:00 today by default ("now" with -s), none with -j and no -S.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/names.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sacct_json.h"
#include "cmd/lib/sacct_print.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/states.h"
#include "common/xalloc.h"

enum {
    OPT_HELP = CMD_OPT_LONG,
    OPT_USAGE,
    OPT_NAME,
    OPT_UNITS,
    OPT_NOCONVERT,
    OPT_JSON,
    OPT_DELIMITER,
};

static const struct cmd_opt sacct_opts[] = {
    {"allusers", 'a', no_argument,
     "     -a, --allusers:\n"
     "\t           Display jobs for all users. By default, only the\n"
     "\t           current user's jobs are displayed.  If ran by user root\n"
     "\t           this is the default.\n"},
    {"accounts", 'A', required_argument,
     "     -A, --accounts:\n"
     "\t           Use this comma separated list of accounts to select jobs\n"
     "\t           to display.  By default, all accounts are selected.\n"},
    {"brief", 'b', no_argument,
     "     -b, --brief:\n"
     "\t           Equivalent to '--format=jobstep,state,error'.\n"},
    {"delimiter", OPT_DELIMITER, required_argument,
     "     --delimiter:\n"
     "\t           ASCII characters used to separate the fields when\n"
     "\t           specifying the  -p  or  -P options. The default delimiter\n"
     "\t           is a '|'. This option is ignored if -p or -P options are\n"
     "\t           not specified.\n"},
    {"duplicates", 'D', no_argument,
     "     -D, --duplicates:\n"
     "\t           If Slurm job ids are reset, some job numbers may\n"
     "\t           appear more than once referring to different jobs.\n"
     "\t           Without this option only the most recent jobs will be\n"
     "                   displayed.\n"},
    {"endtime", 'E', required_argument,
     "     -E, --endtime:\n"
     "\t           Select jobs eligible before this time.  If states are\n"
     "\t           given with the -s option then only jobs in this state\n"
     "\t           before this time will be returned.\n"},
    {"helpformat", 'e', no_argument,
     "     -e, --helpformat:\n"
     "\t           Print a list of fields that can be specified with the\n"
     "\t           '--format' option\n"},
    {"help", 'h', no_argument,
     "     -h, --help:\n"
     "\t           Print this description of use.\n"},
    {"jobs", 'j', required_argument,
     "     -j, --jobs:\n"
     "\t           Format is <job(.step)>. Display information about this\n"
     "\t           job or comma-separated list of jobs. The default is all\n"
     "\t           jobs. Adding .step will display the specific job step of\n"
     "\t           that job. (A step id of 'batch' will display the\n"
     "\t           information about the batch step.)\n"},
    {"json", OPT_JSON, no_argument,
     "     --json:\n"
     "\t           Produce JSON output\n"},
    {"long", 'l', no_argument,
     "     -l, --long:\n"
     "\t           Equivalent to specifying\n"
     "\t           '--format=jobid,jobidraw,jobname,partition,maxvmsize,\n"
     "\t           maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,\n"
     "\t           maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,\n"
     "\t           avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,\n"
     "\t           alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,\n"
     "\t           reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,\n"
     "\t           maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,\n"
     "\t           maxdiskwrite,maxdiskwritenode,maxdiskwritetask,\n"
     "\t           avediskwrite,reqtres,alloctres,tresusageinave,\n"
     "\t           tresusageinmax,tresusageinmaxn,tresusageinmaxt,\n"
     "\t           tresusageinmin,tresusageinminn,tresusageinmint,\n"
     "\t           tresusageintot,tresusageoutmax,tresusageoutmaxn,\n"
     "\t           tresusageoutmaxt,tresusageoutave,tresusageouttot\n"},
    {"name", OPT_NAME, required_argument,
     "     --name:\n"
     "\t           Display jobs that have any of these name(s).\n"},
    {"noconvert", OPT_NOCONVERT, no_argument,
     "     --noconvert:\n"
     "\t           Don't convert units from their original type\n"
     "\t           (e.g. 2048M won't be converted to 2G).\n"},
    {"noheader", 'n', no_argument,
     "     -n, --noheader:\n"
     "\t           No header will be added to the beginning of output.\n"
     "\t           The default is to print a header.\n"},
    {"format", 'o', required_argument,
     "     -o, --format:\n"
     "\t           Comma separated list of fields. (use \"--helpformat\"\n"
     "\t           for a list of available fields).\n"},
    {"parsable", 'p', no_argument,
     "     -p, --parsable: output will be '|' delimited with a '|' at the "
     "end\n"},
    {"parsable2", 'P', no_argument,
     "     -P, --parsable2: output will be '|' delimited without a '|' at "
     "the end\n"},
    {"partition", 'r', required_argument,
     "     -r, --partition:\n"
     "\t           Comma separated list of partitions to select jobs and\n"
     "\t           job steps from. The default is all partitions.\n"},
    {"state", 's', required_argument,
     "     -s, --state:\n"
     "\t           Select jobs based on their current state or the state\n"
     "\t           they were in during the time period given: running (r),\n"
     "\t           completed (cd), failed (f), timeout (to), resizing (rs),\n"
     "\t           deadline (dl) and node_fail (nf).\n"},
    {"starttime", 'S', required_argument,
     "     -S, --starttime:\n"
     "\t           Select jobs eligible after this time.  Default is\n"
     "\t           00:00:00 of the current day, unless '-s' is set then\n"
     "\t           the default is 'now'.\n"},
    {"user", 'u', required_argument,
     "     -u, --user:\n"
     "\t           Use this comma separated list of user names or user ids\n"
     "\t           to select jobs to display.  By default, the running\n"
     "\t           user's uid is used.\n"},
    {"units", OPT_UNITS, required_argument,
     "     --units=[KMGTP]:\n"
     "\t           Display values in specified unit type. Takes precedence\n"
     "\t           over --noconvert option.\n"},
    {"usage", OPT_USAGE, no_argument,
     "     --usage:\n"
     "\t           Display brief usage message.\n"},
    {"version", 'V', no_argument,
     "     -V, --version: Print version.\n"},
    {"allocations", 'X', no_argument,
     "     -X, --allocations:\n"
     "\t           Only show statistics relevant to the job allocation\n"
     "\t           itself, not taking steps into consideration.\n"},
    CMD_OPT_END,
};

static const char sacct_usage[] =
    "Usage: sacct [options]\n\tUse --help for help\n";

struct sacct_args {
    const char *prog;
    const char *format, *jobs, *users, *accounts, *partitions, *names;
    const char *states, *start, *end;
    bool brief, long_list, allocations, all_users, json, duplicates;
    struct sacct_output out;
    struct sacct_ctx ctx;
};

static void fatal(const char *prog, const char *msg, const char *arg)
{
    fprintf(stderr, "%s: fatal: %s%s\n", prog, msg, arg ? arg : "");
    exit(1);
}

static void handle_opt(struct sacct_args *a, int c, const char *arg)
{
    switch (c) {
    case 'a': a->all_users = true; break;
    case 'A': a->accounts = arg; break;
    case 'b': a->brief = true; break;
    case 'D': a->duplicates = true; break;
    case 'E': a->end = arg; break;
    case 'j': a->jobs = arg; break;
    case 'l': a->long_list = true; break;
    case 'n': a->out.header = false; break;
    case 'o': a->format = arg; break;
    case 'p': a->out.layout = SACCT_PARSABLE; break;
    case 'P': a->out.layout = SACCT_PARSABLE2; break;
    case 'r': a->partitions = arg; break;
    case 's': a->states = arg; break;
    case 'S': a->start = arg; break;
    case 'u': a->users = arg; break;
    case 'X': a->allocations = true; break;
    case OPT_NAME: a->names = arg; break;
    case OPT_NOCONVERT: a->ctx.noconvert = true; break;
    case OPT_JSON: a->json = true; break;
    case OPT_DELIMITER: a->out.delim = arg; break;
    case OPT_UNITS:
        if (!strchr("KMGTP", arg[0] & ~0x20) || arg[1])
            fatal(a->prog, "Invalid unit type: ", arg);
        a->ctx.units = (char)(arg[0] & ~0x20);
        break;
    default: break;
    }
}

static void parse_args(int argc, char **argv, struct sacct_args *a)
{
    int c;
    char *text;

    while ((c = cmd_getopt(argc, argv, sacct_opts)) != -1) {
        if (c == '?') {
            fprintf(stderr, "Try \"sacct --help\" for more information\n");
            exit(1);
        } else if (c == 'V') {
            cmd_print_version();
            exit(0);
        } else if (c == 'h') {
            cmd_print_help(stdout,
                           "sacct [<OPTION>]\n"
                           "    Valid <OPTION> values are:\n",
                           sacct_opts, NULL);
            exit(0);
        } else if (c == OPT_USAGE) {
            fputs(sacct_usage, stdout);
            exit(0);
        } else if (c == 'e') {
            fputs(text = sacct_helpformat(), stdout);
            free(text);
            exit(0);
        } else {
            handle_opt(a, c, optarg);
        }
    }
}

/* --- the filter -------------------------------------------------------- */

static json_t *split(const char *text)
{
    json_t *arr = json_array();
    char *copy = xstrdup(text), *save = NULL;

    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        json_array_append_new(arr, json_string(t));
    free(copy);
    return arr;
}

static json_t *user_ids(const struct sacct_args *a)
{
    json_t *arr = json_array(), *names = split(a->users), *v;
    size_t i;
    uid_t uid;

    json_array_foreach(names, i, v) {
        if (names_user_uid(json_string_value(v), &uid) < 0)
            fatal(a->prog, "Invalid user id: ", json_string_value(v));
        json_array_append_new(arr, json_integer(uid));
    }
    json_decref(names);
    return arr;
}

/* -s names or codes as the long names droverdbd matches. */
static json_t *state_names(const struct sacct_args *a)
{
    json_t *arr = split(a->states), *v;
    size_t i;

    json_array_foreach(arr, i, v) {
        job_state_t s = job_state_lookup(json_string_value(v));

        if (s < 0)
            fatal(a->prog, "unrecognized job state value", NULL);
        json_array_set_new(arr, i, json_string(job_state_name(s)));
    }
    return arr;
}

/* Slurm's parse_time() for sacct (sbatch_parse_past()). */
static time_t parse_when(const struct sacct_args *a, const char *s, time_t now)
{
    time_t t;
    int pos;

    /* Slurm's parse_time() logs the error, and sacct exits 1. */
    if (sbatch_parse_past(s, now, &t, &pos) < 0) {
        cmd_error(a->prog, "Invalid time specification (pos=%d): %s", pos, s);
        exit(1);
    }
    return t;
}

static time_t today_midnight(time_t now)
{
    struct tm tm;

    localtime_r(&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

static json_t *job_ids(const struct sacct_args *a,
                       struct sacct_jobspec **specs, size_t *n)
{
    json_t *arr = json_array(), *texts = split(a->jobs), *v;
    size_t i;

    *specs = xzalloc((json_array_size(texts) + 1) * sizeof(**specs));
    json_array_foreach(texts, i, v) {
        struct sacct_jobspec *sp = &(*specs)[i];
        json_t *id;

        if (sacct_jobspec_parse(json_string_value(v), sp) < 0) {
            /* Freed first: nothing is left for LeakSanitizer at exit. */
            char bad[256];

            snprintf(bad, sizeof(bad), "%s", json_string_value(v));
            json_decref(arr);
            json_decref(texts);
            FREE_NULL(*specs);
            fatal(a->prog, "Bad job/step specified: ", bad);
        }
        id = json_pack("{s:I}", "job_id", (json_int_t)sp->job_id);
        if (sp->task >= 0)
            json_object_set_new(id, "array_task_id", json_integer(sp->task));
        json_array_append_new(arr, id);
    }
    *n = json_array_size(texts);
    json_decref(texts);
    return arr;
}

static json_t *build_filter(const struct sacct_args *a, time_t now,
                            struct sacct_jobspec **specs, size_t *nspecs)
{
    json_t *f = json_object();
    time_t start = 0, end = 0;

    if (a->jobs)
        json_object_set_new(f, "job_ids", job_ids(a, specs, nspecs));
    /* Slurm: root, -a, and -j without -u look at every user's jobs
     * (droverdbd still limits a non-admin under PrivateData).
     */
    if (a->users)
        json_object_set_new(f, "user_ids", user_ids(a));
    else if (a->all_users || a->jobs || geteuid() == 0)
        json_object_set_new(f, "all_users", json_true());
    else
        json_object_set_new(f, "user_ids",
                            json_pack("[I]", (json_int_t)geteuid()));
    if (a->accounts)
        json_object_set_new(f, "accounts", split(a->accounts));
    if (a->partitions)
        json_object_set_new(f, "partitions", split(a->partitions));
    if (a->names)
        json_object_set_new(f, "names", split(a->names));
    if (a->states)
        json_object_set_new(f, "states", state_names(a));
    if (a->duplicates)
        json_object_set_new(f, "duplicates", json_true());
    if (a->start)
        start = parse_when(a, a->start, now);
    else if (!a->jobs)
        start = a->states ? now : today_midnight(now);
    if (a->end)
        end = parse_when(a, a->end, now);
    else if (start)
        end = now;
    if (start)
        json_object_set_new(f, "start", json_integer(start));
    if (end)
        json_object_set_new(f, "end", json_integer(end));
    return f;
}

/* --- talking to droverdbd ---------------------------------------------- */

static json_t *query(const struct sacct_args *a, json_t *filter)
{
    const struct slurm_conf *c = cmd_conf(a->prog);
    const char *type = c->accounting_storage_type;
    const char *host = c->accounting_storage_host;
    uint16_t port = c->accounting_storage_port; /* 6819 unless set */
    drv_error_t error = {{0}};
    json_t *resp = NULL;

    if (!type || strcmp(type, "accounting_storage/slurmdbd")) {
        json_decref(filter);
        cmd_error(a->prog, "Slurm accounting storage is disabled");
        exit(1);
    }
    if (!host)
        host = "localhost";
    if (cmd_rpc_to(a->prog, host, port, "acct_job_query", filter, &resp,
                   &error) < 0) {
        /* Slurm's three lines when slurmdbd cannot be reached; an error
         * answer of droverdbd is shown with its own text.
         */
        int err = errno;
        const char *why = err > 0 && err < 1000 ? strerror(err) : error.text;

        if (err == ECONNREFUSED || err == ETIMEDOUT || err == EHOSTUNREACH) {
            cmd_error(a->prog,
                      "slurm_persist_conn_open_without_init: failed to open "
                      "persistent connection to host:%s:%u: %s",
                      host, port, why);
            cmd_error(a->prog, "Sending PersistInit msg: %s", why);
        }
        cmd_error(a->prog, "Problem talking to the database: %s", why);
        exit(1);
    }
    return resp;
}

static const char *chosen_format(const struct sacct_args *a)
{
    if (a->format)
        return a->format;
    if (a->brief)
        return SACCT_FORMAT_BRIEF;
    if (a->long_list)
        return sacct_format_long;
    return SACCT_FORMAT_DEFAULT;
}

int main(int argc, char **argv)
{
    struct sacct_args a = {.prog = cmd_prog_name(argv[0]),
                           .out = {.layout = SACCT_COLUMNS, .header = true}};
    struct sacct_format fmt;
    struct sacct_jobspec *specs = NULL;
    struct sacct_row *rows;
    size_t nspecs = 0, nrows;
    char *bad = NULL, *text;
    json_t *resp;
    time_t now = time(NULL);

    parse_args(argc, argv, &a);
    if (sacct_format_parse(chosen_format(&a), &fmt, &bad) < 0) {
        cmd_error(a.prog, "Invalid field requested: \"%s\"", bad);
        free(bad);
        return 1;
    }
    resp = query(&a, build_filter(&a, now, &specs, &nspecs));
    a.ctx.now = (time_t)jint(resp, "now", now);
    a.ctx.cluster = cmd_conf(a.prog)->cluster_name;
    if (a.json) {
        sacct_json_print(stdout, json_object_get(resp, "jobs"), &a.ctx);
    } else {
        rows = sacct_rows(json_object_get(resp, "jobs"), a.allocations, specs,
                          nspecs, &nrows);
        text = sacct_render(&fmt, &a.out, rows, nrows, &a.ctx);
        fputs(text, stdout);
        free(text);
        free(rows);
    }
    json_decref(resp);
    free(specs);
    sacct_format_free(&fmt);
    return 0;
}
