/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol.c - view and change controller state (Slurm's scontrol)
 *
 * Supported: show job|step|node|partition|hostnames|reservation|config|
 * assoc_mgr, listpids, ping, hold, release, requeue, requeuehold,
 * suspend, resume, top, reconfigure, update NodeName=... (State, Reason,
 * Weight), update JobId=... (TimeLimit, ArrayTaskThrottle, Dependency,
 * Partition, NumNodes, StartTime, Name, Features, Priority, MailUser,
 * MailType), create|update|delete reservation and
 * create|update|delete partition (slurm.conf's PartitionName= keywords).  Messages and exit codes are Slurm 22.05's ("Invalid job id specified for job N",
 * "slurm_suspend error: ...", "Node x not found").  With no command,
 * commands are read from standard input, one per line.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <time.h>

#include "cmd/lib/assoc_mgr_print.h"
#include "cmd/lib/config_print.h"
#include "cmd/lib/jobview.h"
#include "cmd/lib/json_out.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/listpids.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/slurm_texts.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/scontrol_part.h"
#include "cmd/lib/scontrol_print.h"
#include "cmd/lib/scontrol_resv.h"
#include "common/mailtype.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

enum {
    OPT_HELP = CMD_OPT_LONG,
    OPT_USAGE,
    OPT_HIDE,
    OPT_LOCAL,
    OPT_SIBLING,
    OPT_FEDERATION,
    OPT_JSON,
    OPT_YAML,
};

static const struct cmd_opt scontrol_opts[] = {
    {"all", 'a', no_argument,
     "     -a or --all: equivalent to \"all\" command\n"},
    {"details", 'd', no_argument,
     "     -d or --details: equivalent to \"details\" command\n"},
    {"federation", OPT_FEDERATION, no_argument,
     "     --federation: Report jobs from federation if a member of one\n"},
    {"future", 'F', no_argument, /* Drover has no FUTURE nodes */
     "     -F or --future: Report information about nodes in \"FUTURE\" "
     "state.\n"},
    {"help", 'h', no_argument,
     "     -h or --help: equivalent to \"help\" command\n"},
    {"hide", OPT_HIDE, no_argument,
     "     --hide: equivalent to \"hide\" command\n"},
    {"json", OPT_JSON, no_argument,
     "     --json: Produce JSON output\n"},
    {"local", OPT_LOCAL, no_argument,
     "     --local: Report information only about jobs on the local cluster."
     "\n"},
    {"clusters", 'M', required_argument,
     "     -M or --cluster: equivalent to \"cluster\" command.\n"},
    {"cluster", 'M', required_argument, NULL},
    {"oneliner", 'o', no_argument,
     "     -o or --oneliner: equivalent to \"oneliner\" command\n"},
    {"quiet", 'Q', no_argument,
     "     -Q or --quiet: equivalent to \"quiet\" command\n"},
    {"sibling", OPT_SIBLING, no_argument,
     "     --sibling: Report information about all sibling jobs.\n"},
    {"uid", 'u', required_argument,
     "     -u or --uid: Update job as user \"uid\" instead of the invoking "
     "user.\n"},
    {"verbose", 'v', no_argument,
     "     -v or --verbose: equivalent to \"verbose\" command\n"},
    {"version", 'V', no_argument,
     "     -V or --version: equivalent to \"version\" command\n"},
    {"yaml", OPT_YAML, no_argument,
     "     --yaml: Produce YAML output\n"},
    {"usage", OPT_USAGE, no_argument, NULL},
    CMD_OPT_END,
};

/* Settings that commands on the command line and in interactive mode
 * share.
 */
struct scontrol {
    const char *prog;
    bool one_liner;
    bool detail;
    bool quiet;
    int exit_code;
    bool exit_flag;
    bool json;         /* --json: collect records, print v0.0.38 shapes */
    json_t *collected; /* the records shown, while json */
    bool all;          /* -a, SCONTROL_ALL: hidden partitions too */
};

/* --json: print what was collected under 'key' and forget it. */
static void json_flush(struct scontrol *sc, const char *key,
                       json_t *(*convert)(const json_t *))
{
    size_t n = json_array_size(sc->collected);
    const json_t **recs = xzalloc((n + 1) * sizeof(*recs));

    for (size_t k = 0; k < n; k++)
        recs[k] = json_array_get(sc->collected, k);
    json_out_set_cluster(cmd_conf(sc->prog)->cluster_name);
    json_out_print(stdout, key, recs, n, convert);
    free(recs);
    json_decref(sc->collected);
    sc->collected = NULL;
}

/* Slurm accepts any abbreviation of a keyword at least 'min' long. */
static bool keyword(const char *word, const char *full, size_t min)
{
    size_t len = strlen(word);

    return len >= min && len <= strlen(full)
           && strncasecmp(word, full, len) == 0;
}

/* Text for an error from the controller: Slurm's for its numbers, the
 * client's (which names the peer) for I/O failures.
 */
static const char *err_text(int err, const drv_error_t *error)
{
    return err >= 1000 ? drv_strerror(err) : error->text;
}

static time_t resp_now(const json_t *resp)
{
    return (time_t)jint(resp, "now", (int64_t)time(NULL));
}

static struct scontrol_ctx print_ctx(const struct scontrol *sc, time_t now)
{
    const struct slurm_conf *conf = cmd_conf(sc->prog);
    struct scontrol_ctx ctx = {now, sc->one_liner, sc->detail,
                               conf ? conf->slurmd_port : 6818};

    return ctx;
}

/* --- show job ------------------------------------------------------------ */

/* "8379" or "8385_0"; *task is -1 without a task.  -1 when not an id. */
static int parse_job_id(const char *s, uint32_t *id, long *task)
{
    char *end;
    unsigned long v;

    *task = -1;
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    v = strtoul(s, &end, 10);
    if (*end == '_' && isdigit((unsigned char)end[1]))
        *task = strtol(end + 1, &end, 10);
    if (*end || v == 0 || v > UINT32_MAX)
        return -1;
    *id = (uint32_t)v;
    return 0;
}

static bool job_matches(const json_t *job, uint32_t id, long task)
{
    if (task >= 0 && jint(job, "array_job_id", 0) == id
        && jstr(job, "array_pending"))
        return job_view_task_pending(job, task);
    if (task >= 0)
        return jint(job, "array_job_id", 0) == id
               && jint(job, "array_task_id", -1) == task;
    return jint(job, "job_id", 0) == id || jint(job, "array_job_id", 0) == id;
}

/* The id array_order() puts first (qsort passes no context). */
static uint32_t first_id;

static int array_cmp(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    uint32_t ida = (uint32_t)jint(a, "job_id", 0);
    uint32_t idb = (uint32_t)jint(b, "job_id", 0);

    if ((ida == first_id) != (idb == first_id))
        return ida == first_id ? -1 : 1;
    return (idb > ida) - (idb < ida);
}

/* "scontrol show job N": Slurm's controller packs the record whose id is
 * N first, then the other records of array N newest first (its array
 * hash chain): 8385 (pending 2-7), 8387 (task 1), 8386 (task 0).  Job ids
 * are unique, so qsort's order is total. */
static void array_order(json_t *jobs, uint32_t id)
{
    size_t n = json_array_size(jobs), i;
    json_t **v, *job;

    if (n < 2)
        return;
    v = calloc(n, sizeof(*v));
    if (!v)
        return;
    json_array_foreach(jobs, i, job)
        v[i] = json_incref(job);
    first_id = id;
    qsort(v, n, sizeof(*v), array_cmp);
    json_array_clear(jobs);
    for (i = 0; i < n; i++)
        json_array_append_new(jobs, v[i]);
    free(v);
}

static void show_job(struct scontrol *sc, const char *arg)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL, *jobs, *job;
    struct scontrol_ctx ctx;
    uint32_t id = 0;
    long task = -1;
    size_t i, shown = 0;

    if (arg && parse_job_id(arg, &id, &task) < 0) {
        fprintf(stderr, "scontrol_print_job error: %s\n",
                drv_strerror(EDRV_INVALID_JOB_ID));
        sc->exit_code = 1;
        return;
    }
    /* A named job is shown whatever its partition (Slurm's one-job load). */
    if (cmd_rpc(sc->prog, "job_info",
                json_pack("{s:b s:b}", "all_states", 1, "show_all",
                          sc->all || arg),
                &resp, &error) < 0) {
        fprintf(stderr, "slurm_load_jobs error: %s\n", error.text);
        sc->exit_code = 1;
        return;
    }
    ctx = print_ctx(sc, resp_now(resp));
    jobs = json_object_get(resp, "jobs");
    if (arg && task < 0)
        array_order(jobs, id);
    if (sc->json && !sc->collected)
        sc->collected = json_array();
    json_array_foreach(jobs, i, job) {
        char *text;

        if (arg && !job_matches(job, id, task))
            continue;
        shown++;
        if (sc->json) {
            json_array_append(sc->collected, job);
            continue;
        }
        text = scontrol_sprint_job(job, &ctx);
        fputs(text, stdout);
        free(text);
    }
    if (sc->json && (shown || !arg)) {
        json_flush(sc, "jobs", json_out_job);
    } else if (arg && !shown) {
        fprintf(stderr, "slurm_load_jobs error: %s\n",
                drv_strerror(EDRV_INVALID_JOB_ID));
        sc->exit_code = 1;
    } else if (!shown) {
        printf("No jobs in the system\n");
    }
    json_decref(resp);
}

/* --- show step ----------------------------------------------------------- */

#define STEP_ID_NONE -1LL

/* "N", "N.S" or "N.batch"; like Slurm 22.05, which reads the step part
 * with strtol, ".batch" (any text) is step 0 (golden
 * scontrol-show-step-batch).  -1 when not an id. */
static int parse_step_id(const char *s, uint32_t *job, long long *step)
{
    char *end;
    unsigned long v;

    *step = STEP_ID_NONE;
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    v = strtoul(s, &end, 10);
    if (*end == '.') {
        *step = strtoll(end + 1, NULL, 10);
        end += strlen(end);
    }
    if (*end || v == 0 || v > UINT32_MAX || *step > UINT32_MAX)
        return -1;
    *job = (uint32_t)v;
    return 0;
}

static void show_step(struct scontrol *sc, const char *arg)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL, *steps, *st, *body = json_object();
    struct scontrol_ctx ctx;
    uint32_t job = 0;
    long long step = STEP_ID_NONE;
    size_t i, shown = 0;

    if (arg && parse_step_id(arg, &job, &step) < 0) {
        fprintf(stderr, "Invalid job step id: %s\n", arg);
        sc->exit_code = 1;
        json_decref(body);
        return;
    }
    if (arg)
        json_object_set_new(body, "job_ids", json_pack("[I]", (json_int_t)job));
    if (cmd_rpc(sc->prog, "step_info", body, &resp, &error) < 0) {
        fprintf(stderr, "slurm_get_job_steps error: %s\n", error.text);
        sc->exit_code = 1;
        return;
    }
    ctx = print_ctx(sc, resp_now(resp));
    steps = json_object_get(resp, "steps");
    json_array_foreach(steps, i, st) {
        char *text;

        if (step != STEP_ID_NONE && jint(st, "step_id", -1) != step)
            continue;
        shown++;
        text = scontrol_sprint_step(st, &ctx);
        fputs(text, stdout);
        free(text);
    }
    if (!shown && arg) {
        if (step != STEP_ID_NONE)
            printf("Job step %u.%lld not found\n", job, step);
        else
            printf("Job step %u not found\n", job);
        sc->exit_code = 1;
    } else if (!shown) {
        printf("No job steps in the system\n");
    }
    json_decref(resp);
}

