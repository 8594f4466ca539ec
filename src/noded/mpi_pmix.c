/* SPDX-License-Identifier: Apache-2.0
 *
 * mpi_pmix.c - the PMIx server of droverd (see mpi_pmix.h)
 *
 * libpmix runs its own progress thread and calls the server module
 * (fence_nb) from it.  Those calls only queue a request under a mutex and
 * wake the libuv loop (uv_async); everything else happens on the loop.
 * Registration calls are asynchronous in libpmix: the loop waits for
 * their completion on a condition variable (they finish in libpmix's
 * thread, quickly).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/base64.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/taskcount.h"
#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/spool.h"
#include "noded/mpi_pmix.h"
#include "noded/pmix_dl.h"

/* A fence that libpmix handed over, waiting for srun's answer. */
struct fence {
    uint32_t id;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
    struct fence *next;
};

struct nd_pmix_ns {
    char name[PMIX_MAX_NSLEN + 1];
    struct noded *nd;
    uint32_t *local;      /* this node's ranks, ascending */
    uint32_t nlocal;
    uint32_t next_fence;
    bool lost;            /* srun's connection is gone */
    struct fence *fences;
    void (*send)(void *arg, json_t *msg);
    void *send_arg;
    struct nd_pmix_ns *next;
};

/* Every node's ranks: node i runs rank[start[i] .. start[i] + count[i]). */
struct job_map {
    size_t nodes;
    uint32_t *count, *start, *rank;
};

/* A call of the server module, queued for the loop: a fence, or an
 * abort (abort_cb set). */
struct request {
    char nspace[PMIX_MAX_NSLEN + 1];
    pmix_rank_t rank;
    char *data;
    size_t ndata;
    pmix_modex_cbfunc_t cbfunc;
    pmix_op_cbfunc_t abort_cb;
    int status;
    void *cbdata;
    struct request *next;
};

/* libpmix's server is one per process, and so is this. */
static struct {
    bool started;
    struct noded *nd;
    pthread_mutex_t lock;
    struct request *queue;
    uv_async_t async;
    struct nd_pmix_ns *spaces;
} srv = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Under LeakSanitizer (the sanitizer build): libpmix keeps some of its
 * own allocations (its store, PMIx_server_init's state) past
 * PMIx_server_finalize; they are not ours to free. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

/* --- libpmix's thread ------------------------------------------------ */

static void enqueue(struct request *r)
{
    struct request **pp;

    pthread_mutex_lock(&srv.lock);
    for (pp = &srv.queue; *pp; pp = &(*pp)->next)
        ;
    *pp = r;
    pthread_mutex_unlock(&srv.lock);
    uv_async_send(&srv.async);
}

/* MPI_Abort: the whole step goes (srun tells every node). */
static pmix_status_t abort_fn(const pmix_proc_t *proc, void *server_object,
                              int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct request *r = calloc(1, sizeof(*r));

    (void)server_object;
    (void)msg;
    (void)procs;
    (void)nprocs;
    if (!r)
        return PMIX_ERR_NOMEM;
    memcpy(r->nspace, proc->nspace, sizeof(r->nspace) - 1);
    r->rank = proc->rank;
    r->status = status;
    r->abort_cb = cbfunc;
    r->cbdata = cbdata;
    enqueue(r);
    return PMIX_SUCCESS;
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo,
                              char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    struct request *r;

    (void)info;
    (void)ninfo;
    if (nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    r = calloc(1, sizeof(*r));
    if (!r || (ndata && !(r->data = malloc(ndata)))) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    memcpy(r->nspace, procs[0].nspace, sizeof(r->nspace) - 1);
    if (ndata)
        memcpy(r->data, data, ndata);
    r->ndata = ndata;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    enqueue(r);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .abort = abort_fn,
    .fence_nb = fence_nb,
};

struct waiter {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t status;
};

static void op_done(pmix_status_t status, void *arg)
{
    struct waiter *w = arg;

    pthread_mutex_lock(&w->m);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static void op_ignore(pmix_status_t status, void *arg)
{
    (void)status;
    (void)arg;
}

/* --- the loop ---------------------------------------------------------- */

/* 'rc' is what the registration call returned; wait for its callback. */
static pmix_status_t wait_op(struct waiter *w, pmix_status_t rc)
{
    if (rc == PMIX_OPERATION_SUCCEEDED)
        rc = PMIX_SUCCESS;
    else if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&w->m);
        while (!w->done)
            pthread_cond_wait(&w->c, &w->m);
        rc = w->status;
        pthread_mutex_unlock(&w->m);
    }
    pthread_mutex_destroy(&w->m);
    pthread_cond_destroy(&w->c);
    return rc;
}

static void waiter_init(struct waiter *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->c, NULL);
}

