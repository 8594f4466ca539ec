/* SPDX-License-Identifier: Apache-2.0
 *
 * scancel.c - cancel or signal jobs (Slurm's scancel)
 *
 * Job ids on the command line are cancelled one by one.  Filters (-u, -t,
 * -n, -p, -w) select from the controller's job list instead, and with ids
 * they narrow those ids.  As in Slurm 22.05, a job that is unknown or
 * already finished is skipped without a word; any other refusal is
 * reported and becomes the exit status (Slurm's error number, truncated to
 * eight bits: "Access/permission denied" exits 210).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/names.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/states.h"
#include "common/signame.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

enum {
    OPT_HELP = CMD_OPT_LONG,
    OPT_USAGE,
    OPT_SIBLING,
    OPT_WCKEY,
    OPT_ME,
};

static const struct cmd_opt scancel_opts[] = {
    {"account", 'A', required_argument,
     "  -A, --account=account           act only on jobs charging this "
     "account\n"},
    {"batch", 'b', no_argument,
     "  -b, --batch                     signal batch shell for specified "
     "job\n"},
    {"full", 'f', no_argument,
     "  -f, --full                      signal batch shell and all steps for "
     "specified job\n"},
    {"hurry", 'H', no_argument,
     "  -H, --hurry                     avoid burst buffer stage out\n"},
    {"interactive", 'i', no_argument,
     "  -i, --interactive               require response from user for each "
     "job\n"},
    {"clusters", 'M', required_argument,
     "  -M, --clusters                  clusters to issue commands to.\n"
     "                                  NOTE: SlurmDBD must be up.\n"},
    {"me", OPT_ME, no_argument, NULL}, /* not in Slurm's --help either */
    {"name", 'n', required_argument,
     "  -n, --name=job_name             act only on jobs with this name\n"},
    {"jobname", 'n', required_argument, NULL},
    {"partition", 'p', required_argument,
     "  -p, --partition=partition       act only on jobs in this partition\n"},
    {"quiet", 'Q', no_argument,
     "  -Q, --quiet                     disable warnings\n"},
    {"qos", 'q', required_argument,
     "  -q, --qos=qos                   act only on jobs with this quality of "
     "service\n"},
    {"reservation", 'R', required_argument,
     "  -R, --reservation=reservation   act only on jobs with this "
     "reservation\n"},
    {"sibling", OPT_SIBLING, required_argument,
     "      --sibling=cluster_name      remove an active sibling job from a "
     "federated job\n"},
    {"signal", 's', required_argument,
     "  -s, --signal=name | integer     signal to send to job, default is "
     "SIGKILL\n"},
    {"state", 't', required_argument,
     "  -t, --state=states              act only on jobs in this state.  "
     "Valid job\n"
     "                                  states are PENDING, RUNNING and "
     "SUSPENDED\n"},
    {"states", 't', required_argument, NULL},
    {"user", 'u', required_argument,
     "  -u, --user=user_name            act only on jobs of this user\n"},
    {"version", 'V', no_argument,
     "  -V, --version                   output version information and "
     "exit\n"},
    {"verbose", 'v', no_argument,
     "  -v, --verbose                   verbosity level\n"},
    {"nodelist", 'w', required_argument,
     "  -w, --nodelist                  act only on jobs on these nodes\n"},
    {"wckey", OPT_WCKEY, required_argument,
     "      --wckey=wckey               act only on jobs with this workload\n"
     "                                  charactization key\n"},
    {"help", OPT_HELP, no_argument,
     "\nHelp options:\n"
     "  --help                          show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage                         display brief usage message\n"},
    CMD_OPT_END,
};

static const char scancel_usage[] =
    "Usage: scancel [-A account] [--batch] [--full] [--interactive] "
    "[-n job_name]\n"
    "               [-p partition] [-Q] [-q qos] [-R reservation] "
    "[-s signal | integer]\n"
    "               [-t PENDING | RUNNING | SUSPENDED] [--usage] "
    "[-u user_name]\n"
    "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
    "               [job_id[_array_id][.step_id]]\n";

struct scancel_args {
    const char *prog;
    int signal;        /* 0: cancel */
    const char *user;
    const char *state;
    const char *name;
    const char *partition;
    const char *nodelist;
    const char *account;
    const char *qos;
    const char *reservation; /* -R */
    const char *wckey;       /* --wckey: Drover keeps none, so matches no
                              * job */
    int verbose;             /* -v: a line per job acted on */
    bool quiet;
    bool interactive;
    bool batch;        /* -b: a signal goes to the batch script only */
    bool full;         /* -f: to the batch script and every step */
    uint32_t *ids;
    char **tasks; /* per id: "7" / "1-10" of "N_7" / "N_[1-10]", or NULL */
    long long *steps; /* per id: the step of "N.S" / "N.batch", or -1 */
    size_t nids;
};

