/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_job.c - job_submit, job_info, job_cancel, job_hold, job_requeue,
 * job_update
 *
 * Each handler: decode, validate, act (mutate and journal), respond once.
 * A user acts on their own jobs; operators on all (the role mask comes
 * from the MUNGE credential's uid, never from the body).
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/jobpath.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/enforce.h"
#include "common/ident.h"
#include "ctld/depend.h"
#include "ctld/interactive.h"
#include "ctld/job_info.h"
#include "ctld/job_listing.h"
#include "ctld/crontab.h"
#include "ctld/job_update.h"
#include "ctld/journal.h"
#include "ctld/mail.h"
#include "ctld/priority.h"
#include "ctld/resv.h"
#include "ctld/part_access.h"
#include "ctld/job_mem.h"
#include "ctld/submit_check.h"
#include "proto/jsonw.h"

/* Keys of a job description a user may set (docs/protocol.md). */
static const char *const submit_keys[] = {
    "name", "partition", "work_dir", "std_out", "std_err", "std_in",
    "nodes_min", "nodes_max", "num_tasks", "cpus_per_task",
    "ntasks_per_node", "mem_per_node_mib", "mem_per_cpu_mib", "gres",
    "gpus", "gpus_per_node", "gpu_type", "time_limit_s", "exclusive",
    "hold", "requeue", "nice", "comment", "command", "submit_host",
    "req_nodes", "exc_nodes", "features", "begin_time", "time_min_s",
    "signal_num", "signal_secs", "signal_batch_only", "open_mode",
    "gpus_per_task", "cpus_per_gpu", "mem_per_gpu_mib", "account", "qos",
    "reservation", "interactive", "oversubscribe", "shards_per_node", "mps_per_node",
    "mail_type", "mail_user", "min_cpus_per_node", "no_kill",
    "min_tmp_mib", "sockets_per_node", "cores_per_socket", "threads_per_core",
    "gpus_per_socket", NULL,
};

static json_t *submit_fields(json_t *body)
{
    json_t *o = json_object(), *v;

    for (size_t i = 0; submit_keys[i]; i++)
        if ((v = json_object_get(body, submit_keys[i])))
            json_object_set(o, submit_keys[i], v);
    /* Protocol says "ntasks"; the record calls it "num_tasks". */
    if ((v = json_object_get(body, "ntasks")))
        json_object_set(o, "num_tasks", v);
    return o;
}

static void set_owner(struct ctld *ctld, struct job *job, uid_t uid,
                      gid_t gid)
{
    const struct ident_user *u = ident_user(ctld->ident, uid, ctld_now(ctld));
    const char *group = ident_group_name(ctld->ident, gid, ctld_now(ctld));

    job->uid = uid;
    job->gid = gid;
    char uid_text[16], gid_text[16];

    snprintf(uid_text, sizeof(uid_text), "%u", (unsigned)uid);
    snprintf(gid_text, sizeof(gid_text), "%u", (unsigned)gid);
    job_set_str(&job->user_name, u->known ? u->name : uid_text);
    job_set_str(&job->group_name, group ? group : gid_text);
}

/* The job's owner: the credential's, or with sbatch --uid/--gid
 * ("user_id"/"group_id") the user named, for root and SlurmUser only.
 * Slurm refuses anyone else with ESLURM_USER_ID_MISSING ("Security
 * violation, SUBMIT_JOB from uid=N").  --uid alone takes that user's
 * primary group.
 */
static int submit_owner(struct ctld *ctld, struct job *job, json_t *body,
                        proto_req_t *req, drv_error_t *error)
{
    json_t *u = json_object_get(body, "user_id");
    json_t *g = json_object_get(body, "group_id");
    uid_t uid = proto_req_uid(req);
    gid_t gid = proto_req_gid(req);
    const struct ident_user *pw;

    if (json_is_integer(u) || json_is_integer(g)) {
        if (!(proto_req_roles(req) & (PROTO_ROLE_DAEMON | PROTO_ROLE_ADMIN))) {
            errno = EDRV_USER_ID_MISSING;
            return errprintf(error, "Security violation, SUBMIT_JOB from "
                             "uid=%u for another user", (unsigned)uid);
        }
        if (json_is_integer(u)) {
            uid = (uid_t)json_integer_value(u);
            if (!(pw = ident_user(ctld->ident, uid, ctld_now(ctld)))->known) {
                errno = EDRV_USER_ID_MISSING;
                return errprintf(error, "unknown uid %u", (unsigned)uid);
            }
            gid = pw->gid;
        }
        if (json_is_integer(g))
            gid = (gid_t)json_integer_value(g);
    }
    set_owner(ctld, job, uid, gid);
    return 0;
}

static int submit_launch(struct job *job, json_t *body, drv_error_t *error)
{
    const char *script = NULL;
    json_t *argv = json_object_get(body, "argv");
    json_t *env = json_object_get(body, "env");
    json_t *v;

    if (job->interactive) { /* salloc/srun: nothing to launch */
        job->requeue = false;
        return 0;
    }
    if (json_unpack(body, "{s:s}", "script", &script) < 0 || !*script) {
        errno = EDRV_JOB_SCRIPT_MISSING;
        return errprintf(error, "no batch script");
    }
    if (strncmp(script, "#!", 2)) {
        errno = EDRV_JOB_SCRIPT_MISSING;
        return errprintf(error, "the script must start with #!");
    }
    /* "o" takes a new reference: the body's own or a fresh empty one
     * (a body without argv or env, as REST's, must not leak them). */
    job->launch = json_pack("{s:s s:o s:o}", "script", script, "argv",
                            json_is_array(argv) ? json_incref(argv)
                                                : json_array(),
                            "env", json_is_object(env) ? json_incref(env)
                                                       : json_object());
    if (!job->launch)
        return errprintf(error, "out of memory");
    /* --get-user-env (true, or Slurm's timeout/mode text): droverd adds
     * the user's login environment (src/noded/user_env.c). */
    if ((v = json_object_get(body, "get_user_env")) && !json_is_false(v))
        json_object_set_new(job->launch, "get_user_env", json_true());
    /* --container, --container-image...: the batch step runs in the
     * bundle or image (src/noded/oci.h) */
    for (size_t i = 0; job_container_keys[i]; i++)
        if (json_is_string(v = json_object_get(body, job_container_keys[i])))
            json_object_set(job->launch, job_container_keys[i], v);
    return 0;
}

/* The submission's record could not be written (full disk): the requester
 * is told it failed, so the job must not exist.  A purge record follows the
 * unwritten submit record, so whenever the disk takes them both, replay
 * ends without the job too.  No pass has run since (scheduler_arm). */
static void submit_withdraw(struct ctld *ctld, uint32_t id)
{
    struct job *job = ctld_job_find(ctld, id);
    struct ctld_event ev = {
        .type = CTLD_EV_JOB_PURGED, .t = ctld_now(ctld), .job_id = id};

    if (!job || job->state != JOB_PENDING || job->alloc)
        return;
    log_error("JobId=%u withdrawn: its journal record could not be written",
              id);
    ctld_apply(ctld, &ev);
}

/* Keep the launch data in its compact, shared form (launch_store.h). */
static void store_launch(struct ctld *ctld, struct job *job)
{
    json_t *stored = launch_store_pack(ctld->launches, job->launch);

    json_decref(job->launch);
    job->launch = stored;
}

/* As Slurm, a GRES type no node has ("gpu:x", "--gpus=abc") is a request
 * no node configuration can satisfy. */
static bool gpu_type_known(const struct node_table *nt, const char *type)
{
    for (size_t i = 0; i < nt->count; i++) {
        const struct sched_node *sn = &nt->sched[i];
        if (sn->gpu_type && !strcmp(sn->gpu_type, type))
            return true;
        for (size_t g = 0; sn->gpu_types && g < sn->gpus; g++)
            if (sn->gpu_types[g] && !strcmp(sn->gpu_types[g], type))
                return true;
    }
    return false;
}

/* Slurm's "Memory specification can not be satisfied" (the detail sbatch
 * prints before the submission error): more memory per node, or per task's
 * CPUs, than any node of the partition has. */
static int check_memory(const struct node_table *nt, const struct job *job,
                        drv_error_t *error)
{
    const struct sched_request *r = &job->req;
    uint64_t most = 0, cpu_mem = r->mem_per_cpu_mib
                                 * (r->cpus_per_task ? r->cpus_per_task : 1);

    for (size_t i = 0; i < nt->count; i++)
        if ((!r->allowed_nodes || bitmap_test(r->allowed_nodes, i))
            && nt->sched[i].mem_mib > most)
            most = nt->sched[i].mem_mib;
    if (r->mem_per_node_mib <= most && cpu_mem <= most)
        return 0;
    errno = EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    return errprintf(error, "Memory specification can not be satisfied");
}

/* Partition, time limit and "can this ever run" checks. */

/* EnforcePartLimits=ANY/ALL: a job over its partition's MaxTime or
 * MaxNodes (or node count) is refused with Slurm's message instead of
 * pending with PartitionTimeLimit/PartitionNodeLimit. */
static int part_limits_refuse(struct ctld *ctld, const struct job *job,
                              drv_error_t *error)
{
    if (ctld->conf->enforce_part_limits == CONF_PART_LIMITS_NO)
        return 0;
    if (job->reason == JOB_REASON_PART_TIME_LIMIT)
        errno = EDRV_INVALID_TIME_LIMIT;
    else if (job->reason == JOB_REASON_PART_NODE_LIMIT)
        errno = EDRV_INVALID_NODE_COUNT;
    else if (job->reason == JOB_REASON_PN_MEM_LIMIT)
        errno = EDRV_INVALID_TASK_MEMORY;
    else
        return 0;
    return errprintf(error, "%s", drv_strerror(errno));
}

/* The partition's memory defaults and limits (job_mem.h): the options the
 * submission gave are the keys its body has. */
static void submit_mem(struct job *job, const json_t *fields,
                       const struct conf_partition *cp)
{
    const struct job_mem_given given = {
        .mem = json_object_get(fields, "mem_per_node_mib")
               || json_object_get(fields, "mem_per_cpu_mib")
               || json_object_get(fields, "mem_per_gpu_mib"),
        .cpus_per_task = json_object_get(fields, "cpus_per_task") != NULL,
        .cpus_per_gpu = json_object_get(fields, "cpus_per_gpu") != NULL,
    };

    if (job_mem_resolve(&job->req, &given, cp) == JOB_MEM_OVER_LIMIT
        && job->reason == JOB_REASON_NONE)
        job->reason = JOB_REASON_PN_MEM_LIMIT;
}

/* MinNodes: a job that gave no node count, or a range reaching it, gets
 * the partition's minimum (Slurm raises min_nodes so); one whose most is
 * below it pends with PartitionNodeLimit (submit_check_part_limits()). */
static void submit_min_nodes(struct job *job, const struct conf_partition *cp)
{
    struct sched_request *r = &job->req;
    uint32_t most = r->max_nodes ? r->max_nodes : r->min_nodes;

    if (r->min_nodes >= cp->min_nodes || (most && most < cp->min_nodes))
        return;
    r->min_nodes = cp->min_nodes;
    if (r->ntasks && r->ntasks < r->min_nodes)
        r->ntasks = r->min_nodes; /* a task per node at least */
}

/* MaxTasksPerNode: Slurm refuses a job that asks more tasks of one node
 * (ESLURM_BAD_TASK_COUNT). */
static int submit_max_tasks(const struct ctld *ctld, const struct job *job,
                            drv_error_t *error)
{
    const struct sched_request *r = &job->req;
    uint32_t max = ctld->conf->max_tasks_per_node;
    uint32_t nodes = r->max_nodes ? r->max_nodes
                     : r->min_nodes ? r->min_nodes : 0;

    if (r->ntasks_per_node > max
        || (nodes && r->ntasks > (uint64_t)nodes * max)) {
        errno = EDRV_BAD_TASK_COUNT;
        return errprintf(error, "more than MaxTasksPerNode=%u tasks per "
                         "node", max);
    }
    return 0;
}

static int submit_place(struct ctld *ctld, struct job *job,
                        const json_t *fields, drv_error_t *error)
{
    struct ctld_partition *part;
    const struct conf_partition *cp;

    if (!(part = node_table_partition(ctld->nodes, job->partition))) {
        errno = job->partition ? EDRV_INVALID_PARTITION_NAME
                               : EDRV_DEFAULT_PARTITION_NOT_SET;
        return errprintf(error, "invalid partition specified: %s",
                         job->partition ? job->partition : "(default)");
    }
    cp = part->conf;
    /* State=DRAIN or INACTIVE: no new jobs (Slurm's _valid_job_part()). */
    if (!ctld_part_takes_jobs(part)) {
        errno = EDRV_PARTITION_NOT_AVAIL;
        return errprintf(error, "partition %s is %s", cp->name, cp->state);
    }
    if (!job->partition)
        job_set_str(&job->partition, cp->name);
    if (cp->exclusive_nodes) /* OverSubscribe=EXCLUSIVE */
        job->req.exclusive = true;
    if (job->time_limit_s == 0) /* none asked (rpc_job_submit) */
        job->time_limit_s = cp->default_time_s != TIME_INFINITE
                                ? cp->default_time_s
                                : cp->max_time_s;
    job->req.allowed_nodes = part->nodes;
    job->req.max_cpus_per_node = ctld_part_cpu_cap(part);
    submit_min_nodes(job, cp);
    if (submit_max_tasks(ctld, job, error) < 0
        || submit_check_place(ctld, job, part, error) < 0)
        return -1;
    submit_mem(job, fields, cp);
    if (job->req.min_nodes > bitmap_count(part->nodes))
        job->reason = JOB_REASON_PART_NODE_LIMIT;
    if (part_limits_refuse(ctld, job, error) < 0)
        return -1;
    if (job->reason == JOB_REASON_PART_NODE_LIMIT)
        return 0;
    if (job->req.gpu_type && !gpu_type_known(ctld->nodes, job->req.gpu_type)) {
        errno = EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        return errprintf(error, "no node has GPUs of type %s",
                         job->req.gpu_type);
    }
    if (check_memory(ctld->nodes, job, error) < 0)
        return -1;
    if (sched_check_never(ctld->nodes->sched, ctld->nodes->count, &job->req,
                          error)
        != SCHED_OK) {
        errno = EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        return -1;
    }
    return 0;
}

/* --gpus-per-socket=N (Slurm's tres_per_socket): N GPUs on each of the
 * job's --sockets-per-node sockets, so N x S on each node.  Slurm's sbatch
 * refuses it without --sockets-per-node; so does the controller, for
 * senders that do not check (REST).  Drover takes it alone: with another
 * GPU count the two would have to be weighed against each other. */
static int submit_gpus_per_socket(struct job *job, drv_error_t *error)
{
    struct sched_request *r = &job->req;

    if (!job->gpus_per_socket)
        return 0;
    errno = EDRV_INVALID_GRES;
    if (!r->sockets_per_node)
        return errprintf(error, "--gpus-per-socket option requires "
                                "--sockets-per-node specification");
    if (r->gpus_per_node || r->gpus_total || r->gpus_per_task
        || r->shards_per_node)
        return errprintf(error, "--gpus-per-socket with another GPU or "
                                "shard count (--gpus, --gpus-per-node, "
                                "--gpus-per-task, --gres)");
    r->gpus_per_node = job->gpus_per_socket * r->sockets_per_node;
    return 0;
}

/* Values only the controller can judge, as Slurm's job_submit checks:
 * -N 0 is an invalid node count, a negative --nice is for administrators, and --time-min may not
 * exceed the job's time limit (after the partition's default). */
static int submit_check_values(struct job *job, json_t *body,
                               proto_req_t *req, drv_error_t *error)
{
    json_t *tmin = json_object_get(body, "time_min_s");
    json_t *nmin = json_object_get(body, "nodes_min");

    if (json_is_integer(nmin) && json_integer_value(nmin) == 0) {
        errno = EDRV_INVALID_NODE_COUNT; /* sbatch -N 0 */
        return errprintf(error, "a node count of 0");
    }
    if (job->nice < 0
        && !(proto_req_roles(req) & (PROTO_ROLE_DAEMON | PROTO_ROLE_ADMIN))) {
        errno = EDRV_INVALID_NICE;
        return errprintf(error, "negative nice %d from a user", job->nice);
    }
    if (json_is_integer(tmin) && job->time_limit_s != TIME_INFINITE
        && json_integer_value(tmin) > job->time_limit_s) {
        errno = EDRV_INVALID_TIME_MIN_LIMIT;
        return errprintf(error, "time-min %lld s over the time limit",
                         (long long)json_integer_value(tmin));
    }
    return 0;
}

static void respond_errnum(proto_req_t *req, int errnum, const char *what)
{
    if (proto_respond_error(req, errnum, NULL) < 0)
        log_err("%s: responding", what);
}

/* An error with errno's number and 'error''s text (if any). */
static void respond_error(proto_req_t *req, const drv_error_t *error,
                          const char *what)
{
    if (proto_respond_error(req, errno, error->text[0] ? error->text : NULL)
        < 0)
        log_err("%s: responding", what);
}

/* The partition's RootOnly / Allow* / Deny* keys, once the account and
 * QOS are settled (enforce_submit() fills the defaults). */
static int submit_access(struct ctld *ctld, proto_req_t *req,
                         const struct job *job, drv_error_t *error)
{
    const struct ctld_partition *part =
        node_table_partition(ctld->nodes, job->partition);

    return part ? ctld_part_access(ctld, req, job, part->conf, error) : 0;
}

/* -A as Slurm stores it: lower case (slurmctld lower-cases the account of
 * every job it creates; the accounting names are lower case too). */
static void account_lower(struct job *job)
{
    char *lc;

    if (!job->account)
        return;
    lc = xstrdup(job->account);
    for (char *p = lc; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    job_set_str(&job->account, lc);
    free(lc);
}

/* The jobs of the table as MaxJobCount counts them: every record, ended
 * ones until MinJobAge purges them, and each pending array task. */
static uint32_t count_jobs(const struct ctld *ctld)
{
    const struct job *job, *tmp;
    uint32_t n = 0;

    HASH_ITER(hh, ctld->jobs, job, tmp)
        n += array_jobs_of(job);
    return n;
}

/* MaxJobCount, as Slurm's: the jobs in the controller (count_jobs()) and
 * this one's may not pass it; refused with Slurm's
 * ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, which the submitting commands
 * answer by waiting and sending again ("Slurm job queue full, sleeping
 * and retrying").  ctld->job_count is an upper bound kept by accepted
 * submissions (a split adds no job; ends and purges only lower the
 * truth), so the table is counted only when the bound would refuse. */
static int submit_check_count(struct ctld *ctld, const struct job *job,
                              drv_error_t *error)
{
    uint32_t max = ctld->conf->max_job_count, n = array_jobs_of(job);

    /* Slurm's get_next_job_id() failing: every id held (job_id.h); the
     * commands wait and send again, as for MaxJobCount. */
    if (!ctld_job_id_next(ctld)) {
        log_error("_job_create: no free job id between FirstJobId=%u and "
                  "MaxJobId=%u", ctld->conf->first_job_id,
                  ctld->conf->max_job_id);
        errno = EDRV_ERROR_ON_DESC_TO_RECORD_COPY;
        return errprintf(error, "no free job id between FirstJobId=%u and "
                         "MaxJobId=%u", ctld->conf->first_job_id,
                         ctld->conf->max_job_id);
    }
    if (!max)
        return 0;
    if (!ctld->job_count_known || ctld->job_count + n > max) {
        ctld->job_count = count_jobs(ctld);
        ctld->job_count_known = true;
    }
    if (ctld->job_count + n <= max)
        return 0;
    log_error("_job_create: MaxJobCount limit from slurm.conf reached (%u)",
              max);
    errno = EDRV_ERROR_ON_DESC_TO_RECORD_COPY;
    return errprintf(error, "MaxJobCount limit from slurm.conf reached "
                            "(%u)", max);
}

struct job *ctld_submit_prepare(struct ctld *ctld, proto_req_t *req,
                                json_t *body, drv_error_t *error)
{
    json_t *fields = submit_fields(body);
    struct job *job = job_create(0);
    int failing;

    /* The journal could not take the last turn's records (a full disk):
     * refuse at once, as the flush would, rather than queue this one's
     * record (and its withdrawal) behind them. */
    if (ctld->journal && (failing = journal_failing(ctld->journal))) {
        errprintf(error, "the state journal cannot be written: %s",
                  strerror(failing));
        errno = EDRV_JOURNAL_WRITE;
        goto error;
    }
    if (submit_check_script(ctld, body, error) < 0)
        goto error;
    if (job_apply_json(job, fields, node_table_index_cb, ctld->nodes, error) < 0) {
        errno = EDRV_PROTOCOL_MALFORMED;
        goto error;
    }
    /* As Slurm: no -t takes the partition's DefaultTime (else MaxTime);
     * an explicit UNLIMITED stays, and pends over a finite MaxTime. */
    if (!json_object_get(fields, "time_limit_s"))
        job->time_limit_s = 0;
    /* JobRequeue and JobFileAppend: the defaults of --requeue/--no-requeue
     * and --open-mode, taken as the job enters (journaled with it) */
    if (!json_object_get(fields, "requeue"))
        job->requeue = ctld->conf->job_requeue != 0;
    if (!json_object_get(fields, "open_mode"))
        job->place.open_append = ctld->conf->job_file_append != 0;
    account_lower(job);
    if (submit_owner(ctld, job, body, req, error) < 0
        || submit_launch(job, body, error) < 0
        || submit_gpus_per_socket(job, error) < 0
        || submit_place(ctld, job, fields, error) < 0
        || submit_check_values(job, body, req, error) < 0
        || depend_array_submit(ctld, job, body, error) < 0
        || enforce_submit(ctld, job, error) < 0
        || submit_access(ctld, req, job, error) < 0
        || resv_check_job(ctld, job, error) < 0)
        goto error;
    if (mail_submit(ctld, job, error) < 0)
        goto error;
    store_launch(ctld, job);
    json_decref(fields);
    return job;
error:
    failing = errno;
    json_decref(fields);
    job_destroy(job);
    errno = failing;
    return NULL;
}

int ctld_submit_count(struct ctld *ctld, const struct job *job,
                      drv_error_t *error)
{
    return submit_check_count(ctld, job, error);
}

int ctld_submit_enter(struct ctld *ctld, struct job *job, time_t now,
                      time_t begin)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_SUBMITTED, .t = now};

    if (!(job->id = ctld_job_id_next(ctld))) { /* checked by the caller */
        job_destroy(job);
        return -1;
    }
    if (job->hold)
        job->reason = JOB_REASON_HELD_USER;
    job->submit_time = job->eligible_time = now;
    submit_check_begin(job, now);
    if (begin > job->eligible_time) { /* a cron job's first run */
        job->eligible_time = begin;
        if (!job->hold)
            job->reason = JOB_REASON_BEGIN_TIME;
    }
    array_set_id(job);
    if (job->depend && job->depend->list && job->eligible_time <= now) {
        job->eligible_time = 0; /* Slurm: EligibleTime=Unknown */
        if (!job->hold) /* as Slurm at submission; the next pass may clear */
            job->reason = JOB_REASON_DEPENDENCY;
    }
    job->priority = job->hold ? 0 : priority_of(ctld, job, now);
    ev.job = job; /* the table's from now on, also when refused */
    if (ctld_apply(ctld, &ev) < 0)
        return -1;
    enforce_job_added(ctld, job);
    ctld->job_count += array_jobs_of(job);
    log_info("_slurm_rpc_submit_batch_job: JobId=%u InitPrio=%u", job->id,
             job->priority);
    return 0;
}