static struct nd_pmix_ns *ns_find(const char *name)
{
    for (struct nd_pmix_ns *ns = srv.spaces; ns; ns = ns->next)
        if (!strcmp(ns->name, name))
            return ns;
    return NULL;
}

static void release_data(void *arg)
{
    free(arg);
}

static void start_fence(struct request *r)
{
    struct nd_pmix_ns *ns = ns_find(r->nspace);
    struct fence *f;
    char *b64;

    if (!ns || ns->lost) {
        log_error("PMIx fence for %s: %s", r->nspace,
                  ns ? "srun is gone" : "no such step");
        r->cbfunc(PMIX_ERR_LOST_CONNECTION, NULL, 0, r->cbdata, NULL, NULL);
        return;
    }
    f = xzalloc(sizeof(*f));
    f->id = ns->next_fence++;
    f->cbfunc = r->cbfunc;
    f->cbdata = r->cbdata;
    f->next = ns->fences;
    ns->fences = f;
    b64 = base64_encode(r->data ? r->data : "", r->ndata);
    ns->send(ns->send_arg,
             json_pack("{s:I s:s s:s}", "fence", (json_int_t)f->id, "node",
                       ns->nd->node->name, "data", b64));
    free(b64);
}

static void start_abort(struct request *r)
{
    struct nd_pmix_ns *ns = ns_find(r->nspace);

    log_info("%s: rank %u aborted with status %d", r->nspace, r->rank,
             r->status);
    if (ns && !ns->lost)
        ns->send(ns->send_arg,
                 json_pack("{s:i s:s s:I}", "abort", r->status, "node",
                           ns->nd->node->name, "rank", (json_int_t)r->rank));
    if (r->abort_cb)
        r->abort_cb(PMIX_SUCCESS, r->cbdata);
}

static void async_cb(uv_async_t *h)
{
    struct request *q, *next;

    (void)h;
    pthread_mutex_lock(&srv.lock);
    q = srv.queue;
    srv.queue = NULL;
    pthread_mutex_unlock(&srv.lock);
    for (; q; q = next) {
        next = q->next;
        if (q->abort_cb)
            start_abort(q);
        else
            start_fence(q);
        free(q->data);
        free(q);
    }
}

static void add_str(void *list, const char *key, const char *value)
{
    PMIx_Info_list_add(list, key, value, PMIX_STRING);
}

static void add_u32(void *list, const char *key, uint32_t value)
{
    PMIx_Info_list_add(list, key, &value, PMIX_UINT32);
}