/* --- show node, show partition ------------------------------------------- */

struct entity {
    const char *type;     /* request type */
    const char *key;      /* array in the response */
    const char *load_err; /* Slurm's prefix for load errors */
    const char *title;    /* "Node", "Partition" */
    const char *none;     /* no records at all */
    char *(*sprint)(const json_t *, const struct scontrol_ctx *);
};

static const struct entity node_entity = {
    "node_info", "nodes", "slurm_load_node error", "Node",
    "No nodes in the system", scontrol_sprint_node};
static const struct entity part_entity = {
    "partition_info", "partitions", "slurm_load_partitions error",
    "Partition", "No partitions in the system", scontrol_sprint_partition};

static const json_t *find_named(const json_t *records, const char *name)
{
    size_t i;
    json_t *r;

    json_array_foreach(records, i, r) {
        if (strcmp(jstr_or(r, "name", ""), name) == 0)
            return r;
    }
    return NULL;
}

static void print_record(struct scontrol *sc, const struct entity *e,
                         const json_t *rec, const struct scontrol_ctx *ctx)
{
    char *text;

    if (sc->json) {
        json_array_append(sc->collected, (json_t *)rec);
        return;
    }
    text = e->sprint(rec, ctx);
    fputs(text, stdout);
    free(text);
}

/* Print the records named by 'arg' (a hostlist expression for nodes, one
 * name for partitions), or all of them.
 */
