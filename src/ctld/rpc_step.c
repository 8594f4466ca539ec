/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_step.c - step_create: srun inside a running job
 *
 * The job's owner (or an operator) asks for N tasks on M of the job's
 * nodes (srun -w/-x: which ones, step_nodes.h).  The step gets the job's next step id (journaled), the tasks are
 * laid out over M nodes of the allocation by srun -m's distribution
 * (step_layout.h), and each node's droverd gets step_launch with its
 * ranks and srun's I/O address.  srun is answered once every node has
 * answered (or the first error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/job_info.h"
#include "ctld/prolog_env.h"
#include "ctld/step.h"
#include "ctld/step_layout.h"
#include "ctld/step_nodes.h"
#include "ctld/step_res.h"
#include "proto/client.h"

struct step_ctx {
    struct ctld *ctld;
    proto_req_t *req;
    uint32_t job_id;
    uint32_t step_id;
    uint32_t nodes;
    uint32_t ntasks;
    uint32_t pending;
    int errnum;
    char *errstr;
    uint32_t gpus_per_task;
    const struct step_claim *claim; /* the step record's */
    struct taskdist dist;           /* -m, the default resolved */
    struct step_layout *layout;     /* which ranks run on which node */
    json_t *node_names;             /* in step order, for the answer */
};

static json_t *task_map(const struct step_layout *l);

static void step_answer(struct step_ctx *sc)
{
    if (sc->errnum)
        proto_respond_error(sc->req, sc->errnum, sc->errstr);
    else if (proto_respond(sc->req,
                           json_pack("{s:I s:I s:I s:o s:o}", "step_id",
                                     (json_int_t)sc->step_id, "nodes",
                                     (json_int_t)sc->nodes, "ntasks",
                                     (json_int_t)sc->ntasks, "node_names",
                                     json_incref(sc->node_names), "task_map",
                                     task_map(sc->layout)))
             < 0)
        log_err("step_create: responding");
    json_decref(sc->node_names);
    free(sc->errstr);
    step_layout_destroy(sc->layout);
    free(sc);
}

/* A node that could not launch its part reports it failed (status 1), so
 * the step record still ends. */
static void launch_failed(struct step_ctx *sc, long node)
{
    json_t *report = json_pack("{s:I s:I s:i}", "job_id",
                               (json_int_t)sc->job_id, "step_id",
                               (json_int_t)sc->step_id, "status", 1 << 8);

    ctld_step_complete(sc->ctld, report, node);
    json_decref(report);
}

struct launch_arg {
    struct step_ctx *sc;
    long node;
};

static void launch_done(int errnum, const char *errstr, json_t *resp,
                        void *arg)
{
    struct launch_arg *la = arg;
    struct step_ctx *sc = la->sc;

    (void)resp;
    if (errnum)
        launch_failed(sc, la->node);
    if (errnum == EDRV_PROLOG_FAILED) /* as Slurm, the node drains */
        ctld_node_drain_error(sc->ctld, la->node, "Prolog error");
    free(la);
    if (errnum && !sc->errnum) {
        sc->errnum = errnum;
        sc->errstr = xstrdup(errstr && *errstr ? errstr : NULL);
        log_error("StepId=%u.%u: launch failed: %s", sc->job_id, sc->step_id,
                  errstr ? errstr : drv_strerror(errnum));
    }
    if (--sc->pending == 0)
        step_answer(sc);
}

/* Slurm's tasks-per-node form: "2(x3),1". */
static char *tasks_per_node_fmt(const uint32_t *tasks, uint32_t n)
{
    char *s = xstrdup(""), *t;

    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;

        while (j < n && tasks[j] == tasks[i])
            j++;
        if (j - i > 1)
            t = xasprintf("%s%s%u(x%u)", s, *s ? "," : "", tasks[i], j - i);
        else
            t = xasprintf("%s%s%u", s, *s ? "," : "", tasks[i]);
        free(s);
        s = t;
        i = j;
    }
    return s;
}

