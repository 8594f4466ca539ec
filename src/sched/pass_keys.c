/* SPDX-License-Identifier: Apache-2.0
 *
 * pass_keys.c - what a scheduling pass learnt of the requests it has seen
 *
 * A key is a request and a time limit.  Keys whose requests are the same
 * but for their sizes (CPUs per task, memory per node, CPU or GPU, GPUs
 * per node, CPUs per GPU) form a class; within it, key A is smaller than
 * B (key_le) when none of A's sizes or its limit is larger.  Each node
 * then has room for at least as many of A's tasks as of B's, in a window
 * no longer than B's: wherever B fits, A fits, since sched_select()'s
 * choice finds a set of nodes whenever one exists for a task count (with
 * no gpus_total).  So what A learns, that it does not fit now or past
 * the reservations, that it finds no start, or that it starts no earlier
 * than some time, is true of B as long as usage only grows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/pass_keys.h"
#include "sched/sched_private.h"

#define NIL UINT32_MAX
#define LEARNT (KEY_BUSY | KEY_WINDOW | KEY_NOPLAN) /* passed on */

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return hash_mix(h, s ? 1 : 0);
}

/* The fields a class shares. */
static uint64_t class_hash(const struct sched_request *q)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    h = hash_mix(h, (uint64_t)q->min_nodes << 32 | q->max_nodes);
    h = hash_mix(h, (uint64_t)q->ntasks << 32 | q->ntasks_per_node);
    h = hash_mix(h, (uint64_t)q->gpus_per_task << 32 | q->gpus_total);
    h = hash_mix(h, q->exclusive);
    h = hash_mix(h, q->oversubscribe);
    h = hash_mix(h, (uint64_t)(uintptr_t)q->allowed_nodes
                        ^ (uint64_t)(uintptr_t)q->required_nodes << 1
                        ^ (uint64_t)(uintptr_t)q->excluded_nodes << 2);
    h = hash_str(h, q->features);
    h = hash_mix(h, q->min_tmp_mib);
    h = hash_mix(h, (uint64_t)q->sockets_per_node << 32
                        | (uint64_t)q->cores_per_socket << 16
                        | q->threads_per_core);
    return hash_str(h, q->gpu_type);
}