/* The names 'arg' asks for: a node list's hosts (itself if it is not a
 * hostlist), or a partition's name. */
static json_t *wanted_names(const struct entity *e, const char *arg)
{
    hostlist_t *hl = e == &node_entity ? hostlist_decode(arg, NULL) : NULL;
    json_t *names = json_array();

    for (size_t i = 0; i < (hl ? hostlist_count(hl) : 1); i++)
        json_array_append_new(names,
                              json_string(hl ? hostlist_nth(hl, i) : arg));
    hostlist_destroy(hl);
    return names;
}

static void show_named(struct scontrol *sc, const struct entity *e,
                       const json_t *records, const json_t *names,
                       const struct scontrol_ctx *ctx)
{
    size_t i;
    json_t *r, *n;

    if (!names) {
        json_array_foreach(records, i, r)
            print_record(sc, e, r, ctx);
        if (json_array_size(records) == 0 && !sc->json)
            printf("%s\n", e->none);
        return;
    }
    json_array_foreach(names, i, n) {
        const char *name = json_string_value(n);
        const json_t *rec = find_named(records, name);

        if (rec) {
            print_record(sc, e, rec, ctx);
        } else {
            printf("%s %s not found\n", e->title, name);
            sc->exit_code = 1;
        }
    }
}

static void show_entity(struct scontrol *sc, const struct entity *e,
                        const char *arg)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL, *records;
    json_t *body = json_pack("{s:b}", "show_all", sc->all);
    json_t *names = arg ? wanted_names(e, arg) : NULL;
    struct scontrol_ctx ctx;

    if (names && e == &node_entity) /* only those: not 10,000 parsed */
        json_object_set(body, "names", names);
    if (cmd_rpc(sc->prog, e->type, body, &resp, &error) < 0) {
        fprintf(stderr, "%s: %s\n", e->load_err, error.text);
        sc->exit_code = 1;
        json_decref(names);
        return;
    }
    ctx = print_ctx(sc, resp_now(resp));
    records = json_object_get(resp, e->key);
    if (sc->json)
        sc->collected = json_array();
    show_named(sc, e, json_is_array(records) ? records : NULL, names, &ctx);
    json_decref(names);
    if (sc->json)
        json_flush(sc, e->key,
                   e == &node_entity ? json_out_node : json_out_partition);
    json_decref(resp);
}

static void show_hostnames(struct scontrol *sc, const char *arg)
{
    drv_error_t error = {{0}};
    hostlist_t *hl;

    if (!arg)
        arg = getenv("SLURM_JOB_NODELIST");
    if (!arg) {
        cmd_error(sc->prog, "host list is empty");
        sc->exit_code = 1;
        return;
    }
    if (!(hl = hostlist_decode(arg, &error))) {
        cmd_error(sc->prog, "Invalid hostlist: %s", arg);
        sc->exit_code = 1;
        return;
    }
    for (size_t i = 0; i < hostlist_count(hl); i++)
        printf("%s\n", hostlist_nth(hl, i));
    hostlist_destroy(hl);
}

/* The controller's running configuration (rpc_config.c). */
static void show_config(struct scontrol *sc)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    char *text;

    if (cmd_rpc(sc->prog, "config_info", json_object(), &resp, &error) < 0) {
        fprintf(stderr, "slurm_load_ctl_conf error: %s\n", error.text);
        sc->exit_code = 1;
        return;
    }
    text = config_sprint(resp);
    fputs(text, stdout);
    free(text);
    json_decref(resp);
}

static void show_resv(struct scontrol *sc, const char *name)
{
    json_t *body = name ? json_pack("{s:s}", "name", name) : json_object();
    json_t *resp = NULL;
    drv_error_t error = {{0}};

    if (cmd_rpc(sc->prog, "resv_info", body, &resp, &error) < 0) {
        fprintf(stderr, "slurm_load_reservations error: %s\n",
                err_text(errno, &error));
        sc->exit_code = 1;
        return;
    }
    if (name && !json_array_size(json_object_get(resp, "reservations"))) {
        fprintf(stderr, "Reservation %s not found\n", name);
        sc->exit_code = 1;
    } else if (sc->json) {
        sc->collected = json_incref(json_object_get(resp, "reservations"));
        json_flush(sc, "reservations", json_out_reservation);
    } else {
        scontrol_resv_print(stdout, resp, sc->one_liner);
    }
    json_decref(resp);
}

/* The controller's association manager (rpc_assoc_mgr.c): users=,
 * accounts=, qos=, flags= as Slurm's scontrol takes them. */
static void show_assoc_mgr(struct scontrol *sc, int argc, char **argv)
{
    drv_error_t error = {{0}};
    json_t *body, *resp = NULL;
    unsigned flags;

    if (assoc_mgr_parse(argc, argv, sc->quiet, stderr, &body, &flags) < 0) {
        sc->exit_code = 1;
        return;
    }
    if (cmd_rpc(sc->prog, "assoc_mgr_info", body, &resp, &error) < 0) {
        sc->exit_code = 1;
        if (!sc->quiet)
            fprintf(stderr, "slurm_load_assoc_mgr_info error: %s\n",
                    err_text(errno, &error));
        return;
    }
    assoc_mgr_print(stdout, resp, flags, sc->one_liner);
    json_decref(resp);
}

static void cmd_show(struct scontrol *sc, int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : NULL;
    const char *arg = argc > 2 ? argv[2] : NULL;

    if (what && (keyword(what, "assoc_mgr", 2) || keyword(what, "cache", 2))) {
        /* Slurm's allow_opt: any number of words after it */
        show_assoc_mgr(sc, argc - 2, argv + 2);
    } else if (!what) {
        fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
    } else if (argc > 3) {
        fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
    } else if (keyword(what, "jobs", 1) || keyword(what, "jobid", 4)) {
        show_job(sc, arg);
    } else if (keyword(what, "steps", 2)) {
        show_step(sc, arg);
    } else if (keyword(what, "config", 1)) {
        show_config(sc);
    } else if (keyword(what, "nodes", 1)) {
        show_entity(sc, &node_entity, arg);
    } else if (keyword(what, "partitions", 2)) {
        show_entity(sc, &part_entity, arg);
    } else if (keyword(what, "hostnames", 5)) {
        show_hostnames(sc, arg);
    } else if (keyword(what, "reservations", 3)) {
        show_resv(sc, arg);
    } else {
        fprintf(stderr, "invalid entity:%s for keyword:%s \n", what, argv[0]);
        sc->exit_code = 1;
    }
}

/* --- listpids ------------------------------------------------------------ */

