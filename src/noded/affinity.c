/* SPDX-License-Identifier: Apache-2.0
 *
 * affinity.c - each task's CPUs (affinity.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitmap.h"
#include "common/xalloc.h"
#include "noded/affinity.h"

void affinity_step_cpus(const struct topo *t, uint32_t job_cpus,
                        const char *job_cpu_ids, cpu_set_t *out)
{
    size_t n = job_cpus && job_cpus < t->npu ? job_cpus : t->npu;
    bitmap_t *ids;

    CPU_ZERO(out);
    if (t->npu && job_cpu_ids && *job_cpu_ids
        && (ids = bitmap_parse(job_cpu_ids,
                               bitmap_list_bits(job_cpu_ids, 65536), NULL))) {
        for (long k = bitmap_first_set(ids, 0); k >= 0;
             k = bitmap_first_set(ids, (size_t)k + 1))
            CPU_SET((size_t)t->pu[(size_t)k % t->npu].os, out);
        bitmap_destroy(ids);
        return;
    }
    for (size_t i = 0; i < n; i++)
        CPU_SET((size_t)t->pu[i].os, out);
}

char *affinity_mask_str(const cpu_set_t *set, char *buf)
{
    char *p = buf;
    int top = -1;

    for (int c = CPU_SETSIZE - 1; c >= 0 && top < 0; c--)
        if (CPU_ISSET((size_t)c, set))
            top = c;
    *p++ = '0';
    *p++ = 'x';
    if (top < 0)
        *p++ = '0';
    for (int nib = top / 4; top >= 0 && nib >= 0; nib--) {
        int v = 0;

        for (int b = 0; b < 4; b++)
            if (CPU_ISSET((size_t)(nib * 4 + b), set))
                v |= 1 << b;
        *p++ = "0123456789abcdef"[v];
    }
    *p = '\0';
    return buf;
}

/* A unit of binding: a thread, a core or a socket (its usable PUs). */
struct unit {
    cpu_set_t pus;
    int npus;
    int socket;   /* dense index among the sockets that have units */
    bool taken;
};

struct picker {
    struct unit *u;
    size_t n;
    int nsock;
    int rr;       /* fcyclic: the socket the next unit comes from */
};

/* The key a PU belongs to for 'type'. */
static int unit_key(const struct topo_pu *p, enum cpubind_type type)
{
    switch (type) {
    case CPUBIND_THREADS: return p->os;
    case CPUBIND_CORES: return p->core;
    default: return p->socket;
    }
}

/* Units of the step's PUs, in logical order. */
static void build_units(const struct affinity_req *r, struct picker *pk)
{
    const struct topo *t = r->topo;
    int last_core = -1, last_key = -1, last_sock = -1;

    pk->u = xzalloc(sizeof(*pk->u) * (t->npu + 1));
    for (size_t i = 0; i < t->npu; i++) {
        const struct topo_pu *p = &t->pu[i];
        int key = unit_key(p, r->type);
        struct unit *u;

        if (!CPU_ISSET((size_t)p->os, &r->avail))
            continue;
        if (r->one_thread_per_core && p->core == last_core)
            continue;
        last_core = p->core;
        if (p->socket != last_sock) {
            last_sock = p->socket;
            pk->nsock++;
        }
        if (pk->n == 0 || key != last_key) {
            u = &pk->u[pk->n++];
            CPU_ZERO(&u->pus);
            u->socket = pk->nsock - 1;
            last_key = key;
        }
        u = &pk->u[pk->n - 1];
        CPU_SET((size_t)p->os, &u->pus);
        u->npus++;
    }
}

/* The first free unit of socket 's' or of the sockets after it. */
static struct unit *free_unit_from(struct picker *pk, int s)
{
    for (int k = 0; k < pk->nsock; k++) {
        int sock = (s + k) % pk->nsock;

        for (size_t i = 0; i < pk->n; i++)
            if (!pk->u[i].taken && pk->u[i].socket == sock)
                return &pk->u[i];
    }
    return NULL;
}

/* The next unit for task 'task' (its 'nth' unit) under 'dist'; every
 * unit taken: all are free again (more tasks than units). */
static struct unit *next_unit(struct picker *pk, enum taskdist_level dist,
                              uint32_t task, int nth, int cur_sock)
{
    struct unit *u;
    int s;

    if (dist == TASKDIST_LEVEL_BLOCK)
        s = 0;
    else if (dist == TASKDIST_LEVEL_FCYCLIC)
        s = pk->rr++ % pk->nsock;
    else /* cyclic: a task's units from one socket, tasks rotate */
        s = nth == 0 ? (int)(task % (uint32_t)pk->nsock) : cur_sock;
    if (!(u = free_unit_from(pk, s))) {
        for (size_t i = 0; i < pk->n; i++)
            pk->u[i].taken = false;
        u = free_unit_from(pk, s);
    }
    u->taken = true;
    return u;
}