static void rpc_job_submit(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    drv_error_t error = {0};
    time_t now = ctld_now(ctld);
    struct job *job = ctld_submit_prepare(ctld, req, body, &error);

    if (!job)
        return respond_error(req, &error, "job_submit");
    if (json_is_true(json_object_get(body, "test_only"))) {
        json_t *answer;
        job->eligible_time = now;
        submit_check_begin(job, now);
        /* srun --test-only (an allocation's) uses up the id it shows, as
         * Slurm's srun does; sbatch's does not */
        uint32_t id = ctld_job_id_next(ctld);
        answer = submit_will_run(ctld, job, id, now);
        if (answer && json_is_true(json_object_get(body, "interactive")))
            ctld->next_job_id = id + 1;
        job_destroy(job);
        if ((answer ? proto_respond(req, answer)
                    : proto_respond_error(req, errno, NULL)) < 0)
            log_err("job_submit: responding");
        return;
    }
    if (submit_check_count(ctld, job, &error) < 0) {
        int errnum = errno;
        job_destroy(job);
        errno = errnum;
        return respond_error(req, &error, "job_submit");
    }
    if (ctld_submit_enter(ctld, job, now, 0) < 0) {
        if (proto_respond_error(req, EDRV_ERROR, "job id already in use")
            < 0)
            log_err("job_submit: responding");
        return;
    }
    ctld_respond_durable_undo(ctld, req,
                              json_pack("{s:I}", "job_id", (json_int_t)job->id),
                              submit_withdraw, job->id);
    scheduler_request(ctld);
}