static void cmd_listpids(struct scontrol *sc, int argc, char **argv)
{
    if (argc > 3) {
        fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
        return;
    }
    if (listpids_run(sc->prog, argc > 1 ? argv[1] : NULL,
                     argc > 2 ? argv[2] : NULL))
        sc->exit_code = 1;
}

/* --- ping ---------------------------------------------------------------- */

/* reconfigure: the controller reads slurm.conf again (rpc_reconfig.c);
 * its refusal names what needs a restart. */
static void cmd_reconfigure(struct scontrol *sc, int argc, char **argv)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;

    if (argc > 1) {
        fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
        return;
    }
    const json_t *refused, *r;
    size_t i;

    if (cmd_rpc(sc->prog, "reconfigure", json_object(), &resp, &error) < 0) {
        fprintf(stderr, "slurm_reconfigure error: %s\n",
                errno != EDRV_USER_ID_MISSING && error.text[0]
                    ? error.text
                    : err_text(errno, &error));
        sc->exit_code = 1;
    } else if (json_array_size(refused = json_object_get(resp, "refused"))) {
        fprintf(stderr, "slurm_reconfigure error: nothing changed; these "
                        "changes need a restart:\n");
        json_array_foreach(refused, i, r)
            fprintf(stderr, "  %s\n", json_string_value(r));
        sc->exit_code = 1;
    }
    json_decref(resp);
}

static void cmd_ping(struct scontrol *sc, int argc, char **argv)
{
    const struct slurm_conf *conf = cmd_conf(sc->prog);
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    const char *host;
    int rc;

    if (argc > 1) {
        fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
        return;
    }
    /* Each controller once, without waiting for it (Slurm's slurm_ping()). */
    for (size_t i = 0; i <= conf->ctld_backup_count; i++) {
        const char *addr = conf_ctld_addr(conf, i);
        rc = cmd_rpc_to(sc->prog, addr, conf->ctld_port, "ping",
                        json_object(), &resp, &error);
        host = conf_ctld_name(conf, i) ? conf_ctld_name(conf, i)
                                       : jstr_or(resp, "host", "");
        printf("Slurmctld(%s) at %s is %s", i ? "backup" : "primary", host,
               rc == 0 ? "UP" : "DOWN");
        /* A Raft group's member says its role and term (docs/ha.md). */
        if (rc == 0 && jstr_or(resp, "role", NULL))
            printf(" (%s, term %lld)", jstr_or(resp, "role", ""),
                   (long long)json_integer_value(json_object_get(resp,
                                                                 "term")));
        putchar('\n');
        if (rc < 0 && i == 0)
            sc->exit_code = 1;
        json_decref(resp);
        resp = NULL;
    }
}

/* --- takeover ---------------------------------------------------------- */

/* scontrol takeover [INDEX]: SlurmctldHost[INDEX] (default 1) takes over
 * from the controller that leads (a Raft group, docs/ha.md). */
static void cmd_takeover(struct scontrol *sc, int argc, char **argv)
{
    drv_error_t error = {{0}};
    json_t *body = json_object();
    char *end;
    long v;

    if (argc > 2) {
        fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
        json_decref(body);
        return;
    }
    if (argc == 2) {
        errno = 0;
        v = strtol(argv[1], &end, 10);
        if (errno || *end || v < 0 || v > 64) {
            fprintf(stderr, "Invalid takeover index: %s\n", argv[1]);
            sc->exit_code = 1;
            json_decref(body);
            return;
        }
        json_object_set_new(body, "index", json_integer(v));
    }
    if (cmd_rpc(sc->prog, "takeover", body, NULL, &error) < 0) {
        fprintf(stderr, "slurm_takeover error: %s\n", error.text);
        sc->exit_code = 1;
    }
}

/* --- token ------------------------------------------------------------- */

/* scontrol token [lifespan=SECONDS] [username=NAME]: a JWT for
 * AuthAltTypes=auth/jwt, printed as SLURM_JWT=... to export (REST
 * clients send it as X-SLURM-USER-TOKEN). */
static void cmd_token(struct scontrol *sc, int argc, char **argv)
{
    drv_error_t error = {{0}};
    json_t *body = json_object(), *resp = NULL;
    char *end;
    long v;

    for (int i = 1; i < argc; i++) {
        if (!strncasecmp(argv[i], "lifespan=", 9)) {
            errno = 0;
            v = strtol(argv[i] + 9, &end, 10);
            if (errno || end == argv[i] + 9 || *end || v < 1) {
                fprintf(stderr, "Invalid lifespan: %s\n", argv[i] + 9);
                goto fail;
            }
            json_object_set_new(body, "lifespan", json_integer(v));
        } else if (!strncasecmp(argv[i], "username=", 9) && argv[i][9]) {
            json_object_set_new(body, "username", json_string(argv[i] + 9));
        } else {
            fprintf(stderr, "Invalid parameter: %s\n", argv[i]);
            goto fail;
        }
    }
    if (cmd_rpc(sc->prog, "token_issue", body, &resp, &error) < 0) {
        fprintf(stderr, "Unable to create token: %s\n", error.text);
        sc->exit_code = 1;
        return;
    }
    printf("SLURM_JWT=%s\n", jstr_or(resp, "token", ""));
    json_decref(resp);
    return;
fail:
    json_decref(body);
    sc->exit_code = 1;
}

/* --- hold, release, requeue ---------------------------------------------- */

/* Strip scontrol's optional "JobId=" / "Job=" before a job list. */
static const char *job_list_arg(const char *s)
{
    if (strncasecmp(s, "JobId=", 6) == 0)
        return s + 6;
    if (strncasecmp(s, "Job=", 4) == 0)
        return s + 4;
    return s;
}

/* Run 'type' for each id of the comma list 'arg'.  Prints Slurm's
 * "<error> for job <id>" per failure and returns the last error (0: none).
 */
