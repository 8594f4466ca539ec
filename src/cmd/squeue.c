/* SPDX-License-Identifier: Apache-2.0
 *
 * squeue.c - view the job queue (Slurm's squeue)
 *
 * Asks the controller for the jobs that may pass the filters, with only
 * the keys the format, sort and filters read (docs/protocol.md, job_info),
 * then filters again, sorts and formats here, so that "-t all",
 * "-j <done job>" and the default PD/R/CG view behave as in Slurm.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/format.h"
#include "cmd/lib/jobview.h"
#include "cmd/lib/json_out.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/names.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rowtable.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/squeue_print.h"
#include "cmd/lib/states.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

enum {
    OPT_HELP = CMD_OPT_LONG,
    OPT_USAGE,
    OPT_HIDE,
    OPT_START,
    OPT_NOCONVERT,
    OPT_ARRAY_UNIQUE,
    OPT_LOCAL,
    OPT_SIBLING,
    OPT_FEDERATION,
    OPT_ME,
    OPT_JSON,
    OPT_YAML,
};

#define TAB "\t\t\t\t  "

static const struct cmd_opt squeue_opts[] = {
    {"accounts", 'A', required_argument,
     "  -A, --account=account(s)        comma separated list of accounts\n"
     TAB "to view, default is all accounts\n"},
    {"all", 'a', no_argument,
     "  -a, --all                       display jobs in hidden partitions\n"},
    {"array-unique", OPT_ARRAY_UNIQUE, no_argument,
     "      --array-unique              display one unique pending job array\n"
     "                                  element per line\n"},
    {"federation", OPT_FEDERATION, no_argument,
     "      --federation                Report federated information if a "
     "member\n"
     "                                  of one\n"},
    {"noheader", 'h', no_argument,
     "  -h, --noheader                  no headers on output\n"},
    {"hide", OPT_HIDE, no_argument,
     "      --hide                      do not display jobs in hidden "
     "partitions\n"},
    {"iterate", 'i', required_argument,
     "  -i, --iterate=seconds           specify an interation period\n"},
    {"jobs", 'j', optional_argument,
     "  -j, --job=job(s)                comma separated list of jobs IDs\n"
     "                                  to view, default is all\n"},
    {"json", OPT_JSON, no_argument,
     "      --json                      Produce JSON output\n"},
    {"local", OPT_LOCAL, no_argument,
     "      --local                     Report information only about jobs "
     "on the\n"
     "                                  local cluster. Overrides "
     "--federation.\n"},
    {"long", 'l', no_argument,
     "  -l, --long                      long report\n"},
    {"licenses", 'L', required_argument,
     "  -L, --licenses=(license names)  comma separated list of license "
     "names to view\n"},
    {"clusters", 'M', required_argument,
     "  -M, --clusters=cluster_name     cluster to issue commands to.  "
     "Default is\n"
     "                                  current cluster.  cluster with no "
     "name will\n"
     "                                  reset to default. Implies --local.\n"},
    {"cluster", 'M', required_argument, NULL},
    {"name", 'n', required_argument,
     "  -n, --name=job_name(s)          comma separated list of job names to "
     "view\n"},
    {"noconvert", OPT_NOCONVERT, no_argument,
     "      --noconvert                 don't convert units from their "
     "original type\n"
     "                                  (e.g. 2048M won't be converted to "
     "2G).\n"},
    {"format", 'o', required_argument,
     "  -o, --format=format             format specification\n"},
    {"Format", 'O', required_argument,
     "  -O, --Format=format             format specification\n"},
    {"partitions", 'p', required_argument,
     "  -p, --partition=partition(s)    comma separated list of partitions\n"
     TAB "to view, default is all partitions\n"},
    {"qos", 'q', required_argument,
     "  -q, --qos=qos(s)                comma separated list of qos's\n"
     TAB "to view, default is all qos's\n"},
    {"reservation", 'R', required_argument,
     "  -R, --reservation=name          reservation to view, default is "
     "all\n"},
    {"array", 'r', no_argument,
     "  -r, --array                     display one job array element per "
     "line\n"},
    {"sibling", OPT_SIBLING, no_argument,
     "      --sibling                   Report information about all sibling "
     "jobs\n"
     "                                  on a federated cluster. Implies "
     "--federation.\n"},
    {"sib", OPT_SIBLING, no_argument, NULL},
    {"steps", 's', optional_argument,
     "  -s, --step=step(s)              comma separated list of job steps\n"
     TAB "to view, default is all\n"},
    {"sort", 'S', required_argument,
     "  -S, --sort=fields               comma separated list of fields to "
     "sort on\n"},
    {"start", OPT_START, no_argument,
     "      --start                     print expected start times of "
     "pending jobs\n"},
    {"states", 't', required_argument,
     "  -t, --states=states             comma separated list of states to "
     "view,\n"
     TAB "default is pending and running,\n"
     TAB "'--states=all' reports all states\n"},
    {"user", 'u', required_argument,
     "  -u, --user=user_name(s)         comma separated list of users to "
     "view\n"
     "      --name=job_name(s)          comma separated list of job names to "
     "view\n"},
    {"users", 'u', required_argument, NULL},
    {"verbose", 'v', no_argument,
     "  -v, --verbose                   verbosity level\n"},
    {"version", 'V', no_argument,
     "  -V, --version                   output version information and "
     "exit\n"},
    {"nodelist", 'w', required_argument,
     "  -w, --nodelist=hostlist         list of nodes to view, default is \n"
     TAB "all nodes\n"},
    {"node", 'w', required_argument, NULL},
    {"nodes", 'w', required_argument, NULL},
    {"yaml", OPT_YAML, no_argument,
     "      --yaml                      Produce YAML output\n"},
    {"help", OPT_HELP, no_argument,
     "\nHelp options:\n"
     "  --help                          show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage                         display a brief summary of squeue "
     "options\n"},
    {"me", OPT_ME, no_argument, NULL},
    {"priority", 'P', no_argument, NULL},
    {NULL, 'U', required_argument, NULL},
    CMD_OPT_END,
};

static const char squeue_usage[] =
    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
    "              [--reservation reservation] [--sort fields] [--start]\n"
    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
    "              [-L licenses] [-w nodes] [--federation] [--local] "
    "[--sibling]\n"
    "\t      [-ahjlrsv]\n";

/* A comma-separated list, split in place. */
struct list {
    char *buf;
    char **v;
    size_t n;
};