static int server_start(struct noded *nd, drv_error_t *error)
{
    if (pmix_dl_load(error) < 0)
        return -1;
    char *dir = xstrdup(nd->pmix_dir);
    char *me = xasprintf("droverstepd.%s.%d", nd->node->name, (int)getpid());
    void *list = PMIx_Info_list_start();
    bool no = false;
    pmix_rank_t rank = 0;
    pmix_data_array_t arr;
    pmix_status_t rc;
    int dfd;

    /* Fresh, root's, readable by the tasks (their PMIx socket is in it);
     * one left by an earlier run is removed first (spool.h). */
    if ((dfd = spool_mkdir_fresh(nd->spool_dir, strrchr(dir, '/') + 1, 0755,
                                 error)) < 0) {
        free(dir);
        free(me);
        PMIx_Info_list_release(list);
        return -1;
    }
    close(dfd);
    /* The hash store keeps job data in the server and hands it over the
     * socket; the shared-memory stores need files the job's user can
     * read, which buys nothing at this scale. */
    setenv("PMIX_MCA_gds", "hash", 0);
    add_str(list, PMIX_SERVER_TMPDIR, dir);
    add_str(list, PMIX_SYSTEM_TMPDIR, dir);
    add_str(list, PMIX_HOSTNAME, nd->node->name);
    add_str(list, PMIX_SERVER_NSPACE, me);
    PMIx_Info_list_add(list, PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_list_add(list, PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
    PMIx_Info_list_convert(list, &arr);
    PMIx_Info_list_release(list);
    rc = PMIx_server_init(&module, arr.array, arr.size);
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
    free(me);
    if (rc != PMIX_SUCCESS) {
        errprintf(error, "PMIx_server_init (%s): %s", dir,
                  PMIx_Error_string(rc));
        free(dir);
        return -1;
    }
    free(dir);
    uv_async_init(nd->loop, &srv.async, async_cb);
    uv_unref((uv_handle_t *)&srv.async);
    srv.nd = nd;
    srv.started = true;
    log_info("PMIx server %s started", PMIx_Get_version());
    return 0;
}

/* "2,5,8": 'count' ranks. */
static char *join_ranks(const uint32_t *ranks, uint32_t count)
{
    char *s = xstrdup(""), *t;

    for (uint32_t k = 0; k < count; k++) {
        t = xasprintf("%s%s%u", s, k ? "," : "", ranks[k]);
        free(s);
        s = t;
    }
    return s;
}

/* The maps: node01,node02 and 0,2;1,3 (plain lists: libpmix takes them
 * as they are where a regex is expected). */
static void job_maps(const hostlist_t *hl, const struct job_map *m,
                     char **node_map, char **proc_map)
{
    char *nm = xstrdup(""), *pm = xstrdup(""), *t, *ranks;

    for (size_t i = 0; i < m->nodes; i++) {
        t = xasprintf("%s%s%s", nm, i ? "," : "", hostlist_nth(hl, i));
        free(nm);
        nm = t;
        ranks = join_ranks(m->rank + m->start[i], m->count[i]);
        t = xasprintf("%s%s%s", pm, i ? ";" : "", ranks);
        free(pm);
        free(ranks);
        pm = t;
    }
    *node_map = nm;
    *proc_map = pm;
}

/* PMIX_PROC_DATA of every rank: its node, local rank and host name. */
static void add_proc_data(void *list, const hostlist_t *hl,
                          const struct job_map *m)
{
    uint32_t zero = 0;

    for (size_t i = 0; i < m->nodes; i++) {
        for (uint32_t l = 0; l < m->count[i]; l++) {
            void *p = PMIx_Info_list_start();
            pmix_rank_t r = m->rank[m->start[i] + l];
            uint16_t lr = (uint16_t)l;
            uint32_t nid = (uint32_t)i;
            pmix_data_array_t arr;

            PMIx_Info_list_add(p, PMIX_RANK, &r, PMIX_PROC_RANK);
            PMIx_Info_list_add(p, PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
            PMIx_Info_list_add(p, PMIX_APP_RANK, &r, PMIX_PROC_RANK);
            PMIx_Info_list_add(p, PMIX_APPNUM, &zero, PMIX_UINT32);
            PMIx_Info_list_add(p, PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
            PMIx_Info_list_add(p, PMIX_NODE_RANK, &lr, PMIX_UINT16);
            PMIx_Info_list_add(p, PMIX_NODEID, &nid, PMIX_UINT32);
            add_str(p, PMIX_HOSTNAME, hostlist_nth(hl, i));
            PMIx_Info_list_convert(p, &arr);
            PMIx_Info_list_release(p);
            PMIx_Info_list_add(list, PMIX_PROC_DATA, &arr, PMIX_DATA_ARRAY);
            PMIX_DATA_ARRAY_DESTRUCT(&arr);
        }
    }
}

static void add_job_info(void *list, const struct nd_pmix_step *st,
                         const struct nd_pmix_ns *ns, const hostlist_t *hl,
                         const struct job_map *m)
{
    char *jobid = xasprintf("%u.%u", st->job_id, st->step_id);
    char *node_map, *proc_map, *peers = join_ranks(ns->local, ns->nlocal);
    pmix_rank_t zero = 0, lldr = ns->local[0];
    bool no = false;

    job_maps(hl, m, &node_map, &proc_map);
    add_u32(list, PMIX_UNIV_SIZE, st->ntasks);
    add_u32(list, PMIX_JOB_SIZE, st->ntasks);
    add_u32(list, PMIX_MAX_PROCS, st->ntasks);
    add_u32(list, PMIX_APP_SIZE, st->ntasks);
    add_u32(list, PMIX_LOCAL_SIZE, ns->nlocal);
    add_u32(list, PMIX_NUM_NODES, (uint32_t)m->nodes);
    add_str(list, PMIX_JOBID, jobid);
    add_str(list, PMIX_NODE_MAP, node_map);
    add_str(list, PMIX_PROC_MAP, proc_map);
    add_str(list, PMIX_LOCAL_PEERS, peers);
    PMIx_Info_list_add(list, PMIX_APPLDR, &zero, PMIX_PROC_RANK);
    PMIx_Info_list_add(list, PMIX_LOCALLDR, &lldr, PMIX_PROC_RANK);
    PMIx_Info_list_add(list, PMIX_SPAWNED, &no, PMIX_BOOL);
    add_proc_data(list, hl, m);
    free(jobid);
    free(node_map);
    free(proc_map);
    free(peers);
}

static int register_ns(struct nd_pmix_ns *ns, const struct nd_pmix_step *st,
                       const hostlist_t *hl, const struct job_map *m,
                       drv_error_t *error)
{
    void *list = PMIx_Info_list_start();
    pmix_data_array_t arr;
    struct waiter w;
    pmix_status_t rc;

    add_job_info(list, st, ns, hl, m);
    PMIx_Info_list_convert(list, &arr);
    PMIx_Info_list_release(list);
    waiter_init(&w);
    rc = wait_op(&w, PMIx_server_register_nspace(ns->name, (int)ns->nlocal,
                                                 arr.array, arr.size, op_done,
                                                 &w));
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
    if (rc != PMIX_SUCCESS)
        return errprintf(error, "PMIx_server_register_nspace %s: %s",
                         ns->name, PMIx_Error_string(rc));
    for (uint32_t k = 0; k < ns->nlocal; k++) {
        pmix_proc_t proc;

        PMIX_LOAD_PROCID(&proc, ns->name, ns->local[k]);
        waiter_init(&w);
        rc = wait_op(&w, PMIx_server_register_client(&proc, st->uid, st->gid,
                                                     NULL, op_done, &w));
        if (rc != PMIX_SUCCESS)
            return errprintf(error, "PMIx_server_register_client %s.%u: %s",
                             ns->name, ns->local[k], PMIx_Error_string(rc));
    }
    return 0;
}

static void job_map_free(struct job_map *m)
{
    free(m->count);
    free(m->start);
    free(m->rank);
}

/* The ranks in blocks over the nodes, from tasks_per_node ("2(x2)"). */
static int map_blocks(const struct nd_pmix_step *st, size_t nodes,
                      struct job_map *m, drv_error_t *error)
{
    int n = taskcount_decode(st->tasks_per_node, m->count, nodes);
    uint32_t total = 0;

    if (n <= 0 || (size_t)n != nodes)
        return errprintf(error, "PMIx: bad tasks_per_node '%s'",
                         st->tasks_per_node);
    for (size_t i = 0; i < nodes; i++) {
        m->start[i] = total;
        total += m->count[i];
    }
    if (total != st->ntasks)
        return errprintf(error, "PMIx: tasks_per_node '%s' is not %u tasks",
                         st->tasks_per_node, st->ntasks);
    m->rank = xzalloc(sizeof(*m->rank) * (total + 1));
    for (uint32_t r = 0; r < total; r++)
        m->rank[r] = r;
    return 0;
}

/* The ranks of task_map ([[0,2],[1,3]]): one array per node, each rank
 * of the step exactly once. */
static int map_given(const struct nd_pmix_step *st, size_t nodes,
                     struct job_map *m, drv_error_t *error)
{
    char *seen = xzalloc(st->ntasks + 1);
    uint32_t total = 0;
    json_t *ranks, *r;
    size_t i, k;

    m->rank = xzalloc(sizeof(*m->rank) * (st->ntasks + 1));
    if (json_array_size(st->task_map) != nodes)
        goto bad;
    json_array_foreach(st->task_map, i, ranks) {
        m->start[i] = total;
        m->count[i] = (uint32_t)json_array_size(ranks);
        if (!m->count[i])
            goto bad;
        json_array_foreach(ranks, k, r) {
            json_int_t v = json_integer_value(r);

            if (!json_is_integer(r) || v < 0 || v >= st->ntasks || seen[v]
                || total >= st->ntasks)
                goto bad;
            seen[v] = 1;
            m->rank[total++] = (uint32_t)v;
        }
    }
    if (total != st->ntasks)
        goto bad;
    free(seen);
    return 0;
bad:
    free(seen);
    return errprintf(error, "PMIx: task_map is not %u ranks over %zu nodes",
                     st->ntasks, nodes);
}

/* Which node runs which rank, and this node's ranks. */
static int job_map(struct nd_pmix_ns *ns, const struct nd_pmix_step *st,
                   size_t nodes, struct job_map *m, drv_error_t *error)
{
    m->nodes = nodes;
    m->count = xzalloc(sizeof(*m->count) * (nodes + 1));
    m->start = xzalloc(sizeof(*m->start) * (nodes + 1));
    if ((st->task_map ? map_given(st, nodes, m, error)
                      : map_blocks(st, nodes, m, error))
        < 0)
        return -1;
    if (st->node_index >= nodes || !m->count[st->node_index])
        return errprintf(error, "PMIx: no ranks on node %u of %zu",
                         st->node_index, nodes);
    ns->nlocal = m->count[st->node_index];
    ns->local = xzalloc(sizeof(*ns->local) * ns->nlocal);
    memcpy(ns->local, m->rank + m->start[st->node_index],
           sizeof(*ns->local) * ns->nlocal);
    return 0;
}

struct nd_pmix_ns *nd_pmix_ns_create(struct noded *nd,
                                     const struct nd_pmix_step *st,
                                     drv_error_t *error)
{
    hostlist_t *hl = hostlist_decode(st->nodes, error);
    struct job_map m = {0};
    struct nd_pmix_ns *ns;

    if (!hl)
        return NULL;
    ns = xzalloc(sizeof(*ns));
    snprintf(ns->name, sizeof(ns->name), "drover.%u.%u", st->job_id,
             st->step_id);
    ns->nd = nd;
    ns->send = st->send;
    ns->send_arg = st->send_arg;
    if (job_map(ns, st, hostlist_count(hl), &m, error) < 0
        || (!srv.started && server_start(nd, error) < 0)
        || register_ns(ns, st, hl, &m, error) < 0) {
        job_map_free(&m);
        hostlist_destroy(hl);
        if (srv.started) {
            nd_pmix_ns_destroy(ns);
        } else {
            free(ns->local);
            free(ns);
        }
        return NULL;
    }
    job_map_free(&m);
    hostlist_destroy(hl);
    ns->next = srv.spaces;
    srv.spaces = ns;
    return ns;
}

void nd_pmix_shutdown(void)
{
    if (!srv.started)
        return;
    PMIx_server_finalize();
    srv.started = false;
}

int nd_pmix_ns_fork_env(struct nd_pmix_ns *ns, int rank, char ***envp)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, ns->name, (pmix_rank_t)rank);
    rc = PMIx_server_setup_fork(&proc, envp);
    if (rc != PMIX_SUCCESS) {
        log_error("PMIx_server_setup_fork %s.%d: %s", ns->name, rank,
                  PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

static struct fence *fence_take(struct nd_pmix_ns *ns, json_int_t id)
{
    for (struct fence **pp = &ns->fences; *pp; pp = &(*pp)->next) {
        if ((json_int_t)(*pp)->id == id) {
            struct fence *f = *pp;
            *pp = f->next;
            return f;
        }
    }
    return NULL;
}

void nd_pmix_ns_frame(struct nd_pmix_ns *ns, json_t *msg)
{
    json_t *id = json_object_get(msg, "fence");
    const char *b64 = json_string_value(json_object_get(msg, "data"));
    struct fence *f;
    unsigned char *data;
    size_t len = 0;

    if (!json_is_integer(id) || !b64)
        return;
    if (!(f = fence_take(ns, json_integer_value(id)))) {
        log_error("%s: answer to unknown fence %lld", ns->name,
                  (long long)json_integer_value(id));
        return;
    }
    data = base64_decode(b64, &len);
    if (!data)
        f->cbfunc(PMIX_ERR_BAD_PARAM, NULL, 0, f->cbdata, NULL, NULL);
    else
        f->cbfunc(PMIX_SUCCESS, (char *)data, len, f->cbdata, release_data,
                  data);
    free(f);
}

void nd_pmix_ns_lost(struct nd_pmix_ns *ns)
{
    struct fence *f;

    ns->lost = true;
    while ((f = ns->fences)) {
        ns->fences = f->next;
        f->cbfunc(PMIX_ERR_LOST_CONNECTION, NULL, 0, f->cbdata, NULL, NULL);
        free(f);
    }
}

void nd_pmix_ns_destroy(struct nd_pmix_ns *ns)
{
    struct nd_pmix_ns **pp;

    if (!ns)
        return;
    nd_pmix_ns_lost(ns);
    for (pp = &srv.spaces; *pp && *pp != ns; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = ns->next;
    for (uint32_t k = 0; k < ns->nlocal; k++) {
        pmix_proc_t proc;

        PMIX_LOAD_PROCID(&proc, ns->name, ns->local[k]);
        PMIx_server_deregister_client(&proc, op_ignore, NULL);
    }
    PMIx_server_deregister_nspace(ns->name, op_ignore, NULL);
    free(ns->local);
    free(ns);
}