static int for_each_job(struct scontrol *sc, const char *arg,
                        const char *type, json_t *extra, bool hold)
{
    char *copy = xstrdup(job_list_arg(arg)), *tok, *save = NULL;
    int last = 0;

    for (tok = strtok_r(copy, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        drv_error_t error = {{0}};
        uint32_t id;
        long task;
        json_t *body;
        int err;

        if (parse_job_id(tok, &id, &task) < 0 || task >= 0) {
            err = EDRV_INVALID_JOB_ID;
        } else {
            body = json_pack("{s:I}", "job_id", (json_int_t)id);
            json_object_update(body, extra);
            err = cmd_rpc(sc->prog, type, body, NULL, &error) < 0 ? errno : 0;
        }
        /* Slurm's controller refuses another user's hold/release with
         * "Invalid user id". */
        if (hold && err == EDRV_ACCESS_DENIED)
            err = EDRV_USER_ID_MISSING;
        if (err) {
            if (!sc->quiet)
                fprintf(stderr, "%s for job %s\n", err_text(err, &error), tok);
            sc->exit_code = 1;
            last = err;
        }
    }
    free(copy);
    return last;
}

static void cmd_hold(struct scontrol *sc, int argc, char **argv)
{
    bool release = keyword(argv[0], "release", 3);
    json_t *extra = json_pack("{s:b}", "hold", !release);

    if (argc < 2) {
        fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
    }
    for (int i = 1; i < argc; i++) {
        int err = for_each_job(sc, argv[i], "job_hold", extra, true);

        if (err && !sc->quiet)
            fprintf(stderr, "slurm_suspend error: %s\n",
                    err >= 1000 ? drv_strerror(err) : strerror(err));
    }
    json_decref(extra);
}

/* suspend and resume (an operator's): "Job is not suspended for job N". */
static void cmd_suspend(struct scontrol *sc, int argc, char **argv)
{
    json_t *extra = json_pack("{s:b}", "suspend",
                              keyword(argv[0], "suspend", 2));

    if (argc < 2) {
        fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
    }
    for (int i = 1; i < argc; i++)
        for_each_job(sc, argv[i], "job_suspend", extra, false);
    json_decref(extra);
}

/* requeue, and requeuehold (the job is held once back in the queue). */
static void cmd_requeue(struct scontrol *sc, int argc, char **argv)
{
    bool hold = keyword(argv[0], "requeuehold", 8);
    json_t *extra = hold ? json_pack("{s:b}", "hold", 1) : json_object();

    if (argc < 2) {
        fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
    }
    for (int i = 1; i < argc; i++) {
        if (hold && strncasecmp(argv[i], "State=", 6) == 0) {
            /* State=SpecialExit: Drover has no SPECIAL_EXIT state. */
            cmd_error(sc->prog, "%s is not supported by Drover", argv[i]);
            sc->exit_code = 1;
            continue;
        }
        for_each_job(sc, argv[i], "job_requeue", extra, false);
    }
    json_decref(extra);
}

/* write batch_script JOBID [FILE]: the job's script into FILE (default
 * slurm-JOBID.sh; "-": standard output), as Slurm's scontrol. */
static void cmd_write(struct scontrol *sc, int argc, char **argv)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    uint32_t id;
    long task;
    char *path;
    FILE *out = stdout;

    if (argc < 3 || argc > 4 || !keyword(argv[1], "batch_script", 1)) {
        fprintf(stderr, "invalid write argument\n");
        sc->exit_code = 1;
        return;
    }
    if (parse_job_id(argv[2], &id, &task) < 0 || task >= 0) {
        fprintf(stderr, "Invalid job id specified\n");
        sc->exit_code = 1;
        return;
    }
    path = argc == 4 ? xstrdup(argv[3]) : xasprintf("slurm-%u.sh", id);
    if (strcmp(path, "-") && !(out = fopen(path, "w"))) {
        fprintf(stderr, "failed to open file `%s`: %s\n", path,
                strerror(errno));
        sc->exit_code = errno;
    } else if (cmd_rpc(sc->prog, "job_script",
                       json_pack("{s:I}", "job_id", (json_int_t)id), &resp,
                       &error) < 0) {
        int err = errno;
        if (out != stdout) {
            fclose(out);
            unlink(path);
        }
        fprintf(stderr, "job script retrieval failed: %s\n",
                err >= 1000 ? drv_strerror(err) : error.text);
        sc->exit_code = 1;
    } else {
        fputs(json_string_value(json_object_get(resp, "script")), out);
        if (out != stdout) {
            fclose(out);
            if (!sc->quiet)
                printf("batch script for job %u written to %s\n", id, path);
        }
    }
    json_decref(resp);
    free(path);
}

/* top JOB_LIST: the jobs move ahead of their user's other pending jobs
 * of the same partition, account and QOS (an operator's request). */
static void cmd_top(struct scontrol *sc, int argc, char **argv)
{
    json_t *ids = json_array();
    drv_error_t error = {{0}};

    if (argc != 2) {
        fprintf(stderr, "too %s arguments for keyword:%s\n",
                argc < 2 ? "few" : "many", argv[0]);
        sc->exit_code = 1;
        json_decref(ids);
        return;
    }
    char *copy = xstrdup(job_list_arg(argv[1])), *tok, *save = NULL;
    for (tok = strtok_r(copy, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        uint32_t id;
        long task;
        if (parse_job_id(tok, &id, &task) < 0 || task >= 0) {
            fprintf(stderr, "Invalid job id specified\n");
            sc->exit_code = 1;
            free(copy);
            json_decref(ids);
            return;
        }
        json_array_append_new(ids, json_integer(id));
    }
    free(copy);
    if (cmd_rpc(sc->prog, "job_top", json_pack("{s:o}", "job_ids", ids),
                NULL, &error)
        < 0) {
        fprintf(stderr, "slurm_top_job error: %s\n", err_text(errno, &error));
        sc->exit_code = 1;
    }
}

/* --- update -------------------------------------------------------------- */

/* "Key=Value" split in place; value NULL when there is no '='. */
struct kv {
    const char *arg;
    char key[64];
    const char *val;
};

static void kv_split(struct kv *kv, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);

    kv->arg = arg;
    if (n >= sizeof(kv->key))
        n = sizeof(kv->key) - 1;
    memcpy(kv->key, arg, n);
    kv->key[n] = '\0';
    kv->val = eq ? eq + 1 : NULL;
}

static void not_supported(struct scontrol *sc, const char *arg)
{
    fprintf(stderr, "Update of this parameter is not supported: %s\n", arg);
    fprintf(stderr, "Request aborted\n");
    sc->exit_code = 1;
}

static const char *const node_states[] = {"DRAIN", "RESUME", "DOWN",
                                          "UNDRAIN"};

static const char *node_state_arg(const char *val)
{
    for (size_t i = 0; val && i < sizeof(node_states) / sizeof(*node_states);
         i++) {
        if (strcasecmp(val, node_states[i]) == 0)
            return node_states[i];
    }
    return NULL;
}

static void bad_node_state(struct scontrol *sc, const char *arg)
{
    fprintf(stderr, "Invalid input: %s\n", arg);
    fprintf(stderr, "Request aborted\n");
    fprintf(stderr, "Valid states are: NoResp DRAIN FAIL FUTURE RESUME "
                    "POWER_DOWN POWER_UP UNDRAIN\n");
    fprintf(stderr, "Not all states are valid given a node's prior state\n");
    sc->exit_code = 1;
}