static void parse_opt(struct scancel_args *a, int c, const char *arg)
{
    switch (c) {
    case 'A':
        a->account = arg;
        break;
    case 'b':
        a->batch = true;
        break;
    case 'f':
        a->full = true;
        break;
    case 'i':
        a->interactive = true;
        break;
    case 'n':
        a->name = arg;
        break;
    case 'p':
        a->partition = arg;
        break;
    case 'Q':
        a->quiet = true;
        break;
    case 'R':
        a->reservation = arg;
        break;
    case 'v':
        a->verbose++;
        break;
    case OPT_WCKEY:
        a->wckey = arg;
        break;
    case 'M': /* one cluster: only its own name is taken */
        if (!cmd_clusters_check(a->prog, arg))
            exit(1);
        break;
    case OPT_SIBLING: /* no federation: refused, not ignored */
        cmd_error(a->prog, "--sibling: federated clusters are not supported "
                           "by Drover");
        exit(1);
    case 'q':
        a->qos = arg;
        break;
    case 's':
        if ((a->signal = sig_parse(arg)) < 0) {
            cmd_error(a->prog, "Invalid job signal: %s", arg);
            exit(1);
        }
        break;
    case 't':
        a->state = arg;
        break;
    case 'u':
        a->user = arg;
        break;
    case OPT_ME:
        a->user = names_user(geteuid());
        break;
    case 'w':
        a->nodelist = arg;
        break;
    default:
        break;
    }
}

#define STEP_ID_BATCH 0xfffffffbLL

/* ".S" or ".batch" after a job id: the step id, 'end' past it; -1 when
 * there is none, -2 when it is not a step id. */
static long long parse_step(char **end)
{
    char *p = *end, *e;
    long long v;

    if (*p != '.')
        return -1;
    if (!strcmp(p + 1, "batch")) {
        *end = p + strlen(p);
        return STEP_ID_BATCH;
    }
    if (!isdigit((unsigned char)p[1]))
        return -2;
    v = strtoll(p + 1, &e, 10);
    if (*e || v >= STEP_ID_BATCH)
        return -2;
    *end = e;
    return v;
}

/* "N", or an array's tasks "N_7", "N_[1-10]". */
static char *parse_tasks(char *end)
{
    size_t len;

    if (*end != '_')
        return end;
    end++;
    len = strlen(end);
    if (*end == '[' && len > 2 && end[len - 1] == ']')
        return end[1] && strspn(end + 1, "0123456789-,:") == len - 2
                   ? end + len : end;
    return strspn(end, "0123456789") == len && len ? end + len : end;
}

static void parse_ids(struct scancel_args *a, int argc, char **argv)
{
    a->ids = xzalloc((size_t)(argc + 1) * sizeof(*a->ids));
    a->tasks = xzalloc((size_t)(argc + 1) * sizeof(*a->tasks));
    a->steps = xzalloc((size_t)(argc + 1) * sizeof(*a->steps));
    for (int i = optind; i < argc; i++) {
        char *end, *tasks, *dot;
        unsigned long id = strtoul(argv[i], &end, 10);

        tasks = *end == '_' ? end + 1 : NULL;
        if ((dot = strchr(end, '.')))
            *dot = '\0'; /* parse_tasks() sees the tasks alone */
        end = parse_tasks(end);
        if (dot)
            *dot = '.';
        a->steps[a->nids] = parse_step(&end);
        if (tasks) {
            a->tasks[a->nids] = xstrdup(tasks + (*tasks == '['));
            a->tasks[a->nids][strcspn(a->tasks[a->nids], "].")] = '\0';
        }
        if (!isdigit((unsigned char)argv[i][0]) || *end || id == 0
            || a->steps[a->nids] == -2) {
            cmd_error(a->prog, "Invalid job id %s", argv[i]);
            exit(1);
        }
        a->ids[a->nids++] = (uint32_t)id;
    }
}

static void parse_args(int argc, char **argv, struct scancel_args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, scancel_opts)) != -1) {
        if (c == '?') {
            fprintf(stderr, "Try \"scancel --help\" for more information\n");
            exit(1);
        } else if (c == 'V') {
            cmd_print_version();
            exit(0);
        } else if (c == OPT_HELP) {
            cmd_print_help(stdout,
                           "Usage: scancel [OPTIONS] "
                           "[job_id[_array_id][.step_id]]\n",
                           scancel_opts, NULL);
            exit(0);
        } else if (c == OPT_USAGE) {
            fputs(scancel_usage, stdout);
            exit(0);
        } else {
            parse_opt(a, c, optarg);
        }
    }
    parse_ids(a, argc, argv);
}

