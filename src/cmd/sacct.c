/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct.c - accounting records of jobs and steps (Slurm's sacct)
 *
 * Builds an acct_job_query filter from the options (docs/protocol.md,
 * "Accounting daemon"), asks droverdbd at AccountingStorageHost:Port, and
 * prints the answer through sacct_print.c.  The options are sacct_opt.c's
 * table (Slurm's --help); sacct_filter.c turns the selecting ones into the
 * filter.  Options needing data Drover does not keep are refused, naming
 * why (docs/compatibility.md).
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
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sacct_filter.h"
#include "cmd/lib/sacct_json.h"
#include "cmd/lib/sacct_opt.h"
#include "cmd/lib/sacct_print.h"
#include "common/xalloc.h"

static const char sacct_usage[] =
    "Usage: sacct [options]\n\tUse --help for help\n";

struct sacct_args {
    const char *prog;
    const char *format;
    struct sacct_query_opts q;
    bool brief, long_list, allocations, json, all_clusters;
    int verbose;
    struct sacct_output out;
    struct sacct_ctx ctx;
};

static void fatal(const char *prog, const char *msg, const char *arg)
{
    fprintf(stderr, "%s: fatal: %s%s\n", prog, msg, arg ? arg : "");
    exit(1);
}

/* An option whose data Drover does not have: refused, never ignored. */
static void refuse(const char *prog, const char *opt, const char *why)
{
    cmd_error(prog, "%s is not supported by Drover: %s", opt, why);
    exit(1);
}

/* Options that need what Drover does not keep (docs/compatibility.md). */
static void refuse_opt(const char *prog, int c)
{
    switch (c) {
    case 'B':
        refuse(prog, "--batch-script", "droverdbd does not store batch "
               "scripts (Slurm's AccountingStoreFlags=job_script)");
        break;
    case SACCT_OPT_ENV_VARS:
        refuse(prog, "--env-vars", "droverdbd does not store job "
               "environments (Slurm's AccountingStoreFlags=job_env)");
        break;
    case 'c':
        /* Slurm's answer when JobCompType=jobcomp/none, Drover's only. */
        fprintf(stderr, "Slurm job completion is disabled\n");
        exit(1);
    case 'f':
        refuse(prog, "--file", "it reads a jobcomp/filetxt log, and Drover "
               "has no job completion plugin (JobCompType)");
        break;
    case 'W':
        refuse(prog, "--wckeys", "jobs carry no wckey (TrackWCKey)");
        break;
    default:
        refuse(prog, "--yaml", "use --json");
        break;
    }
}

/* -M: "all" as -L; otherwise only this cluster's own name. */
static void clusters_opt(struct sacct_args *a, const char *arg)
{
    a->all_clusters = !strcasecmp(arg, "all") || !strcmp(arg, "-1");
    if (!cmd_clusters_check(a->prog, arg))
        exit(1);
}

static void whole_hetjob_opt(const char *prog, const char *arg)
{
    if (arg && strcasecmp(arg, "yes") && strcasecmp(arg, "y")
        && strcasecmp(arg, "no") && strcasecmp(arg, "n")) {
        cmd_error(prog, "Invalid --whole-hetjob value \"%s\". Valid values: "
                  "[yes|no].", arg);
        exit(1);
    }
}

/* The lists add_to_list() joined, freed at exit (none is left for
 * LeakSanitizer). */
static char **joined;
static size_t njoined;

static void joined_free(void)
{
    for (size_t i = 0; i < njoined; i++)
        free(joined[i]);
    free(joined);
}

/* A list option given again adds to the list, as Slurm's sacct does
 * (submitit polls with `sacct -j A -j B ...`).  The joined list lives
 * until the command exits. */
static void add_to_list(const char **list, const char *arg)
{
    if (!*list) {
        *list = arg;
        return;
    }
    if (!joined)
        atexit(joined_free);
    joined = xrealloc(joined, (njoined + 1) * sizeof(*joined));
    *list = joined[njoined++] = xasprintf("%s,%s", *list, arg);
}

/* The options that select jobs (sacct_filter.c builds the filter). */
static bool query_opt(struct sacct_query_opts *q, int c, const char *arg)
{
    switch (c) {
    case 'a': q->all_users = true; break;
    case 'A': add_to_list(&q->accounts, arg); break;
    case 'D': q->duplicates = true; break;
    case 'E': q->end = arg; break;
    case 'g': add_to_list(&q->groups, arg); break;
    case 'i': q->nnodes = arg; break;
    case 'I': q->ncpus = arg; break;
    case 'j': add_to_list(&q->jobs, arg); break;
    case 'k': q->timelimit_min = arg; break;
    case 'K': q->timelimit_max = arg; break;
    case 'N': q->nodelist = arg; break;
    case 'q': add_to_list(&q->qos, arg); break;
    case 'r': add_to_list(&q->partitions, arg); break;
    case 's': add_to_list(&q->states, arg); break;
    case 'S': q->start = arg; break;
    case 'T': q->truncate = true; break;
    case 'u': add_to_list(&q->users, arg); break;
    case 'x': add_to_list(&q->assoc_ids, arg); break;
    case SACCT_OPT_NAME: add_to_list(&q->names, arg); break;
    default: return false;
    }
    return true;
}

static void handle_opt(struct sacct_args *a, int c, const char *arg)
{
    if (query_opt(&a->q, c, arg))
        return;
    switch (c) {
    case 'b': a->brief = true; break;
    case 'l': a->long_list = true; break;
    case 'L': a->all_clusters = true; break;
    case 'M': clusters_opt(a, arg); break;
    case 'n': a->out.header = false; break;
    case 'o': add_to_list(&a->format, arg); break;
    case 'p': a->out.layout = SACCT_PARSABLE; break;
    case 'P': a->out.layout = SACCT_PARSABLE2; break;
    case 'v': a->verbose++; break;
    case 'X': a->allocations = true; break;
    case 'B': case 'c': case 'f': case 'W':
    case SACCT_OPT_ENV_VARS: case SACCT_OPT_YAML:
        refuse_opt(a->prog, c);
        break;
    /* One cluster, no federation: nothing to widen or narrow. */
    case SACCT_OPT_LOCAL: case SACCT_OPT_FEDERATION:
        a->all_clusters = false;
        break;
    case SACCT_OPT_WHOLE_HETJOB: whole_hetjob_opt(a->prog, arg); break;
    case SACCT_OPT_NOCONVERT: a->ctx.noconvert = true; break;
    case SACCT_OPT_JSON: a->json = true; break;
    case SACCT_OPT_DELIMITER: a->out.delim = arg; break;
    case SACCT_OPT_UNITS:
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
            cmd_print_help(stdout, sacct_help_head, sacct_opts,
                           sacct_help_tail);
            exit(0);
        } else if (c == SACCT_OPT_USAGE) {
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
    json_t *resp, *filter;
    time_t now = time(NULL);
    const char *cluster;

    parse_args(argc, argv, &a);
    if (sacct_format_parse(chosen_format(&a), &fmt, &bad) < 0) {
        cmd_error(a.prog, "Invalid field requested: \"%s\"", bad);
        free(bad);
        return 1;
    }
    /* Slurm's default: the local cluster's jobs (-L, -M all: every one). */
    cluster = cmd_conf(a.prog)->cluster_name;
    filter = sacct_filter_build(&a.q, a.prog, now, &specs, &nspecs);
    if (!a.all_clusters && cluster)
        json_object_set_new(filter, "cluster", json_string(cluster));
    sacct_filter_verbose(&a.q, filter, a.verbose, cluster, a.prog);
    resp = query(&a, filter);
    a.ctx.now = (time_t)jint(resp, "now", now);
    a.ctx.cluster = cluster;
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