/* Weight=N: Slurm's message for a bad value, which is then no change.
 * Returns the weight, or -1. */
static long long node_weight(const char *prog, const char *val)
{
    char *end;
    long long w = strtoll(val, &end, 10);

    if (!isdigit((unsigned char)*val) || *end || w >= UINT32_MAX) {
        cmd_error(prog, "Weight value (%s) is not a valid number", val);
        return -1;
    }
    return w;
}

static void update_node(struct scontrol *sc, int argc, char **argv)
{
    const char *name = NULL, *state = NULL, *reason = NULL;
    long long weight = -1;
    drv_error_t error = {{0}};
    json_t *body;
    struct kv kv;

    for (int i = 1; i < argc; i++) {
        kv_split(&kv, argv[i]);
        if (keyword(kv.key, "NodeName", 3) && kv.val)
            name = kv.val;
        else if (keyword(kv.key, "Weight", 1) && kv.val)
            weight = node_weight(sc->prog, kv.val);
        else if (keyword(kv.key, "State", 2) && kv.val
                 && !(state = node_state_arg(kv.val))) {
            bad_node_state(sc, argv[i]);
            return;
        } else if (keyword(kv.key, "Reason", 2) && kv.val)
            reason = kv.val;
        else if (!keyword(kv.key, "State", 2)) {
            not_supported(sc, argv[i]);
            return;
        }
    }
    if (!name || !name[0]) {
        fprintf(stderr, "Invalid input: NodeName\nRequest aborted\n");
        sc->exit_code = 1;
        return;
    }
    if (state && (!strcmp(state, "DRAIN") || !strcmp(state, "DOWN"))
        && (!reason || !reason[0])) {
        fprintf(stderr, "You must specify a reason when DOWNING or DRAINING "
                        "a node. Request denied\n");
        sc->exit_code = 1;
        return;
    }
    if (!state && !reason && weight < 0) {
        fprintf(stderr, "No changes specified\n");
        sc->exit_code = 1;
        return;
    }
    body = json_pack("{s:s}", "name", name);
    if (weight >= 0)
        json_object_set_new(body, "weight", json_integer(weight));
    if (state)
        json_object_set_new(body, "state", json_string(state));
    if (reason)
        json_object_set_new(body, "reason", json_string(reason));
    if (cmd_rpc(sc->prog, "node_update", body, NULL, &error) < 0) {
        fprintf(stderr, "slurm_update error: %s\n", err_text(errno, &error));
        sc->exit_code = 1;
    }
}

/* What one Key=Value of update JobId= did. */
enum upd { UPD_SET, UPD_SKIP, UPD_ABORT };

static enum upd job_time_limit(struct scontrol *sc, const char *arg,
                               const char *val, json_t *extra)
{
    int64_t secs;

    (void)arg;
    if (timefmt_parse_limit(val, &secs, NULL) < 0) {
        cmd_error(sc->prog, "Invalid TimeLimit value");
        sc->exit_code = 1;
        return UPD_ABORT;
    }
    json_object_set_new(extra, "time_limit_s", json_integer(secs));
    return UPD_SET;
}

static enum upd job_throttle(struct scontrol *sc, const char *arg,
                             const char *val, json_t *extra)
{
    if (!isdigit((unsigned char)val[0])) {
        not_supported(sc, arg);
        return UPD_ABORT;
    }
    json_object_set_new(extra, "array_throttle",
                        json_integer(strtoll(val, NULL, 10)));
    return UPD_SET;
}

/* NumNodes=min[-max]: Slurm's scontrol returns (exit 0) on a bad count. */
static enum upd job_num_nodes(struct scontrol *sc, const char *arg,
                              const char *val, json_t *extra)
{
    char *end, *end2;
    long min = strtol(val, &end, 10), max = min;

    (void)arg;
    if (*end == '-' && isdigit((unsigned char)end[1]))
        max = strtol(end + 1, &end2, 10), end = end2;
    if (!isdigit((unsigned char)*val) || *end || min < 0 || max < min) {
        cmd_error(sc->prog, "Invalid numeric value \"%s\" for requested "
                            "node count.", val);
        return UPD_ABORT;
    }
    json_object_set_new(extra, "nodes_min", json_integer(min));
    json_object_set_new(extra, "nodes_max", json_integer(max));
    return UPD_SET;
}

/* StartTime=: a bad time is reported as Slurm's parse_time() does and
 * is no change. */
static enum upd job_start_time(struct scontrol *sc, const char *arg,
                               const char *val, json_t *extra)
{
    time_t t;
    int pos;

    (void)sc;
    (void)arg;
    if (sbatch_parse_time(val, time(NULL), &t, &pos) < 0) {
        fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos,
                val);
        return UPD_SKIP;
    }
    json_object_set_new(extra, "begin_time", json_integer(t));
    return UPD_SET;
}

/* Priority=N: Slurm's scontrol takes a number (or "") */
static enum upd job_priority(struct scontrol *sc, const char *arg,
                             const char *val, json_t *extra)
{
    char *end;
    unsigned long long v = strtoull(val, &end, 10);

    (void)arg;
    if (!isdigit((unsigned char)val[0]) || *end || v >= 0xffffffffULL) {
        cmd_error(sc->prog, "Invalid Priority value: %s", val);
        sc->exit_code = 1;
        return UPD_ABORT;
    }
    json_object_set_new(extra, "priority", json_integer((json_int_t)v));
    return UPD_SET;
}

/* MailType=: Slurm's words (common/mailtype.h); a bad one is Slurm's
 * "Invalid MailType: X" (exit 1), and nothing is sent. */
static enum upd job_mail_type(struct scontrol *sc, const char *arg,
                              const char *val, json_t *extra)
{
    uint32_t bits;

    (void)arg;
    if (mailtype_parse(val, &bits) < 0) {
        fprintf(stderr, "Invalid MailType: %s\n", val);
        sc->exit_code = 1;
        return UPD_ABORT;
    }
    json_object_set_new(extra, "mail_type", json_integer(bits));
    return UPD_SET;
}

/* The Key= of update JobId= (shortest abbreviation Drover accepts): a
 * parser, or the body key its value goes to as given. */