struct squeue_args {
    const char *prog;
    const char *format;      /* -o, SQUEUE_FORMAT */
    const char *format_long; /* -O, SQUEUE_FORMAT2 */
    const char *sort;
    const char *jobs;
    bool job_flag;
    const char *steps; /* -s list: "8379.batch,8380" */
    bool step_flag;
    bool long_list;
    bool array_expand;       /* -r: one line per array task */
    bool noheader;
    bool start;
    bool json; /* --json: v0.0.38 shapes (json_out.c) */
    const char *cluster; /* -M: this cluster, named before the listing */
    bool noconvert; /* --noconvert: %m in MiB */
    bool all;       /* -a (or -p): jobs in hidden partitions; --hide: not */
    hostlist_t *nodes; /* -w: jobs on any of these nodes */
    int iterate;
    struct list users, states, partitions, names, accounts, qos;
};

static void list_split(struct list *l, const char *text)
{
    char *tok, *save = NULL;

    free(l->buf);
    free(l->v);
    l->buf = xstrdup(text);
    l->v = NULL;
    l->n = 0;
    for (tok = strtok_r(l->buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
        if (!l->v)
            abort();
        l->v[l->n++] = tok;
    }
}

static void unsupported(const char *prog, const char *opt)
{
    cmd_error(prog, "%s is not supported by Drover", opt);
    exit(1);
}

/* Options that only select output, filters and modes. */
static void handle_opt(struct squeue_args *a, int c, char *arg)
{
    switch (c) {
    case 'a':
        a->all = true;
        break;
    case OPT_HIDE:
        a->all = false;
        break;
    case 'A':
    case 'U':
        list_split(&a->accounts, arg);
        break;
    case 'h':
        a->noheader = true;
        break;
    case 'i':
        if ((a->iterate = atoi(arg)) <= 0) {
            cmd_error(a->prog, "--iterate=%s\n", arg);
            exit(1);
        }
        break;
    case 'j':
        a->job_flag = true;
        if (arg)
            a->jobs = arg;
        break;
    case 'l':
        a->long_list = true;
        break;
    case 'r':
        a->array_expand = true;
        break;
    case 'n':
        list_split(&a->names, arg);
        break;
    case 'O':
        a->format_long = arg;
        break;
    case 'o':
        a->format = arg;
        break;
    case 'p':
        list_split(&a->partitions, arg);
        a->all = true; /* as Slurm: jobs of a named partition are shown */
        break;
    case 'q':
        list_split(&a->qos, arg);
        break;
    case 'S':
        a->sort = arg;
        break;
    case 't':
        list_split(&a->states, arg);
        break;
    case 'u':
        list_split(&a->users, arg);
        break;
    case 'w':
        hostlist_destroy(a->nodes);
        if (!(a->nodes = hostlist_decode(arg, NULL))) {
            cmd_error(a->prog, "Invalid node name %s", arg);
            exit(1);
        }
        break;
    case OPT_START:
        a->start = true;
        break;
    case OPT_ME:
        list_split(&a->users, names_user(geteuid()));
        break;
    case OPT_NOCONVERT:
        a->noconvert = true;
        break;
    default:
        break;
    }
}

static void parse_args(int argc, char **argv, struct squeue_args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, squeue_opts)) != -1) {
        if (c == '?') {
            fprintf(stderr, "Try \"squeue --help\" for more information\n");
            exit(1);
        } else if (c == 'V') {
            cmd_print_version();
            exit(0);
        } else if (c == OPT_HELP) {
            cmd_print_help(stdout, "Usage: squeue [OPTIONS]\n", squeue_opts,
                           NULL);
            exit(0);
        } else if (c == OPT_USAGE) {
            fputs(squeue_usage, stdout);
            exit(0);
        } else if (c == OPT_JSON) {
            a->json = true;
        } else if (c == 'M') {
            if (!(a->cluster = cmd_clusters_check(a->prog, optarg)))
                exit(1);
        } else if (c == OPT_YAML) {
            unsupported(a->prog, "--yaml");
        } else if (c == 's') {
            a->step_flag = true;
            if (optarg)
                a->steps = optarg;
        } else {
            handle_opt(a, c, optarg);
        }
    }
    if (optind < argc && a->job_flag && !a->jobs)
        a->jobs = argv[optind++];
    else if (optind < argc && a->step_flag && !a->steps)
        a->steps = argv[optind++];
    if (optind < argc) {
        cmd_error(a->prog, "Unrecognized option: %s", argv[optind]);
        fputs(squeue_usage, stdout);
        exit(1);
    }
}