static int auto_masks(const struct affinity_req *r, cpu_set_t *masks,
                      drv_error_t *error)
{
    struct picker pk = {0};
    uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;

    build_units(r, &pk);
    if (pk.n == 0) {
        free(pk.u);
        return errprintf(error, "the step has no CPUs on this node");
    }
    for (uint32_t t = 0; t < r->ntasks; t++) {
        int got = 0, nth = 0, sock = 0;

        CPU_ZERO(&masks[t]);
        if (r->type == CPUBIND_SOCKETS || r->type == CPUBIND_LDOMS) {
            masks[t] = pk.u[t % pk.n].pus;
            continue;
        }
        while (got < (int)cpt && nth < (int)pk.n) {
            struct unit *u = next_unit(&pk, r->socket_dist, t, nth++, sock);

            sock = u->socket;
            CPU_OR(&masks[t], &masks[t], &u->pus);
            got += u->npus;
        }
    }
    free(pk.u);
    return 0;
}

static int list_masks(const struct affinity_req *r, cpu_set_t *masks,
                      drv_error_t *error)
{
    bool mask = r->type == CPUBIND_MASK_CPU;
    cpu_set_t *sets;
    size_t n;

    if (!r->list || cpubind_list(r->list, mask, &sets, &n, error) < 0)
        return r->list ? -1 : errprintf(error, "--cpu-bind: no list");
    for (uint32_t t = 0; t < r->ntasks; t++) {
        char want[AFFINITY_MASK_MAX];

        CPU_AND(&masks[t], &sets[t % n], &r->avail);
        if (CPU_COUNT(&masks[t]) == 0) {
            /* a map member is one CPU: its id is shorter than its mask */
            for (int c = 0; !mask && c < CPU_SETSIZE; c++)
                if (CPU_ISSET((size_t)c, &sets[t % n]))
                    snprintf(want, sizeof(want), "CPU %d", c);
            if (mask)
                affinity_mask_str(&sets[t % n], want);
            errprintf(error, "--cpu-bind=%s: %.64s (task %u) is not within "
                      "the step's CPUs on this node",
                      cpubind_type_name(r->type), want, t);
            free(sets);
            return -1;
        }
    }
    free(sets);
    return 0;
}

int affinity_masks(const struct affinity_req *r, cpu_set_t *masks,
                   drv_error_t *error)
{
    switch (r->type) {
    case CPUBIND_NONE:
    case CPUBIND_UNSET:
        for (uint32_t t = 0; t < r->ntasks; t++)
            masks[t] = r->avail;
        return 0;
    case CPUBIND_RANK:
        if (!r->whole_node)
            return errprintf(error, "Entire node must be allocated for rank");
        for (uint32_t t = 0; t < r->ntasks; t++) {
            CPU_ZERO(&masks[t]);
            CPU_SET((size_t)r->topo->pu[t % r->topo->npu].os, &masks[t]);
        }
        return 0;
    case CPUBIND_MAP_CPU:
    case CPUBIND_MASK_CPU:
        return list_masks(r, masks, error);
    default:
        return auto_masks(r, masks, error);
    }
}

/* How many units of 'type' lie wholly within 'avail'. */
static uint32_t whole_units(const struct topo *t, const cpu_set_t *avail,
                            enum cpubind_type type)
{
    uint32_t n = 0;

    for (size_t i = 0; i < t->npu;) {
        int key = unit_key(&t->pu[i], type);
        bool whole = true;

        for (; i < t->npu && unit_key(&t->pu[i], type) == key; i++)
            whole = whole && CPU_ISSET((size_t)t->pu[i].os, avail);
        n += whole;
    }
    return n;
}

enum cpubind_type affinity_auto_type(const struct topo *t,
                                     const cpu_set_t *avail,
                                     uint32_t ntasks, uint32_t cpt)
{
    uint32_t cpus = ntasks * (cpt ? cpt : 1);

    if (whole_units(t, avail, CPUBIND_SOCKETS) == ntasks)
        return CPUBIND_SOCKETS;
    if (whole_units(t, avail, CPUBIND_CORES) == cpus)
        return CPUBIND_CORES;
    if (whole_units(t, avail, CPUBIND_THREADS) == cpus)
        return CPUBIND_THREADS;
    return CPUBIND_NONE;
}