/* Find the job named in the body and check the caller may act on it. */
struct job *ctld_job_for_req(struct ctld *ctld, proto_req_t *req,
                             int denied_errnum, int *errnum)
{
    json_int_t id = 0;
    struct job *job;

    if (json_unpack(proto_req_body(req), "{s:I}", "job_id", &id) < 0) {
        *errnum = EDRV_PROTOCOL_MALFORMED;
        return NULL;
    }
    if (id <= 0 || id > UINT32_MAX
        || !(job = ctld_job_find(ctld, (uint32_t)id))) {
        *errnum = EDRV_INVALID_JOB_ID;
        return NULL;
    }
    if (job->uid != proto_req_uid(req)
        && !(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN))) {
        *errnum = denied_errnum;
        return NULL;
    }
    return job;
}

/* scontrol write batch_script: the script as submitted, to its owner or
 * an operator (Slurm's REQUEST_BATCH_SCRIPT: another user is "Invalid
 * user id"). */
static void rpc_job_script(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int errnum = 0;
    struct job *job = ctld_job_for_req(ctld, req, EDRV_USER_ID_MISSING, &errnum);
    json_t *script;

    if (!job)
        return respond_errnum(req, errnum, "job_script");
    if (!(script = json_object_get(job->launch, "script")))
        return respond_errnum(req, EDRV_JOB_SCRIPT_MISSING, "job_script");
    proto_respond(req, json_pack("{s:O}", "script", script));
}