/* Environment variables fill in what the command line left unset. */
static void apply_env(struct squeue_args *a)
{
    const char *v;

    if (!a->format && !a->format_long && !a->long_list && !a->start
        && !a->step_flag) {
        if ((v = getenv("SQUEUE_FORMAT")))
            a->format = v;
        else if ((v = getenv("SQUEUE_FORMAT2")))
            a->format_long = v;
    }
    if (getenv("SQUEUE_ALL"))
        a->all = true;
    if (!a->sort && (v = getenv("SQUEUE_SORT")))
        a->sort = v;
    if (!a->states.n && (v = getenv("SQUEUE_STATES")))
        list_split(&a->states, v);
    if (!a->users.n && (v = getenv("SQUEUE_USERS")))
        list_split(&a->users, v);
    if (!a->partitions.n && (v = getenv("SQUEUE_PARTITION")))
        list_split(&a->partitions, v);
    if (!a->names.n && (v = getenv("SQUEUE_NAMES")))
        list_split(&a->names, v);
    if (!a->accounts.n && (v = getenv("SQUEUE_ACCOUNT")))
        list_split(&a->accounts, v);
    if (a->start) {
        if (!a->format)
            a->format = SQUEUE_FORMAT_START;
        if (!a->sort)
            a->sort = "S";
        if (!a->states.n)
            list_split(&a->states, "PD");
    }
}