static const struct job_key {
    const char *name;
    size_t min;
    enum upd (*parse)(struct scontrol *sc, const char *arg, const char *val,
                      json_t *extra);
    const char *body_key;
} job_keys[] = {
    {"TimeLimit", 5, job_time_limit, NULL},
    {"ArrayTaskThrottle", 6, job_throttle, NULL},
    {"NumNodes", 3, job_num_nodes, NULL},
    {"StartTime", 5, job_start_time, NULL},
    {"Dependency", 3, NULL, "dependency"},
    {"Partition", 2, NULL, "partition"},
    {"Name", 2, NULL, "name"},
    {"JobName", 4, NULL, "name"},
    {"Features", 4, NULL, "features"},
    {"Priority", 3, job_priority, NULL},
    {"MailType", 5, job_mail_type, NULL},
    {"MailUser", 5, NULL, "mail_user"},
};

static const struct job_key *job_key_find(const char *key)
{
    for (size_t i = 0; i < sizeof(job_keys) / sizeof(*job_keys); i++)
        if (keyword(key, job_keys[i].name, job_keys[i].min))
            return &job_keys[i];
    return NULL;
}

static void update_job(struct scontrol *sc, int argc, char **argv)
{
    const char *job = NULL;
    json_t *extra = json_object();
    const struct job_key *k;
    struct kv kv;

    for (int i = 1; i < argc; i++) {
        kv_split(&kv, argv[i]);
        if (keyword(kv.key, "JobId", 3) && kv.val) {
            job = kv.val;
        } else if (!kv.val || !(k = job_key_find(kv.key))) {
            not_supported(sc, argv[i]);
            json_decref(extra);
            return;
        } else if (!k->parse) {
            json_object_set_new(extra, k->body_key, json_string(kv.val));
        } else if (k->parse(sc, argv[i], kv.val, extra) == UPD_ABORT) {
            json_decref(extra);
            return;
        }
    }
    if (job && json_object_size(extra) > 0)
        for_each_job(sc, job, "job_update", extra, false);
    else if (job) {
        fprintf(stderr, "No changes specified\n");
        sc->exit_code = 1;
    }
    json_decref(extra);
}

/* create reservation KEY=VALUE... / update ReservationName=... */
static void resv_change(struct scontrol *sc, int argc, char **argv,
                        bool update)
{
    json_t *body;
    drv_error_t error = {{0}};
    json_t *resp = NULL;

    if (scontrol_resv_parse(sc->prog, argc, argv, update, time(NULL), &body)
        < 0) {
        sc->exit_code = 1;
        return;
    }
    if (cmd_rpc(sc->prog, update ? "resv_update" : "resv_create", body,
                &resp, &error)
        < 0) {
        fprintf(stderr, "Error %s the reservation: %s\n",
                update ? "updating" : "creating", err_text(errno, &error));
        sc->exit_code = 1;
    } else if (update) {
        printf("Reservation updated.\n");
    } else {
        printf("Reservation created: %s\n", jstr_or(resp, "name", ""));
    }
    json_decref(resp);
}

/* update PartitionName=... / create partition PartitionName=... */
static void part_change(struct scontrol *sc, int argc, char **argv,
                        bool create)
{
    drv_error_t error = {{0}};
    json_t *body;

    if (scontrol_part_parse(sc->prog, argc, argv, create, &body) < 0) {
        sc->exit_code = 1;
        return;
    }
    if (cmd_rpc(sc->prog, create ? "part_create" : "part_update", body, NULL,
                &error)
        < 0) {
        fprintf(stderr, "%s: %s\n",
                create ? "Error creating the partition" : "slurm_update error",
                err_text(errno, &error));
        sc->exit_code = 1;
    }
}

/* The entity a word names, as Slurm 22.05's _update_it(), _create_it()
 * and _delete_it() match it: the key of "Key=Value", else the word. */
enum upd_entity { ENT_NONE, ENT_NODE, ENT_PART, ENT_JOB, ENT_RESV };

static enum upd_entity entity_of(const char *arg)
{
    struct kv kv;

    kv_split(&kv, arg);
    if (keyword(kv.key, "NodeName", 3))
        return ENT_NODE;
    if (keyword(kv.key, "PartitionName", 3))
        return ENT_PART;
    if (keyword(kv.key, "JobId", 3) || keyword(kv.key, "JobName", 3))
        return ENT_JOB;
    if (keyword(kv.key, "ReservationName", 3))
        return ENT_RESV;
    return ENT_NONE;
}

/* create reservation|partition KEY=VALUE...: the first word naming an
 * entity decides, as Slurm's _create_it(); a leading "reservation" or
 * "partition" word is not one of the keys. */
static void cmd_create(struct scontrol *sc, int argc, char **argv)
{
    enum upd_entity e = ENT_NONE;
    int skip;

    if (argc < 2) {
        fprintf(stderr, "too few arguments for %s keyword\n", argv[0]);
        sc->exit_code = 1;
        return;
    }
    for (int i = 1; i < argc && e == ENT_NONE; i++)
        e = entity_of(argv[i]);
    skip = strchr(argv[1], '=') ? 1 : 2;
    if (e == ENT_RESV) {
        resv_change(sc, argc - skip, argv + skip, false);
    } else if (e == ENT_PART) {
        part_change(sc, argc - skip, argv + skip, true);
    } else if (e == ENT_NODE) {
        cmd_error(sc->prog, "create NodeName is not supported by Drover "
                  "(nodes come from slurm.conf)");
        sc->exit_code = 1;
    } else {
        cmd_error(sc->prog, "Invalid creation entity: %s", argv[1]);
        sc->exit_code = 1;
    }
}

/* delete ENTITY=NAME or delete ENTITY NAME (Slurm 22.05's _delete_it());
 * its error line names the entity as written. */
static void cmd_delete(struct scontrol *sc, int argc, char **argv)
{
    drv_error_t error = {{0}};
    const char *val, *type = NULL;
    char what[64];
    struct kv kv;

    if (argc < 2) {
        fprintf(stderr, "too few arguments for %s keyword\n", argv[0]);
        sc->exit_code = 1;
        return;
    }
    kv_split(&kv, argv[1]);
    val = argc == 3 ? argv[2] : kv.val;
    if (argc > 3 || (argc == 2 && !kv.val)) {
        cmd_error(sc->prog, "Proper format is 'delete <ENTITY>=<ID>' or "
                  "'delete <ENTITY> <ID>'");
        sc->exit_code = 1;
        return;
    }
    if (argc == 3) /* the whole word is the entity */
        snprintf(kv.key, sizeof(kv.key), "%s", argv[1]);
    switch (entity_of(kv.key)) {
    case ENT_PART:
        type = "part_delete";
        snprintf(what, sizeof(what), "delete_partition %s", argv[1]);
        break;
    case ENT_RESV:
        type = "resv_delete";
        snprintf(what, sizeof(what), "delete_reservation %s", argv[1]);
        break;
    case ENT_NODE:
        cmd_error(sc->prog, "delete NodeName is not supported by Drover "
                  "(nodes come from slurm.conf)");
        sc->exit_code = 1;
        return;
    default:
        fprintf(stderr, "Invalid deletion entity: %s\n", argv[1]);
        sc->exit_code = 1;
        return;
    }
    if (cmd_rpc(sc->prog, type, json_pack("{s:s}", "name", val), NULL,
                &error)
        < 0) {
        fprintf(stderr, "%s: %s\n", what, err_text(errno, &error));
        sc->exit_code = 1;
    }
}

