/* SPDX-License-Identifier: Apache-2.0
 *
 * strigger.c - set, get and clear event triggers (Slurm's strigger)
 *
 * --set sends trigger_set (one event: -d, -D, -u, -I on nodes, -r, -f,
 * -t on a job), --get trigger_info and prints Slurm's table (filtered
 * here, as Slurm's strigger does), --clear trigger_clear.  The controller
 * runs the program (src/ctld/trigger.h).  Differences
 * (docs/compatibility.md): one event per trigger; -F (Drover has no FAIL
 * node state), the slurmctld, slurmdbd and database events,
 * --burst_buffer, --front_end and -M are refused; -d/-u/-D/-F/-I/-r with
 * --jobid (events of a job's nodes) too.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "common/xalloc.h"

#define PROG "strigger"
#define OFFSET_MAX 32000 /* Slurm's +/- bound, seconds */

enum {
    OPT_SET = CMD_OPT_LONG, OPT_GET, OPT_CLEAR, OPT_BB, OPT_FRONT_END,
    OPT_FLAGS, OPT_USER, OPT_HELP, OPT_USAGE,
};

static const struct cmd_opt opts[] = {
    {"set", OPT_SET, no_argument,
     "      --set           create a trigger\n"},
    {"get", OPT_GET, no_argument,
     "      --get           get trigger information\n"},
    {"clear", OPT_CLEAR, no_argument,
     "      --clear         delete a trigger\n\n"},
    {"burst_buffer", OPT_BB, no_argument,
     "      --burst_buffer  trigger event on burst buffer error\n"},
    {"front_end", OPT_FRONT_END, no_argument,
     "      --front_end     trigger event on FrontEnd node state changes\n"},
    {"primary_slurmctld_failure", 'a', no_argument,
     "  -a, --primary_slurmctld_failure\n"
     "                      trigger event when primary slurmctld fails\n"},
    {"primary_slurmctld_resumed_operation", 'A', no_argument,
     "  -A, --primary_slurmctld_resumed_operation\n"
     "                      trigger event on primary slurmctld resumed "
     "operation\n"
     "                      after failure\n"},
    {"primary_slurmctld_resumed_control", 'b', no_argument,
     "  -b, --primary_slurmctld_resumed_control\n"
     "                      trigger event on primary slurmctld resumed "
     "control\n"},
    {"backup_slurmctld_failure", 'B', no_argument,
     "  -B, --backup_slurmctld_failure\n"
     "                      trigger event when backup slurmctld fails\n"},
    {"backup_slurmctld_resumed_operation", 'c', no_argument,
     "  -c, --backup_slurmctld_resumed_operation\n"
     "                      trigger event when backup slurmctld resumed "
     "operation\n"
     "                      after failure\n"},
    {"backup_slurmctld_assumed_control", 'C', no_argument,
     "  -C, --backup_slurmctld_assumed_control\n"
     "                      trigger event when backup slurmctld assumed "
     "control\n"},
    {"down", 'd', no_argument,
     "  -d, --down          trigger event when node goes DOWN\n"},
    {"drained", 'D', no_argument,
     "  -D, --drained       trigger event when node becomes DRAINED\n"},
    {"primary_slurmctld_acct_buffer_full", 'e', no_argument,
     "  -e, --primary_slurmctld_acct_buffer_full\n"
     "                      trigger event when primary slurmctld acct "
     "buffer full\n"},
    {"fail", 'F', no_argument,
     "  -F, --fail          trigger event when node is expected to FAIL\n"},
    {"fini", 'f', no_argument,
     "  -f, --fini          trigger event when job finishes\n"},
    {"flags", OPT_FLAGS, required_argument,
     "      --flags=perm    trigger event flag (perm = permanent)\n\n"},
    {"primary_slurmdbd_failure", 'g', no_argument,
     "  -g, --primary_slurmdbd_failure\n"
     "                      trigger when primary slurmdbd fails\n"},
    {"primary_slurmdbd_resumed_operation", 'G', no_argument,
     "  -G, --primary_slurmdbd_resumed_operation\n"
     "                      trigger when primary slurmdbd resumed operation "
     "after\n"
     "                      failure\n"},
    {"primary_database_failure", 'h', no_argument,
     "  -h, --primary_database_failure\n"
     "                      trigger when primary database fails\n"},
    {"primary_database_resumed_operation", 'H', no_argument,
     "  -H, --primary_database_resumed_operation\n"
     "                      trigger when primary database resumed operation "
     "after\n"
     "                      failure\n"},
    {"id", 'i', required_argument,
     "  -i, --id=#          a trigger's ID number\n"},
    {"idle", 'I', no_argument,
     "  -I, --idle          trigger event when node remains IDLE\n"},
    {"jobid", 'j', required_argument,
     "  -j, --jobid=#       trigger related to specific jobid\n"},
    {"cluster", 'M', required_argument,
     "  -M, --cluster=name  cluster to issue commands to.  Default is\n"
     "                      current cluster.  cluster with no name will\n"
     "                      reset to default.\n"
     "                      NOTE: SlurmDBD must up.\n"},
    {"node", 'n', optional_argument,
     "  -n, --node[=host]   trigger related to specific node, all nodes by "
     "default\n"},
    {"noheader", 'N', no_argument,
     "  -N, --noheader      Do not print the message header\n"},
    {"offset", 'o', required_argument,
     "  -o, --offset=#      trigger's offset time from event, negative to "
     "precede\n"},
    {"program", 'p', required_argument,
     "  -p, --program=path  pathname of program to execute when triggered\n"},
    {"quiet", 'Q', no_argument,
     "  -Q, --quiet         quiet mode (suppress informational messages)\n"},
    {"reconfig", 'r', no_argument,
     "  -r, --reconfig      trigger event on configuration changes\n"},
    {"time", 't', no_argument,
     "  -t, --time          trigger event on job's time limit\n"},
    {"up", 'u', no_argument,
     "  -u, --up            trigger event when node returned to service "
     "from DOWN \n"
     "                      state\n"},
    {"user", OPT_USER, required_argument,
     "      --user          a user name or ID to filter triggers by\n"},
    {"verbose", 'v', no_argument,
     "  -v, --verbose       print detailed event logging\n"},
    {"version", 'V', no_argument,
     "  -V, --version       print version information and exit\n"
     "\nHelp options:\n"},
    {"help", OPT_HELP, no_argument,
     "  --help              show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage             display brief usage message\n"},
    CMD_OPT_END,
};