static bool has_filters(const struct scancel_args *a)
{
    return a->user || a->state || a->name || a->partition || a->nodelist
           || a->account || a->qos || a->reservation || a->wckey;
}

/* -i: ask before each job. */
static bool confirmed(const struct scancel_args *a, const json_t *job,
                      uint32_t id)
{
    char line[64];

    if (!a->interactive)
        return true;
    printf("Cancel job_id=%u name=%s partition=%s [y/n]? ", id,
           jstr_or(job, "name", "(null)"), jstr_or(job, "partition", "(null)"));
    fflush(stdout);
    return fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
}

/* scancel N.S: the step's tasks are killed (SIGKILL unless -s). */
static int cancel_step(const struct scancel_args *a, uint32_t id,
                       long long step)
{
    drv_error_t error = {{0}};
    json_t *body = json_pack("{s:I s:I}", "job_id", (json_int_t)id,
                             "step_id", (json_int_t)step);
    int err;

    if (a->signal)
        json_object_set_new(body, "signal", json_integer(a->signal));
    if (cmd_rpc(a->prog, "step_cancel", body, NULL, &error) == 0)
        return 0;
    err = errno;
    if (err == EDRV_ALREADY_DONE)
        return 0;
    if (!a->quiet) {
        if (step == STEP_ID_BATCH)
            cmd_error(a->prog, "Kill job error on job step id %u.batch: %s",
                      id, err >= 1000 ? drv_strerror(err) : error.text);
        else
            cmd_error(a->prog, "Kill job error on job step id %u.%lld: %s",
                      id, step, err >= 1000 ? drv_strerror(err) : error.text);
    }
    return err;
}

/* Cancel job 'id', or its array tasks 'tasks' (NULL: all).  'shown':
 * the tasks are named in -v's lines.  Returns 0, or the error number to
 * exit with. */
static int cancel_one(const struct scancel_args *a, uint32_t id,
                      const char *tasks, bool shown)
{
    drv_error_t error = {{0}};
    json_t *body = json_pack("{s:I}", "job_id", (json_int_t)id);
    const char *t = tasks && shown ? tasks : NULL;
    int err;

    if (tasks)
        json_object_set_new(body, "array_tasks", json_string(tasks));
    if (a->verbose && a->signal)
        fprintf(stderr, "%s: Signal %d to job %u%s%s\n", a->prog, a->signal,
                id, t ? "_" : "", t ? t : "");
    else if (a->verbose)
        fprintf(stderr, "%s: Terminating job %u%s%s\n", a->prog, id,
                t ? "_" : "", t ? t : "");
    if (a->signal) /* Slurm's: the steps, not the script, unless -b/-f */
        json_object_set_new(body, "signal", json_integer(a->signal));
    if (a->signal)
        json_object_set_new(body, "scope",
                            json_string(a->full    ? "full"
                                        : a->batch ? "batch"
                                                   : "steps"));
    if (cmd_rpc(a->prog, "job_cancel", body, NULL, &error) == 0)
        return 0;
    err = errno;
    /* Slurm 22.05 is silent about jobs that are gone or already done. */
    if (err == EDRV_INVALID_JOB_ID || err == EDRV_ALREADY_DONE)
        return 0;
    if (!a->quiet)
        cmd_error(a->prog, "Kill job error on job id %u: %s", id,
                  err >= 1000 ? drv_strerror(err) : error.text);
    return err;
}

static bool id_listed(const struct scancel_args *a, uint32_t id)
{
    for (size_t i = 0; i < a->nids; i++) {
        if (a->ids[i] == id)
            return true;
    }
    return a->nids == 0;
}

static bool nodes_overlap(const char *want, const char *have)
{
    hostlist_t *w = hostlist_decode(want, NULL);
    hostlist_t *h = hostlist_decode(have, NULL);
    bool hit = false;

    for (size_t i = 0; w && h && !hit && i < hostlist_count(h); i++)
        hit = hostlist_find(w, hostlist_nth(h, i)) >= 0;
    hostlist_destroy(w);
    hostlist_destroy(h);
    return hit;
}