/* The filter's arrays; kept here so main() can free them. */
struct filter_store {
    uint32_t *job_ids;
    long *job_tasks;
    uid_t *uids;
    int *states;
};

static int build_job_ids(struct squeue_args *a, struct squeue_filter *f,
                         struct filter_store *st)
{
    struct list ids = {NULL, NULL, 0};

    if (!a->jobs && !a->steps)
        return 0;
    list_split(&ids, a->jobs ? a->jobs : a->steps);
    st->job_ids = xzalloc((ids.n + 1) * sizeof(*st->job_ids));
    st->job_tasks = xzalloc((ids.n + 1) * sizeof(*st->job_tasks));
    for (size_t i = 0; i < ids.n; i++) {
        char *end;
        unsigned long id = strtoul(ids.v[i], &end, 10);

        if (end == ids.v[i] || (*end && *end != '_' && *end != '.')) {
            cmd_error(a->prog, "Invalid job id: %s", ids.v[i]);
            free(ids.buf);
            free(ids.v);
            return -1;
        }
        st->job_tasks[f->njob_ids] = -1;
        if (a->jobs && *end == '_' && isdigit((unsigned char)end[1]))
            st->job_tasks[f->njob_ids] = strtol(end + 1, NULL, 10);
        st->job_ids[f->njob_ids++] = (uint32_t)id;
    }
    free(ids.buf);
    free(ids.v);
    f->job_ids = st->job_ids;
    f->job_tasks = st->job_tasks;
    return 0;
}

static int build_states(struct squeue_args *a, struct squeue_filter *f,
                        struct filter_store *st)
{
    st->states = xzalloc((a->states.n + 1) * sizeof(*st->states));
    for (size_t i = 0; i < a->states.n; i++) {
        job_state_t s = job_state_lookup(a->states.v[i]);

        if (strcasecmp(a->states.v[i], "all") == 0) {
            f->all_states = true;
            continue;
        }
        if (s < 0) {
            cmd_error(a->prog, "Invalid job state specified: %s",
                      a->states.v[i]);
            cmd_error(a->prog, "Valid job states include: %s\n",
                      job_state_names_list());
            return -1;
        }
        st->states[f->nstates++] = s;
    }
    f->states = st->states;
    return 0;
}

/* Unknown users are reported and match nothing, as in squeue. */
static void build_users(struct squeue_args *a, struct squeue_filter *f,
                        struct filter_store *st)
{
    if (!a->users.n)
        return;
    f->users_given = true;
    st->uids = xzalloc(a->users.n * sizeof(*st->uids));
    for (size_t i = 0; i < a->users.n; i++) {
        if (names_user_uid(a->users.v[i], &st->uids[f->nuids]) == 0)
            f->nuids++;
        else
            cmd_error(a->prog, "Invalid user: %s\n", a->users.v[i]);
    }
    f->uids = st->uids;
}

static int build_filter(struct squeue_args *a, struct squeue_filter *f,
                        struct filter_store *st)
{
    memset(f, 0, sizeof(*f));
    if (build_job_ids(a, f, st) < 0 || build_states(a, f, st) < 0)
        return -1;
    build_users(a, f, st);
    f->partitions = (const char *const *)a->partitions.v;
    f->npartitions = a->partitions.n;
    f->names = (const char *const *)a->names.v;
    f->nnames = a->names.n;
    return 0;
}

static struct fmt_spec *build_spec(const struct squeue_args *a)
{
    struct fmt_spec *spec;