static const char usage_text[] =
    "Usage: strigger [--set | --get | --clear | --version] "
    "[-aAbBcCdDefFgGhHiIjnNopQrtuv]\n";

struct strigger_opts {
    bool set, get, clear;
    const char *type;      /* the one event, Slurm's name; NULL: none */
    unsigned ntypes;
    const char *node;      /* -n's hostlist; NULL: every node */
    uint32_t job_id, trig_id;
    long offset;
    const char *program;
    bool perm, no_header, quiet;
    long user_id;          /* --user; -1: none */
    int verbose;
};

/* "strigger: error: ..." and exit 1. */
__attribute__((format(printf, 1, 2), noreturn)) static void
die(const char *fmt, ...)
{
    va_list ap;

    fputs("strigger: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void event(struct strigger_opts *o, const char *type)
{
    o->type = type;
    o->ntypes++;
}

/* One of the events Drover has no notion of (or no cluster option). */
__attribute__((noreturn)) static void unsupported(const char *opt,
                                                  const char *why)
{
    die("%s is not supported by Drover (%s)", opt, why);
}

static long parse_long(const char *what, const char *s, long min, long max)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max)
        die("Invalid %s %s", what, s);
    return v;
}

static long parse_user(const char *s)
{
    struct passwd *pw = getpwnam(s);
    char *end;
    unsigned long v;

    if (pw)
        return (long)pw->pw_uid;
    v = strtoul(s, &end, 10);
    if (end == s || *end || v > UINT32_MAX)
        die("Invalid user %s", s);
    return (long)v;
}