/* Block layout: the job's own per-node counts when the step asks for the
 * whole allocation, else an even split with the remainder first. */
static void layout(const struct job *job, uint32_t nodes, uint32_t ntasks,
                   uint32_t *tasks)
{
    uint32_t total = 0;

    for (uint32_t i = 0; i < job->alloc->node_count; i++)
        total += job->alloc->tasks[i];
    for (uint32_t i = 0; i < nodes; i++) {
        if (nodes == job->alloc->node_count && ntasks == total)
            tasks[i] = job->alloc->tasks[i];
        else
            tasks[i] = ntasks / nodes + (i < ntasks % nodes ? 1 : 0);
    }
}

/* step_create's "distribution" (srun -m, Slurm's forms).  Absent, or a
 * form this controller does not know (a newer srun): the default.  The
 * default is Slurm's: cyclic when every node gets at most one task, else
 * block (the same ranks either way; it names SLURM_DISTRIBUTION). */
static void step_dist(json_t *body, struct step_ctx *sc)
{
    const char *spec = json_string_value(json_object_get(body,
                                                         "distribution"));
    struct taskdist d = {0};

    if (spec && taskdist_parse(spec, NULL, &d, NULL) < 0) {
        log_verbose("step_create: distribution '%s' unknown: default",
                    spec);
        d = (struct taskdist){0};
    }
    if (d.node == TASKDIST_UNSET)
        d.node = sc->ntasks <= sc->nodes ? TASKDIST_CYCLIC : TASKDIST_BLOCK;
    sc->dist = d;
}

/* Plane sets its own counts: blocks of plane_size ranks round robin, as
 * far as the job's CPUs on each node (over -c) go (Slurm's rule). */
static void plane_layout(const struct job *job, const struct step_req *rq,
                         const struct step_ctx *sc, uint32_t *tasks)
{
    uint32_t *cap = xzalloc(sizeof(*cap) * sc->nodes);
    uint32_t cpt = rq->cpus_per_task ? rq->cpus_per_task : 1;

    for (uint32_t i = 0; i < sc->nodes; i++)
        cap[i] = job->alloc->cpus[i] / cpt ? job->alloc->cpus[i] / cpt : 1;
    step_layout_plane_counts(sc->nodes, sc->ntasks, sc->dist.plane_size,
                             cap, tasks);
    free(cap);
}

/* The job's allocation entry of node 'name', or -1. */
static long alloc_entry(struct ctld *ctld, const struct job *job,
                        const char *name)
{
    long idx = name ? node_table_index(ctld->nodes, name) : -1;

    for (uint32_t e = 0; idx >= 0 && e < job->alloc->node_count; e++)
        if (job->alloc->node_idx[e] == (uint32_t)idx)
            return (long)e;
    return -1;
}

/* -m arbitrary: rank r runs on task_nodes[r] (srun's -w list or
 * SLURM_HOSTFILE, in order).  The step's nodes are the job's nodes named,
 * in allocation order, and must be those (*ents).  0 or an EDRV_*. */
static int arbitrary_plan(struct ctld *ctld, const struct job *job,
                          json_t *names, struct step_ctx *sc, uint32_t **ents)
{
    size_t n = json_array_size(names), nent = job->alloc->node_count;
    uint32_t *pos = xzalloc(sizeof(*pos) * nent); /* entry -> node + 1 */
    uint32_t *on = xzalloc(sizeof(*on) * n), nodes = 0;
    int rc = 0;

    for (size_t r = 0; r < n && !rc; r++) {
        long e = alloc_entry(ctld, job,
                             json_string_value(json_array_get(names, r)));

        if (e < 0) {
            rc = EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        } else {
            pos[e] = 1;
            on[r] = (uint32_t)e;
        }
    }
    *ents = xzalloc(sizeof(**ents) * nent);
    for (uint32_t e = 0; e < nent && !rc; e++)
        if (pos[e]) {
            (*ents)[nodes] = e;
            pos[e] = ++nodes;
        }
    for (size_t r = 0; r < n && !rc; r++)
        on[r] = pos[on[r]] - 1;
    sc->ntasks = (uint32_t)n;
    sc->nodes = nodes;
    if (!rc && !(sc->layout = step_layout_from_map(nodes, sc->ntasks, on)))
        rc = EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    free(pos);
    free(on);
    return rc;
}