/* update ...: the entity its words name, in Slurm 22.05's order (a job's
 * update may name a partition or a reservation, a reservation's a
 * partition). */
static void cmd_update(struct scontrol *sc, int argc, char **argv)
{
    bool has[ENT_RESV + 1] = {false};

    if (argc < 2) {
        fprintf(stderr, "too few arguments for update keyword\n");
        sc->exit_code = 1;
        return;
    }
    for (int i = 1; i < argc; i++)
        has[entity_of(argv[i])] = true;
    if (has[ENT_JOB])
        update_job(sc, argc, argv);
    else if (has[ENT_RESV])
        resv_change(sc, argc - 1, argv + 1, true);
    else if (has[ENT_NODE])
        update_node(sc, argc, argv);
    else if (has[ENT_PART])
        part_change(sc, argc - 1, argv + 1, false);
    else {
        fprintf(stderr, "No valid entity in update command\n");
        fprintf(stderr, "Input line must include \"NodeName\", "
                        "\"PartitionName\", \"Reservation\", or "
                        "\"JobId\"\n");
        sc->exit_code = 1;
    }
}

/* --- commands ------------------------------------------------------------ */

/* --help, --usage and "help": Slurm's text (slurm_texts.h). */
static void print_help(void)
{
    fputs(scontrol_help_text, stdout);
}

static void cmd_flag(struct scontrol *sc, int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
        sc->exit_code = 1;
    }
    if (keyword(argv[0], "oneliner", 1))
        sc->one_liner = true;
    else if (keyword(argv[0], "details", 1))
        sc->detail = true;
    else if (keyword(argv[0], "quiet", 4))
        sc->quiet = true;
    else if (keyword(argv[0], "hide", 2))
        sc->detail = false;
    else if (keyword(argv[0], "exit", 2) || keyword(argv[0], "quit", 4))
        sc->exit_flag = true;
    else if (keyword(argv[0], "version", 4))
        cmd_print_version();
    else if (keyword(argv[0], "help", 2))
        print_help();
}

static const struct {
    const char *name;
    size_t min;
    void (*run)(struct scontrol *sc, int argc, char **argv);
} commands[] = {
    {"show", 3, cmd_show},        {"ping", 3, cmd_ping},
    {"hold", 4, cmd_hold},        {"uhold", 5, cmd_hold},
    {"holdu", 5, cmd_hold},       {"release", 3, cmd_hold},
    {"requeue", 3, cmd_requeue},  {"requeuehold", 8, cmd_requeue},
    {"update", 1, cmd_update},    {"top", 3, cmd_top},
    {"create", 2, cmd_create},    {"delete", 3, cmd_delete},
    {"suspend", 2, cmd_suspend},  {"resume", 3, cmd_suspend},
    {"write", 2, cmd_write},      {"token", 3, cmd_token},
    {"takeover", 2, cmd_takeover},
    {"reconfigure", 3, cmd_reconfigure},
    {"listpids", 1, cmd_listpids},
    {"oneliner", 1, cmd_flag},    {"details", 1, cmd_flag},
    {"quiet", 4, cmd_flag},       {"hide", 2, cmd_flag},
    {"exit", 2, cmd_flag},        {"quit", 4, cmd_flag},
    {"version", 4, cmd_flag},     {"help", 2, cmd_flag},
};

static void run_command(struct scontrol *sc, int argc, char **argv)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (keyword(argv[0], commands[i].name, commands[i].min)) {
            commands[i].run(sc, argc, argv);
            return;
        }
    }
    fprintf(stderr, "invalid keyword: %s\n", argv[0]);
    sc->exit_code = 1;
}

/* Split an interactive line into words; "double quotes" group words. */
static int split_line(char *line, char **argv, int max)
{
    int argc = 0;
    char *p = line;

    while (*p && argc < max) {
        char *w;

        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        w = p;
        argv[argc++] = w;
        for (bool quoted = false; *p && (quoted || !isspace((unsigned char)*p));
             p++) {
            if (*p == '"') {
                quoted = !quoted;
                memmove(p, p + 1, strlen(p));
                p--;
            }
        }
        if (*p)
            *p++ = '\0';
    }
    return argc;
}

static void interactive(struct scontrol *sc)
{
    char line[4096], *argv[64];
    int argc;

    while (!sc->exit_flag && fgets(line, sizeof(line), stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if ((argc = split_line(line, argv, 64)) > 0)
            run_command(sc, argc, argv);
    }
}

static void parse_args(struct scontrol *sc, int argc, char **argv)
{
    int c;

    while ((c = cmd_getopt(argc, argv, scontrol_opts)) != -1) {
        if (c == '?') {
            fprintf(stderr, "Try \"scontrol --help\" for more information\n");
            exit(1);
        } else if (c == 'h') {
            print_help();
            exit(0);
        } else if (c == OPT_USAGE) {
            print_help();
            exit(0);
        } else if (c == 'V') {
            cmd_print_version();
            exit(0);
        } else if (c == 'a') {
            sc->all = true;
        } else if (c == 'd') {
            sc->detail = true;
        } else if (c == 'o') {
            sc->one_liner = true;
        } else if (c == 'Q') {
            sc->quiet = true;
        } else if (c == OPT_JSON) {
            sc->json = true;
        } else if (c == 'M') { /* one cluster: it must be this one */
            if (!cmd_clusters_check(sc->prog, optarg))
                exit(1);
        } else if (c == OPT_YAML || c == 'u') {
            cmd_error(sc->prog, "%s is not supported by Drover",
                      c == OPT_YAML ? "--yaml" : "--uid");
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    struct scontrol sc = {.prog = cmd_prog_name(argv[0])};

    sc.all = getenv("SCONTROL_ALL") != NULL;
    parse_args(&sc, argc, argv);
    if (optind < argc)
        run_command(&sc, argc - optind, argv + optind);
    else
        interactive(&sc);
    return sc.exit_code;
}