static void rpc_job_cancel(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int errnum = 0, signo = SIGKILL;
    const char *scope = "steps";
    struct job *job;

    if (array_cancel_rpc(ctld, req))
        return;
    if (!(job = ctld_job_for_req(ctld, req, EDRV_ACCESS_DENIED, &errnum)))
        return respond_errnum(req, errnum, "job_cancel");
    json_unpack(proto_req_body(req), "{s?i s?s}", "signal", &signo, "scope",
                &scope);
    if (strcmp(scope, "steps") && strcmp(scope, "batch")
        && strcmp(scope, "full"))
        return (void)proto_respond_error(req, EDRV_PROTOCOL_MALFORMED,
                                         "scope: not steps, batch or full");
    if (job_state_is_final(job->state))
        return respond_errnum(req, EDRV_ALREADY_DONE, "job_cancel");
    if ((job->state == JOB_RUNNING || job->state == JOB_SUSPENDED)
        && signo != SIGKILL) {
        if (!strcmp(scope, "batch")) /* -b: the script, on its host */
            ctld_job_signal_node(ctld, job, signo, false);
        else if (!strcmp(scope, "full"))
            ctld_job_signal_all(ctld, job, signo);
        else /* Slurm's default: every step, not the script */
            ctld_job_signal_steps(ctld, job, signo);
        proto_respond(req, NULL);
        return;
    }
    if (signo != SIGKILL) /* a pending job has nothing to signal: as
                           * slurmctld's job_signal(), not a cancel */
        return respond_errnum(req, EDRV_TRANSITION_STATE_NO_UPDATE,
                              "job_cancel");
    log_info("%s: JobId=%u uid %u", __func__, job->id, proto_req_uid(req));
    crontab_job_cancelled(ctld, job, ctld_now(ctld)); /* a cron job's entry */
    ctld_job_cancel(ctld, job, proto_req_uid(req));
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

/* Hold 'job' for the sender of 'req': priority 0, JobHeldUser, or
 * JobHeldAdmin when an operator holds another user's job. */
/* Hold (or release) 'job' for the sender of 'req' (CTLD_EV_JOB_HELD). */
static void job_set_held(struct ctld *ctld, struct job *job, proto_req_t *req,
                         bool hold)
{
    bool privileged = proto_req_roles(req)
                      & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN);
    struct ctld_event ev = {
        .type = CTLD_EV_JOB_HELD,
        .t = ctld_now(ctld),
        .job_id = job->id,
        .hold = hold,
        .admin = hold && privileged && job->uid != proto_req_uid(req)};

    ctld_apply(ctld, &ev);
}