/* The step's distribution, its per-node counts (*tasks, sc->nodes long)
 * and its ranks on each node (sc->layout); for -m arbitrary also the job
 * entries it must run on (*ents, in rq).  0 or an error number. */
static int step_plan(struct ctld *ctld, const struct job *job, json_t *body,
                     struct step_req *rq, struct step_ctx *sc,
                     uint32_t **tasks, uint32_t **ents)
{
    json_t *names = json_object_get(body, "task_nodes");
    int rc;

    step_dist(body, sc);
    if (sc->dist.node == TASKDIST_ARBITRARY && json_array_size(names)
        && json_array_size(names) <= 65536) {
        if ((rc = arbitrary_plan(ctld, job, names, sc, ents)))
            return rc;
        rq->entries = *ents;
        *tasks = xzalloc(sizeof(**tasks) * sc->nodes);
        memcpy(*tasks, sc->layout->tasks, sizeof(**tasks) * sc->nodes);
        return 0;
    }
    *tasks = xzalloc(sizeof(**tasks) * sc->nodes);
    if (sc->dist.node == TASKDIST_PLANE)
        plane_layout(job, rq, sc, *tasks);
    else
        layout(job, sc->nodes, sc->ntasks, *tasks);
    /* The counts of both are >= 1 on every node: only ENOMEM fails. */
    sc->layout = step_layout_create(sc->nodes, *tasks, sc->dist.node,
                                    sc->dist.plane_size);
    return sc->layout ? 0 : errno;
}

static int io_host(proto_req_t *req, char *buf, size_t len)
{
    const struct sockaddr *sa = proto_req_peer_addr(req);

    if (sa->sa_family == AF_INET6)
        return uv_ip6_name((const struct sockaddr_in6 *)sa, buf, len);
    return uv_ip4_name((const struct sockaddr_in *)sa, buf, len);
}

/* Is "NAME=value" one of 'names'? */
static bool env_named(const char *kv, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);

        if (!strncmp(kv, names[i], len) && kv[len] == '=')
            return true;
    }
    return false;
}

/* The tasks' environment: srun's, with the step's SLURM_DISTRIBUTION
 * (and a plane's SLURM_DIST_PLANESIZE) in place of any it inherited, and
 * unless srun -E ('preserve') the step's SLURM_NTASKS, SLURM_NPROCS and
 * SLURM_NNODES, as Slurm's srun sets them once the step is laid out. */
static json_t *step_env(json_t *env, const struct step_ctx *sc,
                        bool preserve)
{
    static const char *const names[] = {
        "SLURM_DISTRIBUTION", "SLURM_DIST_PLANESIZE", "SLURM_NTASKS",
        "SLURM_NPROCS", "SLURM_NNODES"};
    const struct taskdist *d = &sc->dist;
    json_t *out = json_array(), *v;
    char text[TASKDIST_TEXT_MAX];
    size_t i;

    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);

        if (s && !env_named(s, names, preserve ? 2 : 5))
            json_array_append(out, v);
    }
    json_array_append_new(out, json_sprintf("SLURM_DISTRIBUTION=%s",
                                            taskdist_format(d, 0, text)));
    if (d->node == TASKDIST_PLANE)
        json_array_append_new(out, json_sprintf("SLURM_DIST_PLANESIZE=%u",
                                                d->plane_size));
    if (!preserve) {
        json_array_append_new(out, json_sprintf("SLURM_NTASKS=%u",
                                                sc->ntasks));
        json_array_append_new(out, json_sprintf("SLURM_NPROCS=%u",
                                                sc->ntasks));
        json_array_append_new(out, json_sprintf("SLURM_NNODES=%u",
                                                sc->nodes));
    }
    return out;
}