    if (a->step_flag && a->format_long)
        spec = fmt_parse_long(a->format_long, squeue_step_fields, 20);
    else if (a->step_flag)
        spec = fmt_parse(a->format ? a->format : SQUEUE_FORMAT_STEPS,
                         squeue_step_fields);
    else if (a->format_long)
        spec = fmt_parse_long(a->format_long, squeue_fields, 20);
    else
        spec = fmt_parse(a->format ? a->format
                         : a->long_list ? SQUEUE_FORMAT_LONG
                                        : SQUEUE_FORMAT_DEFAULT,
                         squeue_fields);
    if (spec->bad)
        cmd_error(a->prog, "Invalid job format specification: %c", spec->bad);
    if (spec->bad_name)
        cmd_error(a->prog, "Invalid job format specification: %s",
                  spec->bad_name);
    return spec;
}

static bool in_list(const struct list *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i], s) == 0)
            return true;
    }
    return false;
}

/* -w: a job on any of the nodes (pending jobs have none). */
static bool on_nodes(const hostlist_t *want, const json_t *job)
{
    hostlist_t *hl = hostlist_decode(jstr_or(job, "nodes", ""), NULL);
    bool found = false;

    for (size_t i = 0; hl && !found && i < hostlist_count(hl); i++)
        found = hostlist_find(want, hostlist_nth(hl, i)) >= 0;
    hostlist_destroy(hl);
    return found;
}

/* -A and -q: records without an account match none; QOS is "normal". */
static bool extra_selected(const struct squeue_args *a, const json_t *job)
{
    const char *account = jstr_or(job, "account", NULL);

    if (a->accounts.n && (!account || !in_list(&a->accounts, account)))
        return false;
    if (a->qos.n && !in_list(&a->qos, jstr_or(job, "qos", "normal")))
        return false;
    if (a->nodes && !on_nodes(a->nodes, job))
        return false;
    return true;
}

/* "squeue -j N" for one job asks Slurm's controller for that job alone,
 * and an unknown id is an error; a list of ids is only a filter.
 */
static bool single_job_missing(const struct squeue_filter *f,
                               const json_t *jobs)
{
    size_t i;
    json_t *job;

    if (f->njob_ids != 1)
        return false;
    json_array_foreach(jobs, i, job) {
        if (jint(job, "job_id", 0) == f->job_ids[0]
            || jint(job, "array_job_id", 0) == f->job_ids[0])
            return false;
    }
    return true;
}

/* The id one_job_order() puts first (qsort passes no context). */
static uint32_t one_job_id;

static int one_job_cmp(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    uint32_t ida = job_view_job_id(a), idb = job_view_job_id(b);

    if ((ida == one_job_id) != (idb == one_job_id))
        return ida == one_job_id ? -1 : 1;
    return (idb > ida) - (idb < ida);
}

/* "squeue -j N" loads job N alone, and Slurm's controller sends the
 * record whose id is N first, then the other records of array N newest
 * first (its array hash chain).  The sorts that follow are stable, so
 * this order shows among equals: "squeue -r -j N" lists running task 1
 * before task 0.  Job ids are unique, so qsort's order is total.
 */
static void one_job_order(json_t *jobs, uint32_t id)
{
    size_t n = json_array_size(jobs), i;
    json_t **v, *job;

    if (n < 2)
        return;
    v = xzalloc(n * sizeof(*v));
    json_array_foreach(jobs, i, job)
        v[i] = json_incref(job);
    one_job_id = id;
    qsort(v, n, sizeof(*v), one_job_cmp);
    json_array_clear(jobs);
    for (i = 0; i < n; i++)
        json_array_append_new(jobs, v[i]);
    free(v);
}

/* squeue -s: the batch step of each running job that passes the filters
 * (states aside: steps are always running).
 */
static bool step_selected(const struct squeue_args *a,
                          const struct squeue_filter *f, const json_t *job)
{
    struct squeue_filter any = *f;

    any.all_states = true;
    return job_state_is_running(job_base_state_of(job))
           && squeue_job_selected(job, &any) && extra_selected(a, job);
}

static json_t *int_array(const uint32_t *v, size_t n)
{
    json_t *arr = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_integer(v[i]));
    return arr;
}

/* The states the controller may skip sending: a superset of what
 * squeue_job_selected() and step_selected() keep (the controller matches
 * base states, and "COMPLETING" for any completing job).  NULL: all.
 */