/* scontrol hold/release.  As Slurm 22.05, a running job may be held: it
 * keeps running, and stays held if it is requeued. */
static void rpc_job_hold(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int errnum = 0, hold = 1;
    struct job *job = ctld_job_for_req(ctld, req, EDRV_USER_ID_MISSING, &errnum);
    bool privileged = proto_req_roles(req)
                      & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN);

    if (!job)
        return respond_errnum(req, errnum, "job_hold");
    json_unpack(proto_req_body(req), "{s?b}", "hold", &hold);
    if (job_state_is_final(job->state))
        return respond_errnum(req, EDRV_ALREADY_DONE, "job_hold");
    if (!hold && job->hold_admin && !privileged)
        return respond_errnum(req, EDRV_ACCESS_DENIED, "job_hold");
    job_set_held(ctld, job, req, hold);
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

/* scontrol requeue; with "hold" (scontrol requeuehold) the job is also
 * held, as by scontrol hold. */
static void rpc_job_requeue(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int errnum = 0, hold = 0;
    struct job *job = ctld_job_for_req(ctld, req, EDRV_ACCESS_DENIED, &errnum);

    if (!job)
        return respond_errnum(req, errnum, "job_requeue");
    json_unpack(proto_req_body(req), "{s?b}", "hold", &hold);
    if (job->state == JOB_PENDING || job->state == JOB_SPECIAL_EXIT)
        return respond_errnum(req, EDRV_JOB_PENDING, "job_requeue");
    /* Slurm: a job submitted with --no-requeue cannot be requeued. */
    if (!job->requeue)
        return respond_errnum(req, EDRV_DISABLED, "job_requeue");
    if (job->completing)
        return respond_errnum(req, EDRV_TRANSITION_STATE_NO_UPDATE,
                              "job_requeue");
    if (hold) /* before the requeue, which keeps the hold */
        job_set_held(ctld, job, req, true);
    if (job->state == JOB_RUNNING || job->state == JOB_SUSPENDED) {
        struct ctld_event ev = {.type = CTLD_EV_JOB_REQUEUE_REQUESTED,
                                .t = ctld_now(ctld),
                                .job_id = job->id};
        ctld_apply(ctld, &ev);
        ctld_job_signal_node(ctld, job, SIGKILL, true);
    } else {
        ctld_job_requeue(ctld, job, ctld_now(ctld), ctld_now(ctld), true);
    }
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

/* TimeLimit: as Slurm, a user may change a pending job's limit and lower
 * a running one's; raising a running job's limit takes an operator.
 * Returns 0 or EDRV_ACCESS_DENIED.
 */
static int update_time_limit(const struct job *job, int64_t limit,
                             bool privileged)
{
    if ((job->state == JOB_RUNNING || job->state == JOB_SUSPENDED)
        && !privileged
        && (limit == TIME_INFINITE
            || (job->time_limit_s != TIME_INFINITE
                && limit > job->time_limit_s)))
        return EDRV_ACCESS_DENIED;
    return 0;
}

/* EnforcePartLimits=ANY/ALL on an update: what the job would become
 * (TimeLimit=, Partition=, NumNodes=) over its partition's MaxTime or
 * MaxNodes is refused with the submission's errors.  Operators and
 * administrators may go over a partition's limits, as they may with a
 * running job's TimeLimit.  Returns 0 or the error number. */
static int update_part_limits(const struct ctld *ctld, const struct job *job,
                              const struct job_update *u, bool privileged)
{
    const struct ctld_partition *part =
        u->part ? u->part : node_table_partition(ctld->nodes, job->partition);
    int64_t limit = u->has_time_limit ? u->time_limit_s : job->time_limit_s;
    uint32_t nodes = u->min_nodes ? u->min_nodes : job->req.min_nodes;
    const struct conf_partition *cp;

    if (ctld->conf->enforce_part_limits == CONF_PART_LIMITS_NO || privileged
        || !part || !(u->has_time_limit || u->part || u->min_nodes))
        return 0;
    cp = part->conf;
    if (cp->max_time_s != TIME_INFINITE
        && (limit == TIME_INFINITE || limit > cp->max_time_s))
        return EDRV_INVALID_TIME_LIMIT;
    if ((cp->max_nodes != UINT32_MAX && nodes > cp->max_nodes)
        || nodes > bitmap_count(part->nodes))
        return EDRV_INVALID_NODE_COUNT;
    return 0;
}

/* scontrol update JobId= with TimeLimit=, Dependency= ("" clears it) and
 * the fields of job_update.h.  Every field is checked before any is
 * applied. */
static void rpc_job_update(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    json_t *dep = json_object_get(body, "dependency");
    int errnum = 0;
    struct job *job;
    bool privileged = proto_req_roles(req)
                      & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN);
    drv_error_t error = {{0}};
    struct job_update u;

    if (array_update_rpc(ctld, req))
        return;
    if (!(job = ctld_job_for_req(ctld, req, EDRV_USER_ID_MISSING, &errnum)))
        return respond_errnum(req, errnum, "job_update");
    if (job_state_is_final(job->state))
        return respond_errnum(req, EDRV_ALREADY_DONE, "job_update");
    if (job_update_check(ctld, job, body, &u, &error) < 0)
        return respond_error(req, &error, "job_update");
    if (u.has_time_limit
        && (errnum = update_time_limit(job, u.time_limit_s, privileged)))
        return respond_errnum(req, errnum, "job_update");
    if ((errnum = update_part_limits(ctld, job, &u, privileged)))
        return respond_errnum(req, errnum, "job_update");
    if (u.part && ctld_part_access(ctld, req, job, u.part->conf, &error) < 0)
        return respond_error(req, &error, "job_update");
    if (dep
        && depend_update_check(ctld, job, json_string_value(dep), &error)
               < 0)
        return respond_error(req, &error, "job_update");
    if (!dep && !u.any)
        return respond_errnum(req, EDRV_NOT_SUPPORTED, "job_update");
    if (u.has_priority && !privileged
        && (u.priority == 0 || u.priority > job->priority))
        return respond_errnum(req, EDRV_ACCESS_DENIED, "job_update");
    if (u.has_priority && u.priority == 0 && job->state != JOB_PENDING)
        return respond_errnum(req, EDRV_JOB_NOT_PENDING, "job_update");
    u.dependency = json_string_value(dep);
    struct ctld_event ev = {.type = CTLD_EV_JOB_UPDATED,
                            .t = ctld_now(ctld),
                            .job_id = job->id,
                            .update = &u};
    ctld_apply(ctld, &ev);
    if (u.has_priority && u.priority == 0) { /* Slurm: an admin hold */
        struct ctld_event held = {.type = CTLD_EV_JOB_HELD, .t = ev.t,
                                  .job_id = job->id, .hold = true,
                                  .admin = true};
        ctld_apply(ctld, &held);
    }
    if (u.has_time_limit && job->state == JOB_RUNNING)
        ctld_job_set_node_limit(ctld, job);
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

const struct proto_handler rpc_job_handlers[] = {
    {"job_update", rpc_job_update, PROTO_ROLE_USER},
    {"job_submit", rpc_job_submit, PROTO_ROLE_USER},
    {"job_info", job_listing_rpc, PROTO_ROLE_USER},
    {"job_cancel", rpc_job_cancel, PROTO_ROLE_USER},
    {"job_hold", rpc_job_hold, PROTO_ROLE_USER},
    {"job_script", rpc_job_script, PROTO_ROLE_USER},
    {"job_requeue", rpc_job_requeue, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