/* Every node's ranks, [[0,2],[1,3]]: "task_map" for --mpi steps, whose
 * PMIx job map names every rank's node (mpi_pmix.h). */
static json_t *task_map(const struct step_layout *l)
{
    json_t *map = json_array();

    for (uint32_t i = 0; i < l->nodes; i++) {
        json_t *ranks = json_array();

        for (uint32_t k = 0; k < l->tasks[i]; k++)
            json_array_append_new(ranks,
                                  json_integer(l->rank[l->start[i] + k]));
        json_array_append_new(map, ranks);
    }
    return map;
}

/* The step_launch body common to every node. */
static json_t *launch_body(struct ctld *ctld, struct job *job,
                           proto_req_t *req, struct step_ctx *sc,
                           const uint32_t *tasks)
{
    json_t *body = proto_req_body(req);
    char host[64] = "", *tpn, *nodes;
    json_t *o;

    nodes = node_table_alloc_hostlist(ctld->nodes, sc->claim->part);
    tpn = tasks_per_node_fmt(tasks, sc->nodes);
    io_host(req, host, sizeof(host));
    o = json_pack("{s:I s:I s:I s:I s:s s:O s:o s:O s:I s:s s:s s:I s:s s:O}",
                  "job_id", (json_int_t)job->id, "step_id",
                  (json_int_t)sc->step_id, "uid", (json_int_t)job->uid, "gid",
                  (json_int_t)job->gid, "user_name", job->user_name, "argv",
                  json_object_get(body, "argv"), "env",
                  step_env(json_object_get(body, "env"), sc,
                           json_is_true(json_object_get(body,
                                                        "preserve_env"))),
                  "cwd",
                  json_object_get(body, "cwd"), "ntasks",
                  (json_int_t)sc->ntasks, "nodes", nodes, "tasks_per_node",
                  tpn, "num_nodes", (json_int_t)sc->nodes, "io_host", host,
                  "io_port", json_object_get(body, "io_port"));
    json_object_set(o, "io_key", json_object_get(body, "io_key"));
    if (json_is_string(json_object_get(body, "mpi"))) {
        json_object_set(o, "mpi", json_object_get(body, "mpi"));
        json_object_set_new(o, "task_map", task_map(sc->layout));
    }
    if (json_is_string(json_object_get(body, "input"))) /* srun -i */
        json_object_set(o, "input", json_object_get(body, "input"));
    for (size_t i = 0; job_container_keys[i]; i++) /* src/noded/oci.h */
        if (json_is_string(json_object_get(body, job_container_keys[i])))
            json_object_set(o, job_container_keys[i],
                            json_object_get(body, job_container_keys[i]));
    /* srun --multi-prog (the file's text), --task-prolog, --task-epilog,
     * the limits srun propagates */
    for (size_t i = 0; i < 4; i++) {
        static const char *const keys[] = {"multi_prog", "task_prolog",
                                           "task_epilog", "rlimits"};

        json_t *v = json_object_get(body, keys[i]);

        if (json_is_string(v) || json_is_object(v))
            json_object_set(o, keys[i], v);
    }
    /* binding (src/noded/affinity.h): passed on as srun checked them */
    for (size_t i = 0; i < 3; i++) {
        static const char *const keys[] = {"cpu_bind", "gpu_bind", "hint"};

        json_t *v = json_object_get(body, keys[i]);

        if (json_is_string(v) || json_is_object(v))
            json_object_set(o, keys[i], v);
    }
    if (json_is_integer(json_object_get(body, "cpus_per_task")))
        json_object_set(o, "cpus_per_task",
                        json_object_get(body, "cpus_per_task"));
    free(nodes);
    free(tpn);
    if (sc->gpus_per_task)
        json_object_set_new(o, "gpus_per_task",
                            json_integer(sc->gpus_per_task));
    /* srun --pty: passed on as given (docs/protocol.md step_launch). */
    if (json_is_true(json_object_get(body, "pty"))) {
        json_object_set_new(o, "pty", json_true());
        json_object_set_new(o, "pty_rows", json_integer(json_integer_value(
            json_object_get(body, "pty_rows"))));
        json_object_set_new(o, "pty_cols", json_integer(json_integer_value(
            json_object_get(body, "pty_cols"))));
    }
    return o;
}