static json_t *wanted_states(const struct squeue_args *a,
                             const struct squeue_filter *f)
{
    json_t *states;

    if (f->all_states && !a->step_flag)
        return NULL;
    states = json_array();
    if (a->step_flag) {
        json_array_append_new(states, json_string("RUNNING"));
    } else if (f->nstates == 0) {
        json_array_append_new(states, json_string("PENDING"));
        json_array_append_new(states, json_string("RUNNING"));
        json_array_append_new(states, json_string("SUSPENDED"));
        json_array_append_new(states, json_string("COMPLETING"));
        json_array_append_new(states, json_string("SPECIAL_EXIT"));
    }
    for (size_t i = 0; !a->step_flag && i < f->nstates; i++)
        json_array_append_new(states,
                              json_string(job_state_name(f->states[i])));
    return states;
}

/* The keys the output needs (--json: everything). */
static json_t *wanted_fields(const struct squeue_args *a,
                             const struct fmt_spec *spec)
{
    json_t *keys;

    if (a->json)
        return NULL;
    keys = squeue_wanted_keys(spec, a->step_flag && !a->sort ? "P,i"
                                                             : a->sort);
    if (a->accounts.n)
        squeue_keys_add(keys, "account");
    if (a->qos.n)
        squeue_keys_add(keys, "qos");
    if (a->nodes)
        squeue_keys_add(keys, "nodes");
    if (a->step_flag)
        squeue_keys_add(keys, "steps");
    return keys;
}

/* Printed text asks for each job as a row of values, read into a table
 * (rowtable.h); --json and steps read objects. */
static bool wants_rows(const struct squeue_args *a)
{
    return !a->json && !a->step_flag;
}

/* The controller filters and sends only the keys printed; squeue filters
 * again (names, accounts, -w, completing flags).  "squeue -j N" asks for
 * job N alone in any state, so that a finished job it still holds prints
 * nothing rather than an error (single_job_missing()).
 */
static json_t *request_body(const struct squeue_args *a,
                            const struct squeue_filter *f,
                            const struct fmt_spec *spec)
{
    json_t *body = json_pack("{s:b s:b}", "all_states", 1, "show_all",
                             a->all || f->npartitions);
    json_t *v;

    if (!body)
        return NULL;
    if ((v = wanted_fields(a, spec))) {
        json_object_set_new(body, "fields", v);
        if (wants_rows(a)) { /* read a part while the next is written */
            json_object_set_new(body, "rows", json_true());
            json_object_set_new(body, "parts", json_true());
        }
    }
    if (f->njob_ids)
        json_object_set_new(body, "job_ids",
                            int_array(f->job_ids, f->njob_ids));
    if (f->njob_ids == 1)
        return body;
    if ((v = wanted_states(a, f)))
        json_object_set_new(body, "states", v);
    if (f->nuids) {
        v = json_array();
        for (size_t i = 0; i < f->nuids; i++)
            json_array_append_new(v, json_integer(f->uids[i]));
        json_object_set_new(body, "user_ids", v);
    }
    if (f->npartitions) {
        v = json_array();
        for (size_t i = 0; i < f->npartitions; i++)
            json_array_append_new(v, json_string(f->partitions[i]));
        json_object_set_new(body, "partitions", v);
    }
    return body;
}

/* squeue -s: a row per running step of the selected jobs. */
static void print_steps(const struct fmt_spec *spec, const json_t **jobs,
                        size_t n, const struct squeue_ctx *ctx,
                        bool noheader)
{
    json_t *rows = squeue_step_rows(jobs, n);
    const json_t **v = xzalloc((json_array_size(rows) + 1) * sizeof(*v));
    json_t *row;
    size_t i;

    json_array_foreach(rows, i, row)
        v[i] = row;
    squeue_print(stdout, spec, v, json_array_size(rows), ctx, noheader);
    free(v);
    json_decref(rows);
}