/* Options Drover refuses: the daemons' and database events. */
static void refuse(int c)
{
    const char *ha = "Drover's controllers fail over as a Raft group "
                     "(docs/ha.md) and report no such event";

    switch (c) {
    case 'a': unsupported("--primary_slurmctld_failure", ha);
    case 'A': unsupported("--primary_slurmctld_resumed_operation", ha);
    case 'b': unsupported("--primary_slurmctld_resumed_control", ha);
    case 'B': unsupported("--backup_slurmctld_failure", ha);
    case 'c': unsupported("--backup_slurmctld_resumed_operation", ha);
    case 'C': unsupported("--backup_slurmctld_assumed_control", ha);
    case 'e': unsupported("--primary_slurmctld_acct_buffer_full",
                          "no accounting buffer event");
    case 'g': unsupported("--primary_slurmdbd_failure", "no droverdbd event");
    case 'G': unsupported("--primary_slurmdbd_resumed_operation",
                          "no droverdbd event");
    case 'h': unsupported("--primary_database_failure", "no database event");
    case 'H': unsupported("--primary_database_resumed_operation",
                          "no database event");
    case 'F': unsupported("--fail", "Drover has no FAIL node state");
    case 'M': unsupported("--cluster", "one cluster per configuration");
    case OPT_BB: unsupported("--burst_buffer", "no burst buffers");
    case OPT_FRONT_END: unsupported("--front_end", "no front end nodes");
    default: break;
    }
}

static void parse_one(int c, struct strigger_opts *o)
{
    switch (c) {
    case OPT_SET: o->set = true; break;
    case OPT_GET: o->get = true; break;
    case OPT_CLEAR: o->clear = true; break;
    case 'd': event(o, "down"); break;
    case 'D': event(o, "drained"); break;
    case 'u': event(o, "up"); break;
    case 'I': event(o, "idle"); break;
    case 'f': event(o, "fini"); break;
    case 't': event(o, "time"); break;
    case 'r': event(o, "reconfig"); break;
    case 'i':
        o->trig_id = (uint32_t)parse_long("trigger id", optarg, 1,
                                          UINT32_MAX);
        break;
    case 'j':
        o->job_id = (uint32_t)parse_long("job id", optarg, 1, UINT32_MAX);
        break;
    case 'n': o->node = optarg; break;
    case 'N': o->no_header = true; break;
    case 'o': o->offset = parse_long("offset", optarg, -1000000, 1000000);
        break;
    case 'p': o->program = optarg; break;
    case 'Q': o->quiet = true; break;
    case 'v': o->verbose++; break;
    case OPT_FLAGS:
        if (strncasecmp(optarg, "perm", 4))
            die("Invalid flags %s", optarg);
        o->perm = true;
        break;
    case OPT_USER: o->user_id = parse_user(optarg); break;
    case 'V': cmd_print_version(); exit(0);
    case OPT_HELP:
        cmd_print_help(stdout,
                       "Usage: strigger [--set | --get | --clear] "
                       "[OPTIONS]\n",
                       opts, NULL);
        exit(0);
    case OPT_USAGE: fputs(usage_text, stdout); exit(0);
    default:
        refuse(c);
        fputs(usage_text, stderr);
        exit(1);
    }
}

/* Slurm's checks, in its order and words. */
static void validate(const struct strigger_opts *o)
{
    struct stat st;

    if (o->set + o->get + o->clear != 1)
        die("You must use exactly one of the following options: --set, "
            "--get or --clear");
    if (o->clear && o->user_id < 0 && !o->trig_id && !o->job_id)
        die("You must specify a --id, --jobid, or --user to clear");
    if (o->set && !o->ntypes)
        die("You must specify a trigger (--down, --drained, --up, --idle, "
            "--reconfig, --time or --fini)");
    if (o->set && !o->program)
        die("You must specify a --program value");
    if (o->type && (!strcmp(o->type, "fini") || !strcmp(o->type, "time"))
        && !o->job_id)
        die("You must specify a --jobid value");
    if (o->program && o->program[0] != '/')
        die("The --program value must start with \"/\"");
    if (o->program && stat(o->program, &st))
        die("Invalid --program value, file not found");
    if (o->program && !S_ISREG(st.st_mode))
        die("Invalid --program value, not regular file");
    if (o->offset < -OFFSET_MAX || o->offset > OFFSET_MAX)
        die("The --offset parameter must be between +/-32000");
    if (o->set && o->ntypes > 1)
        die("Drover sets one event per trigger: run strigger --set once "
            "for each event");
    if (o->set && o->job_id && strcmp(o->type, "fini")
        && strcmp(o->type, "time"))
        die("--%s with --jobid (an event of the job's nodes) is not "
            "supported by Drover: use --node", o->type);
}

static void parse_args(int argc, char **argv, struct strigger_opts *o)
{
    int c;

    o->user_id = -1;
    while ((c = cmd_getopt(argc, argv, opts)) != -1)
        parse_one(c, o);
    if (optind < argc)
        die("Invalid argument: %s", argv[optind]);
    validate(o);
}