static json_t *gpu_list(const bitmap_t *gpus)
{
    json_t *g = json_array();

    for (long b = bitmap_first_set(gpus, 0); b >= 0;
         b = bitmap_first_set(gpus, (size_t)b + 1))
        json_array_append_new(g, json_integer(b));
    return g;
}

/* What the step's cgroup on its i-th node holds to (docs/protocol.md
 * step_launch): the job's memory, GPUs and CPU count there, the step's
 * --mem; with the job's shards there, "shards" and (unless the step has
 * GPUs of its own) the shards' GPU as the step's. */
static void limits_json(const struct ctld *ctld, const struct job *job,
                        const struct step_claim *cl, uint32_t i, json_t *o)
{
    const struct sched_alloc *a = job->alloc;
    uint32_t e = cl->ent[i];

    json_object_set_new(o, "job_mem_mib", json_integer((json_int_t)
                                                       a->mem_mib[e]));
    json_object_set_new(o, "mem_mib", json_integer((json_int_t)
                                                   cl->part->mem_mib[i]));
    json_object_set_new(o, "job_gpus", a->gpus[e] ? gpu_list(a->gpus[e])
                                                  : json_array());
    json_object_set_new(o, "job_cpus", json_integer((json_int_t)a->cpus[e]));
    if (a->shards[e]) { /* its tasks see the GPU lending the shards */
        json_object_set_new(o, "shards", json_integer(a->shards[e]));
        if (job->mps_per_node)
            json_object_set_new(o, "mps_percent", json_integer(
                                    job_info_mps_percent(ctld, job, e)));
        if (!json_object_get(o, "gpus"))
            json_object_set_new(o, "gpus", gpu_list(a->gpus[e]));
    }
    if (a->cpu_ids[e]) {
        char *ids = bitmap_fmt(a->cpu_ids[e]);
        if (ids)
            json_object_set_new(o, "job_cpu_ids", json_string(ids));
        free(ids);
    }
}

static void send_launches(struct ctld *ctld, struct job *job,
                          struct step_ctx *sc, json_t *base)
{
    const struct step_layout *l = sc->layout;

    sc->pending = sc->nodes;
    sc->node_names = json_array();
    for (uint32_t i = 0; i < sc->nodes; i++) {
        uint32_t idx = sc->claim->part->node_idx[i];
        const struct conf_node *cn = ctld->nodes->info[idx].conf;
        json_t *o = json_deep_copy(base), *ranks = json_array(), *penv;
        struct launch_arg *la = xzalloc(sizeof(*la));
        const bitmap_t *gpus = sc->claim->part->gpus[i];

        for (uint32_t t = 0; t < l->tasks[i]; t++)
            json_array_append_new(ranks,
                                  json_integer(l->rank[l->start[i] + t]));
        json_object_set_new(o, "ranks", ranks);
        if (gpus) /* the GPUs its tasks see there */
            json_object_set_new(o, "gpus", gpu_list(gpus));
        limits_json(ctld, job, sc->claim, i, o);
        if ((penv = prolog_env_json(ctld, job, sc->claim->ent[i])))
            json_object_set_new(o, "prolog_env", penv);
        la->sc = sc;
        la->node = (long)idx;
        json_object_set_new(o, "node_index", json_integer(i));
        json_array_append_new(sc->node_names, json_string(cn->name));
        if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                             "step_launch", o,
                             (int)ctld->conf->msg_timeout_s * 1000,
                             launch_done, la)
            < 0) {
            log_err("StepId=%u.%u: step_launch to %s", job->id, sc->step_id,
                    cn->name);
            launch_done(errno, NULL, NULL, la);
        }
    }
}