/* One view of the queue.  Returns the exit status. */
static int show_queue(const struct squeue_args *a, const struct squeue_filter *f,
                      const struct fmt_spec *spec)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL, *jobs, *job;
    const json_t **sel;
    struct squeue_ctx ctx;
    struct row_table_read rows = {.rows_key = "jobs"};
    size_t i, n = 0;

    if (cmd_rpc_read(a->prog, "job_info", request_body(a, f, spec),
                     wants_rows(a) ? row_table_frame_reader : NULL,
                     &rows, &resp, &error)
        < 0) {
        fprintf(stderr, "slurm_load_jobs error: %s\n", error.text);
        return 1;
    }
    jobs = json_object_get(resp, "jobs");
    if (f->njob_ids == 1)
        one_job_order(jobs, f->job_ids[0]);
    if (a->array_expand)
        job_view_expand_arrays(jobs);
    if (!a->step_flag && single_job_missing(f, jobs)) {
        fprintf(stderr, "slurm_load_jobs error: %s\n",
                drv_strerror(EDRV_INVALID_JOB_ID));
        json_decref(resp);
        row_table_free(rows.table);
        return 1;
    }
    ctx.now = (time_t)jint(resp, "now", (int64_t)time(NULL));
    ctx.noconvert = a->noconvert;
    if ((a->long_list || a->iterate) && !a->json)
        cmd_print_date(ctx.now);
    if (a->cluster && !a->json) /* as Slurm's with --clusters */
        printf("CLUSTER: %s\n", a->cluster);
    sel = xzalloc((json_array_size(jobs) + 1) * sizeof(*sel));
    json_array_foreach(jobs, i, job) {
        if (a->step_flag ? step_selected(a, f, job)
                         : squeue_job_selected(job, f) && extra_selected(a, job))
            sel[n++] = job;
    }
    squeue_sort(sel, n, a->step_flag && !a->sort ? "P,i" : a->sort, ctx.now);
    if (a->json) {
        json_out_set_cluster(cmd_conf(a->prog)->cluster_name);
        json_out_print(stdout, "jobs", sel, n, json_out_job);
    } else if (a->step_flag) {
        print_steps(spec, sel, n, &ctx, a->noheader);
    } else {
        squeue_print(stdout, spec, sel, n, &ctx, a->noheader);
    }
    fflush(stdout);
    free(sel);
    json_decref(resp);
    row_table_free(rows.table);
    return 0;
}

static void list_free(struct list *l)
{
    free(l->buf);
    free(l->v);
}

static void args_free(struct squeue_args *a, struct filter_store *st)
{
    list_free(&a->users);
    list_free(&a->states);
    list_free(&a->partitions);
    list_free(&a->names);
    list_free(&a->accounts);
    list_free(&a->qos);
    hostlist_destroy(a->nodes);
    free(st->job_ids);
    free(st->job_tasks);
    free(st->uids);
    free(st->states);
}

int main(int argc, char **argv)
{
    struct squeue_args a = {.prog = cmd_prog_name(argv[0])};
    struct filter_store st = {NULL, NULL, NULL, NULL};
    struct squeue_filter f;
    struct fmt_spec *spec;
    char bad = 0;
    int rc;

    parse_args(argc, argv, &a);
    if (a.long_list && a.format) {
        cmd_error(a.prog, "Options -o(--format) and -l(--long) are mutually "
                          "exclusive. Please remove one and retry.");
        args_free(&a, &st);
        return 1;
    }
    apply_env(&a);
    /* Slurm reports a bad sort key, prints the queue unsorted, fails. */
    if (a.sort && squeue_sort_check(a.sort, &bad) < 0) {
        cmd_error(a.prog, "Invalid sort specification: %c", bad);
        a.sort = "";
        a.iterate = 0;
    }
    if (build_filter(&a, &f, &st) < 0) {
        args_free(&a, &st);
        return 1;
    }
    spec = build_spec(&a);
    rc = show_queue(&a, &f, spec);
    while (a.iterate && rc == 0) {
        printf("\n");
        sleep((unsigned)a.iterate);
        rc = show_queue(&a, &f, spec);
    }
    fmt_spec_destroy(spec);
    args_free(&a, &st);
    return bad ? 1 : rc;
}