/* Slurm's "<call>: <error>" on stderr; 1. */
static int rpc_failed(const char *call, const drv_error_t *error)
{
    fprintf(stderr, "%s: %s\n", call, error->text);
    return 1;
}

static int do_set(const struct strigger_opts *o)
{
    json_t *body = json_pack("{s:s s:s s:I s:b}", "type", o->type,
                             "program", o->program, "offset",
                             (json_int_t)o->offset, "perm", o->perm);
    drv_error_t error = {0};

    if (o->job_id)
        json_object_set_new(body, "job_id", json_integer(o->job_id));
    else if (o->node)
        json_object_set_new(body, "nodes", json_string(o->node));
    if (cmd_rpc(PROG, "trigger_set", body, NULL, &error) < 0)
        return rpc_failed("slurm_set_trigger", &error);
    if (o->verbose)
        fprintf(stderr, "strigger: trigger set\n");
    return 0;
}

static int do_clear(const struct strigger_opts *o)
{
    json_t *body = json_object();
    drv_error_t error = {0};

    if (o->trig_id)
        json_object_set_new(body, "id", json_integer(o->trig_id));
    if (o->job_id)
        json_object_set_new(body, "job_id", json_integer(o->job_id));
    if (o->user_id >= 0)
        json_object_set_new(body, "user_id", json_integer(o->user_id));
    if (cmd_rpc(PROG, "trigger_clear", body, NULL, &error) < 0)
        return o->quiet ? 0 : rpc_failed("slurm_clear_trigger", &error);
    return 0;
}

/* Does trigger 't' pass --get's filters (Slurm filters in strigger)? */
static bool wanted(const struct strigger_opts *o, json_t *t)
{
    const char *type = json_string_value(json_object_get(t, "type"));
    json_t *job = json_object_get(t, "job_id");

    /* Slurm's strigger filters --get by every event option but
     * --reconfig, which lists every trigger. */
    if (o->type && strcmp(o->type, "reconfig")
        && strcmp(o->type, type ? type : ""))
        return false;
    if (o->job_id && (!job || json_integer_value(job) != o->job_id))
        return false;
    if (o->node && job)
        return false;
    if (o->trig_id
        && json_integer_value(json_object_get(t, "id")) != o->trig_id)
        return false;
    return o->user_id < 0
           || json_integer_value(json_object_get(t, "uid")) == o->user_id;
}

/* One line of Slurm's table. */
static void print_trigger(json_t *t)
{
    json_t *job = json_object_get(t, "job_id");
    const char *nodes = json_string_value(json_object_get(t, "nodes"));
    struct passwd *pw =
        getpwuid((uid_t)json_integer_value(json_object_get(t, "uid")));
    char res_id[32];

    if (job)
        snprintf(res_id, sizeof(res_id), "%lld",
                 (long long)json_integer_value(job));
    printf("%7lld %-9s %7s %-35s %6lld %-8s %-5s %s\n",
           (long long)json_integer_value(json_object_get(t, "id")),
           job ? "job" : "node", job ? res_id : nodes ? nodes : "*",
           json_string_value(json_object_get(t, "type")),
           (long long)json_integer_value(json_object_get(t, "offset")),
           pw ? pw->pw_name : "unknown",
           json_is_true(json_object_get(t, "perm")) ? "PERM" : "",
           json_string_value(json_object_get(t, "program")));
}

static int do_get(const struct strigger_opts *o)
{
    json_t *resp = NULL, *t;
    drv_error_t error = {0};
    size_t i, lines = 0;

    if (cmd_rpc(PROG, "trigger_info", json_object(), &resp, &error) < 0)
        return rpc_failed("slurm_get_triggers", &error);
    json_array_foreach(json_object_get(resp, "triggers"), i, t) {
        if (!wanted(o, t))
            continue;
        if (!lines++ && !o->no_header)
            printf("TRIG_ID RES_TYPE   RES_ID TYPE                        "
                   "        OFFSET USER     FLAGS PROGRAM\n");
        print_trigger(t);
    }
    json_decref(resp);
    return 0;
}

int main(int argc, char **argv)
{
    struct strigger_opts o = {0};

    parse_args(argc, argv, &o);
    if (o.set)
        return do_set(&o);
    if (o.get)
        return do_get(&o);
    return do_clear(&o);
}