/* Defaults and limits of the step's size, within the nodes -w/-x leave
 * it ('sn'); 0 or an EDRV_* number. */
static int step_size(const struct job *job, json_int_t ntasks,
                     json_int_t nodes, const struct step_nodes *sn,
                     struct step_ctx *sc)
{
    uint32_t total = 0, avail = job->alloc->node_count;

    for (uint32_t i = 0; i < job->alloc->node_count; i++)
        total += job->alloc->tasks[i];
    if (sn->mask) /* -w/-x: one task a node unless -n says */
        total = avail = sn->usable;
    if (ntasks <= 0)
        ntasks = sn->mask && nodes > 0 ? nodes : total ? total : avail;
    if (nodes <= 0)
        nodes = ntasks < avail ? ntasks : avail;
    if (sn->mask && nodes < sn->must)
        nodes = ntasks < sn->must ? ntasks : sn->must;
    if (nodes > job->alloc->node_count || ntasks < nodes
        || ntasks > 65536)
        return EDRV_INVALID_NODE_COUNT;
    /* Slurm's step node pick: -w beyond the step's count, or a count
     * beyond what -x leaves */
    if (sn->mask && (sn->must > nodes || nodes > avail))
        return EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    sc->ntasks = (uint32_t)ntasks;
    sc->nodes = (uint32_t)nodes;
    return 0;
}

/* The job named, running, and the caller's (or an operator's). */
static struct job *step_job(struct ctld *ctld, proto_req_t *req,
                            json_int_t id, int *errnum)
{
    struct job *job = id > 0 && id <= UINT32_MAX
                          ? ctld_job_find(ctld, (uint32_t)id)
                          : NULL;

    *errnum = EDRV_INVALID_JOB_ID;
    if (!job)
        return NULL;
    *errnum = EDRV_ACCESS_DENIED;
    if (job->uid != proto_req_uid(req)
        && !(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN)))
        return NULL;
    *errnum = EDRV_ALREADY_DONE;
    if (job->state != JOB_RUNNING || !job->alloc || job->completing)
        return NULL;
    /* PrologSlurmctld still runs (prolog_ctld.h): srun retries, as on
     * busy nodes */
    *errnum = EDRV_NODES_BUSY;
    if (job->configuring)
        return NULL;
    return job;
}

/* The step's own request: step_create's optional keys (their bounds
 * checked against its schema: proto/schema_msgs.c). */
static void step_req_parse(json_t *body, struct step_req *rq)
{
    json_int_t cpt = 0, mem = 0, gpt = 0, gpn = 0, gpus = 0, minc = 0;
    int exact = 0, overlap = 0, over = 0;

    json_unpack(body, "{s?I s?I s?I s?I s?I s?b s?b s?b s?I}",
                "cpus_per_task", &cpt, "mem_mib", &mem, "gpus_per_task", &gpt,
                "gpus_per_node", &gpn, "gpus", &gpus, "exact", &exact,
                "overlap", &overlap, "overcommit", &over, "min_cpus", &minc);
    *rq = (struct step_req){
        .cpus_per_task = (uint32_t)cpt, .min_cpus = (uint32_t)minc,
        .exact = exact, .overlap = overlap,
        .overcommit = over,
        .mem_mib = (uint64_t)mem, .gpus_per_task = (uint32_t)gpt,
        .gpus_per_node = (uint32_t)gpn, .gpus = (uint32_t)gpus};
}

/* The step's -B S:C:T (bounded by its schema). */
static void step_topo_parse(json_t *body, struct step_topo *topo)
{
    json_int_t s = 0, c = 0, t = 0;

    json_unpack(body, "{s?I s?I s?I}", "sockets_per_node", &s,
                "cores_per_socket", &c, "threads_per_core", &t);
    *topo = (struct step_topo){.sockets = (uint16_t)s,
                               .cores = (uint16_t)c,
                               .threads = (uint16_t)t};
}