static uint64_t key_hash(const struct sched_request *q, int64_t limit)
{
    uint64_t h = class_hash(q);

    h = hash_mix(h, (uint64_t)q->cpus_per_task << 32 | q->gpus_per_node);
    h = hash_mix(h, q->min_cpus_per_node);
    h = hash_mix(h, q->cpus_per_gpu);
    h = hash_mix(h, q->mem_per_node_mib ^ q->mem_per_cpu_mib << 1
                        ^ q->mem_per_gpu_mib << 2);
    return hash_mix(h, (uint64_t)limit);
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The same but for the sizes key_le() compares. */
static bool class_eq(const struct sched_request *a,
                     const struct sched_request *b)
{
    return a->min_nodes == b->min_nodes && a->max_nodes == b->max_nodes
           && a->ntasks == b->ntasks
           && a->ntasks_per_node == b->ntasks_per_node
           && a->exclusive == b->exclusive
           && a->oversubscribe == b->oversubscribe
           && a->gpus_total == b->gpus_total
           && a->gpus_per_task == b->gpus_per_task
           && a->shards_per_node == b->shards_per_node
           && str_eq(a->share_name, b->share_name)
           && a->allowed_nodes == b->allowed_nodes
           && a->required_nodes == b->required_nodes
           && a->excluded_nodes == b->excluded_nodes
           && str_eq(a->gpu_type, b->gpu_type)
           && str_eq(a->features, b->features)
           && a->min_tmp_mib == b->min_tmp_mib
           && a->sockets_per_node == b->sockets_per_node
           && a->cores_per_socket == b->cores_per_socket
           && a->threads_per_core == b->threads_per_core
           && a->max_cpus_per_node == b->max_cpus_per_node;
}

/* Same request: the same values and the same node sets (by address). */
static bool req_eq(const struct sched_request *a, const struct sched_request *b)
{
    return class_eq(a, b) && a->cpus_per_task == b->cpus_per_task
           && a->min_cpus_per_node == b->min_cpus_per_node
           && a->mem_per_node_mib == b->mem_per_node_mib
           && a->mem_per_cpu_mib == b->mem_per_cpu_mib
           && a->gpus_per_node == b->gpus_per_node
           && a->cpus_per_gpu == b->cpus_per_gpu
           && a->mem_per_gpu_mib == b->mem_per_gpu_mib;
}

static uint64_t limit_of(int64_t limit)
{
    return limit < 0 ? UINT64_MAX : (uint64_t)limit;
}

/* Key a is no larger than b in any size or in its limit (same class). */
static bool key_le(const struct key *a, const struct key *b)
{
    const struct sched_request *x = a->req, *y = b->req;

    return (x->cpus_per_task ? x->cpus_per_task : 1)
               <= (y->cpus_per_task ? y->cpus_per_task : 1)
           && x->min_cpus_per_node <= y->min_cpus_per_node
           && x->mem_per_node_mib <= y->mem_per_node_mib
           && x->mem_per_cpu_mib <= y->mem_per_cpu_mib
           && x->gpus_per_node <= y->gpus_per_node
           && x->cpus_per_gpu <= y->cpus_per_gpu
           && x->mem_per_gpu_mib <= y->mem_per_gpu_mib
           && limit_of(a->limit) <= limit_of(b->limit);
}

static size_t buckets_for(size_t count)
{
    size_t n = 16;

    while (n < 2 * count)
        n *= 2;
    return n;
}

int keytab_init(struct keytab *t, size_t max_keys)
{
    size_t nb = buckets_for(max_keys), k = max_keys ? max_keys : 1;

    *t = (struct keytab){ .kmask = nb - 1, .cmask = nb - 1 };
    if (!(t->kbucket = malloc(nb * sizeof(*t->kbucket)))
        || !(t->cbucket = malloc(nb * sizeof(*t->cbucket)))
        || !(t->keys = calloc(k, sizeof(*t->keys)))
        || !(t->cls = calloc(k, sizeof(*t->cls)))) {
        errno = ENOMEM;
        return -1;
    }
    memset(t->kbucket, 0xff, nb * sizeof(*t->kbucket));
    memset(t->cbucket, 0xff, nb * sizeof(*t->cbucket));
    return 0;
}

void keytab_destroy(struct keytab *t)
{
    int saved_errno = errno;

    free(t->kbucket);
    free(t->cbucket);
    free(t->keys);
    free(t->cls);
    errno = saved_errno;
}

/* The class of a well-formed request, made if new; NIL for a malformed
 * one (it can never run, whatever its sizes).
 */
static uint32_t class_get(struct keytab *t, const struct sched_request *q)
{
    uint32_t *head;
    struct sel_req r;

    if (sched__normalize(q, &r) < 0)
        return NIL;
    head = &t->cbucket[class_hash(q) & t->cmask];
    for (uint32_t i = *head; i != NIL; i = t->cls[i].next) {
        if (class_eq(t->cls[i].rep, q))
            return i;
    }
    t->cls[t->ncls] = (struct key_class){ .rep = q, .head = NIL,
                                          .next = *head };
    *head = t->ncls;
    return t->ncls++;
}

/* A new key joins its class, taking what its smaller keys learnt. */
static void class_join(struct keytab *t, struct key *k, uint32_t id)
{
    struct key_class *c = &t->cls[k->cls];

    for (uint32_t i = c->head; i != NIL; i = t->keys[i].cnext) {
        const struct key *s = &t->keys[i];

        if (key_le(s, k)) {
            k->inh |= (s->flags | s->inh) & LEARNT;
            if (s->hint > k->hint)
                k->hint = s->hint;
        }
    }
    k->cnext = c->head;
    c->head = id;
}

struct key *keytab_get(struct keytab *t, const struct sched_job *job)
{
    const struct sched_request *q = job->req;
    uint32_t *head, id;
    struct key *k;

    if (!q || q->gpus_total)
        return NULL;
    head = &t->kbucket[key_hash(q, job->time_limit_s) & t->kmask];
    for (uint32_t i = *head; i != NIL; i = t->keys[i].next) {
        k = &t->keys[i];
        if (k->limit == job->time_limit_s && req_eq(k->req, q))
            return k;
    }
    id = t->nkeys++;
    k = &t->keys[id];
    *k = (struct key){ .req = q, .limit = job->time_limit_s, .next = *head,
                       .cnext = NIL, .cls = class_get(t, q) };
    *head = id;
    if (k->cls != NIL)
        class_join(t, k, id);
    return k;
}

/* Pass 'flags' and 'hint' on to every larger key of k's class. */
static void pass_on(struct keytab *t,
                    const struct key *k,
                    uint32_t flags,
                    int64_t hint)
{
    if (k->cls == NIL)
        return;
    for (uint32_t i = t->cls[k->cls].head; i != NIL; i = t->keys[i].cnext) {
        struct key *b = &t->keys[i];

        if (b != k && key_le(k, b)) {
            b->inh |= flags;
            if (hint > b->hint)
                b->hint = hint;
        }
    }
}

void keytab_learn(struct keytab *t, struct key *k, uint32_t flags)
{
    uint32_t news = flags & ~k->flags;

    k->flags |= flags;
    if (news & LEARNT)
        pass_on(t, k, news & LEARNT, INT64_MIN);
}

void keytab_hint(struct keytab *t, struct key *k, int64_t hint)
{
    if (hint <= k->hint)
        return;
    k->hint = hint;
    pass_on(t, k, 0, hint);
}