static bool state_wanted(const struct scancel_args *a, const json_t *job)
{
    job_state_t s = job_state_of(job);
    char *copy, *tok, *save = NULL;
    bool hit = false;

    if (!job_state_is_active(s) || job_state_is_completing(s))
        return false;
    if (!a->state)
        return true;
    copy = xstrdup(a->state);
    for (tok = strtok_r(copy, ",", &save); tok && !hit;
         tok = strtok_r(NULL, ",", &save))
        hit = job_state_lookup(tok) == s;
    free(copy);
    return hit;
}

static bool job_wanted(const struct scancel_args *a, const json_t *job,
                       uid_t uid)
{
    if (!id_listed(a, job_view_job_id(job)) || !state_wanted(a, job))
        return false;
    if (a->user && (uid_t)jint(job, "user_id", -1) != uid)
        return false;
    if (a->name && strcmp(jstr_or(job, "name", ""), a->name) != 0)
        return false;
    if (a->partition && strcmp(jstr_or(job, "partition", ""), a->partition))
        return false;
    if (a->account && strcmp(jstr_or(job, "account", ""), a->account) != 0)
        return false;
    if (a->qos && strcmp(jstr_or(job, "qos", "normal"), a->qos) != 0)
        return false;
    if (a->reservation
        && strcmp(jstr_or(job, "reservation", ""), a->reservation) != 0)
        return false;
    if (a->wckey) /* jobs carry no wckey in Drover */
        return false;
    return !a->nodelist || nodes_overlap(a->nodelist, job_view_nodes(job));
}

/* -t accepts only the states a job can be cancelled in. */
static void check_states(const struct scancel_args *a)
{
    char *copy, *tok, *save = NULL;

    if (!a->state)
        return;
    copy = xstrdup(a->state);
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        const char *name = job_state_name(job_state_lookup(tok));

        if (strcmp(name, "PENDING") && strcmp(name, "RUNNING")
            && strcmp(name, "SUSPENDED")) {
            /* Slurm prints these two lines without the "scancel:" prefix. */
            fprintf(stderr, "Invalid job state specified: %s\n", tok);
            fprintf(stderr, "Valid job states are PENDING, RUNNING, and "
                            "SUSPENDED\n");
            exit(1);
        }
    }
    free(copy);
}

static int cancel_filtered(const struct scancel_args *a)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL, *jobs, *job;
    uid_t uid = 0;
    int rc = 0, err;
    size_t i;

    if (a->user && names_user_uid(a->user, &uid) < 0) {
        cmd_error(a->prog, "Invalid user name: %s", a->user);
        return 1;
    }
    if (cmd_rpc(a->prog, "job_info", json_pack("{s:b}", "show_all", 1), &resp,
                &error) < 0) {
        cmd_error(a->prog, "slurm_load_jobs error: %s", error.text);
        return 1;
    }
    jobs = json_object_get(resp, "jobs");
    json_array_foreach(jobs, i, job) {
        uint32_t id = job_view_job_id(job);

        const char *pending = jstr(job, "array_pending");

        if (!job_wanted(a, job, uid) || !confirmed(a, job, id))
            continue;
        /* An array's record of pending tasks: those tasks, not the
         * whole array (its running tasks are records of their own, judged
         * on their own), in one request, as Slurm's meta record; -v names
         * the record as Slurm does, by its id. */
        if ((err = cancel_one(a, id, pending && *pending ? pending : NULL,
                              false))
            > rc)
            rc = err;
    }
    json_decref(resp);
    return rc;
}

static int cancel_ids(const struct scancel_args *a)
{
    int rc = 0, err;

    for (size_t i = 0; i < a->nids; i++) {
        if (!confirmed(a, NULL, a->ids[i]))
            continue;
        err = a->steps[i] >= 0 ? cancel_step(a, a->ids[i], a->steps[i])
                               : cancel_one(a, a->ids[i], a->tasks[i], true);
        if (err > rc)
            rc = err;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct scancel_args a = {.prog = cmd_prog_name(argv[0])};
    int rc;

    parse_args(argc, argv, &a);
    check_states(&a);
    if (!a.nids && !has_filters(&a)) {
        cmd_error(a.prog, "No job identification provided");
        free(a.tasks);
        free(a.steps);
        free(a.ids);
        return 1;
    }
    rc = has_filters(&a) ? cancel_filtered(&a) : cancel_ids(&a);
    for (size_t i = 0; i < a.nids; i++)
        free(a.tasks[i]);
    free(a.tasks);
    free(a.steps);
    free(a.ids);
    /* Like Slurm, exit with the error number's low eight bits. */
    return rc == 0 ? 0 : drv_exit_status(rc);
}