static void rpc_step_create(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    json_int_t id = 0, ntasks = 0, nodes = 0;
    struct step_claim *claim = NULL;
    const struct step_claim *claims[256];
    struct step_req rq;
    struct step_nodes sn;
    struct step_topo topo;
    struct step_ctx *sc;
    struct job *job;
    char dist[TASKDIST_TEXT_MAX];
    struct job_step *step;
    uint32_t *tasks = NULL, *ents = NULL;
    size_t nclaims = 0;
    json_t *base;
    int errnum;

    if (json_unpack(body, "{s:I s?I s?I}", "job_id", &id, "ntasks", &ntasks,
                    "nodes", &nodes)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, "job_id: missing");
        return;
    }
    step_req_parse(body, &rq);
    if (!(job = step_job(ctld, req, id, &errnum))) {
        proto_respond_error(req, errnum, NULL);
        return;
    }
    /* MaxStepCount: the steps a job may start, as Slurm counts them (its
     * step ids) */
    if (job->next_step_id >= ctld->conf->max_step_count) {
        proto_respond_error(req, EDRV_STEP_LIMIT, NULL);
        return;
    }
    step_topo_parse(body, &topo);
    if ((errnum = step_nodes_resolve(
             ctld->nodes, job->alloc,
             json_string_value(json_object_get(body, "nodelist")),
             json_string_value(json_object_get(body, "exclude")),
             topo.sockets || topo.cores || topo.threads ? &topo : NULL,
             &sn))) {
        proto_respond_error(req, errnum, NULL);
        return;
    }
    rq.ent_mask = sn.mask;
    sc = xzalloc(sizeof(*sc));
    if (!(errnum = step_size(job, ntasks, nodes, &sn, sc))
        && sc->ntasks > (uint64_t)sc->nodes * ctld->conf->max_tasks_per_node)
        errnum = EDRV_BAD_TASK_COUNT; /* MaxTasksPerNode, as Slurm's */
    if (errnum) {
        proto_respond_error(req, errnum,
                            errnum == EDRV_INVALID_NODE_COUNT
                                ? "step does not fit the job's allocation"
                                : NULL);
        free(sn.mask);
        free(sc);
        return;
    }
    for (struct job_step *s = job->steps; s && nclaims < 256; s = s->next)
        if (s->state == JOB_RUNNING && s->claim)
            claims[nclaims++] = s->claim;
    if ((errnum = step_plan(ctld, job, body, &rq, sc, &tasks, &ents))
        || (errnum = step_res_pick(job->alloc, &rq, sc->nodes, tasks, claims,
                                   nclaims, &claim))) {
        proto_respond_error(req, errnum, NULL);
        step_layout_destroy(sc->layout);
        free(tasks);
        free(ents);
        free(sn.mask);
        free(sc);
        return;
    }
    free(ents);
    free(sn.mask);
    sc->ctld = ctld;
    sc->req = req;
    sc->job_id = job->id;
    sc->step_id = job->next_step_id++;
    sc->gpus_per_task = rq.gpus_per_task;
    sc->claim = claim;
    step = ctld_step_record(ctld, job, sc->step_id, body, claim, sc->ntasks);
    step->dist = xstrdup(taskdist_layout_name(&sc->dist, dist));
    struct ctld_event ev = {.type = CTLD_EV_STEP_STARTED,
                            .t = step->start_time,
                            .job_id = job->id,
                            .step = step};
    ctld_apply(ctld, &ev);
    base = launch_body(ctld, job, req, sc, tasks);
    log_info("StepId=%u.%u: %u tasks on %u nodes, %s", job->id,
             sc->step_id, sc->ntasks, sc->nodes,
             taskdist_format(&sc->dist, 1, dist));
    send_launches(ctld, job, sc, base);
    json_decref(base);
    free(tasks);
}

const struct proto_handler rpc_step_handlers[] = {
    {"step_create", rpc_step_create, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
