/* SPDX-License-Identifier: Apache-2.0
 *
 * node_table.c - nodes and partitions from slurm.conf, and their JSON
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "conf/conf_sched_node.h"
#include "ctld/node_table.h"
#include "proto/jsonw.h"

/* One entry of the name index. */
struct node_name {
    size_t idx;
    UT_hash_handle hh; /* key: the name, borrowed from the conf */
};

static void node_init(struct node_table *nt, size_t i,
                      const struct conf_node *cn)
{
    struct node_name *e = xzalloc(sizeof(*e));

    nt->info[i].conf = cn;
    nt->names[i] = cn->name;
    e->idx = i;
    HASH_ADD_KEYPTR(hh, nt->by_name, cn->name, strlen(cn->name), e);
    if (conf_sched_node_init(&nt->sched[i], cn) < 0) {
        log_err("NodeName=%s", cn->name); /* ENOMEM: abort, as xzalloc */
        abort();
    }
    if (cn->state && !strcasecmp(cn->state, "DRAIN"))
        nt->info[i].drain = true;
    if (cn->state && !strcasecmp(cn->state, "DOWN"))
        nt->info[i].down = true;
    node_table_update_avail(nt, i);
}

/* What partition p derives from its settings and nodes. */
static void part_derive(struct node_table *nt, struct ctld_partition *part)
{
    const struct conf_partition *cp = part->conf;

    part->preempt_mode = cp->preempt_mode != CONF_PREEMPT_MODE_UNSET
                             ? cp->preempt_mode : nt->preempt_mode;
    part->total_cpus = 0;
    for (size_t i = 0; i < nt->count; i++)
        if (bitmap_test(part->nodes, i))
            part->total_cpus += nt->sched[i].cpus;
}

/* A copy of 'cp' of the table's own.  Aborts on ENOMEM (xalloc.h). */
static struct conf_partition *part_conf_copy(const struct conf_partition *cp)
{
    struct conf_partition *own = xzalloc(sizeof(*own));

    if (conf_partition_copy(own, cp) < 0) {
        log_err("PartitionName=%s", cp->name);
        abort();
    }
    return own;
}

static void part_conf_free(struct conf_partition *cp)
{
    conf_partition_clear(cp);
    free(cp);
}

static int part_init(struct node_table *nt, size_t p,
                     const struct slurm_conf *conf, drv_error_t *error)
{
    struct ctld_partition *part = &nt->parts[p];
    const struct conf_partition *cp = &conf->partitions[p];

    part->conf = part_conf_copy(cp);
    if (!(part->nodes = conf_sched_node_part(conf, cp, error)))
        return -1;
    part_derive(nt, part);
    return 0;
}

struct node_table *node_table_create(const struct slurm_conf *conf,
                                     drv_error_t *error)
{
    struct node_table *nt = xzalloc(sizeof(*nt));

    nt->count = conf->node_count;
    /* cache-line aligned: the scheduler judges these nodes millions of
     * times a pass */
    if (!(nt->sched = sched_nodes_alloc(nt->count + 1))) {
        perror("node table");
        abort();
    }
    nt->info = xzalloc(sizeof(*nt->info) * (nt->count + 1));
    nt->names = xzalloc(sizeof(*nt->names) * (nt->count + 1));
    for (size_t i = 0; i < nt->count; i++)
        node_init(nt, i, &conf->nodes[i]);
    nt->part_count = conf->partition_count;
    nt->parts = xzalloc(sizeof(*nt->parts) * (nt->part_count + 1));
    nt->preempt_mode = conf->preempt_mode;
    for (size_t p = 0; p < nt->part_count; p++) {
        if (part_init(nt, p, conf, error) < 0) {
            node_table_destroy(nt);
            return NULL;
        }
    }
    return nt;
}

void node_table_destroy(struct node_table *nt)
{
    if (!nt)
        return;
    for (size_t i = 0; i < nt->count; i++) {
        sched_node_free_usage(&nt->sched[i]);
        free(nt->info[i].reason);
        free(nt->info[i].reason_user);
        free(nt->info[i].os);
        free(nt->info[i].jobs);
        free(nt->info[i].cpu_holds);
        free(nt->info[i].epilog_jobs);
        json_decref(nt->info[i].gpus);
    }
    struct node_name *e, *tmp;

    HASH_ITER(hh, nt->by_name, e, tmp) {
        HASH_DEL(nt->by_name, e);
        free(e);
    }
    for (size_t p = 0; p < nt->part_count; p++) {
        bitmap_destroy(nt->parts[p].nodes);
        part_conf_free(nt->parts[p].conf);
    }
    free(nt->parts);
    free(nt->sched);
    free(nt->info);
    free(nt->names);
    free(nt);
}

void node_table_jobs_attach(struct node_table *nt, const struct sched_alloc *a,
                            uint32_t job_id)
{
    for (uint32_t n = 0; n < a->node_count; n++) {
        struct ctld_node *info = &nt->info[a->node_idx[n]];

        if (info->njobs == info->jobs_cap) {
            info->jobs_cap = info->jobs_cap ? 2 * info->jobs_cap : 4;
            info->jobs = xrealloc(info->jobs,
                                  info->jobs_cap * sizeof(*info->jobs));
        }
        info->jobs[info->njobs++] = job_id;
    }
}

void node_table_jobs_drop(struct node_table *nt, size_t i, uint32_t k)
{
    struct ctld_node *info = &nt->info[i];

    info->jobs[k] = info->jobs[--info->njobs];
}

void node_table_jobs_detach(struct node_table *nt, const struct sched_alloc *a,
                            uint32_t job_id)
{
    for (uint32_t n = 0; n < a->node_count; n++) {
        struct ctld_node *info = &nt->info[a->node_idx[n]];

        for (uint32_t k = 0; k < info->njobs; k++) {
            if (info->jobs[k] == job_id) {
                node_table_jobs_drop(nt, a->node_idx[n], k);
                break;
            }
        }
    }
}

long node_table_index(const struct node_table *nt, const char *name)
{
    struct node_name *e;

    HASH_FIND_STR(nt->by_name, name, e);
    return e ? (long)e->idx : -1;
}

long node_table_index_cb(const char *name, uint32_t *ngpus, void *arg)
{
    struct node_table *nt = arg;
    long i = node_table_index(nt, name);

    if (i >= 0)
        *ngpus = nt->sched[i].gpus;
    return i;
}

struct ctld_partition *node_table_partition(struct node_table *nt,
                                            const char *name)
{
    for (size_t p = 0; p < nt->part_count; p++) {
        if (name ? !strcmp(nt->parts[p].conf->name, name)
                 : nt->parts[p].conf->is_default)
            return &nt->parts[p];
    }
    return name || !nt->part_count ? NULL : &nt->parts[0];
}

long node_table_part_index(const struct node_table *nt, const char *name)
{
    for (size_t p = 0; name && p < nt->part_count; p++)
        if (!strcmp(nt->parts[p].conf->name, name))
            return (long)p;
    return -1;
}

/* The nodes of 'cp' as a bitmap over the table; NULL with errno and
 * 'error' for a node the table lacks. */
static bitmap_t *part_bitmap(const struct node_table *nt,
                             const struct conf_partition *cp,
                             drv_error_t *error)
{
    if (!cp->nodes || !*cp->nodes)
        return bitmap_create(nt->count ? nt->count : 1);
    return node_table_bitmap(nt, cp->nodes, error);
}

int node_table_part_set(struct node_table *nt, size_t p,
                        struct conf_partition *cp, drv_error_t *error)
{
    struct ctld_partition *part = &nt->parts[p];
    bitmap_t *b = part_bitmap(nt, cp, error);

    if (!b)
        return -1;
    /* In place: pending jobs of the partition point at this bitmap. */
    bitmap_clear_all(part->nodes);
    for (long i = bitmap_first_set(b, 0); i >= 0;
         i = bitmap_first_set(b, (size_t)i + 1))
        bitmap_set(part->nodes, (size_t)i);
    bitmap_destroy(b);
    part_conf_free(part->conf);
    part->conf = cp;
    part_derive(nt, part);
    return 0;
}

long node_table_part_add(struct node_table *nt, struct conf_partition *cp,
                         drv_error_t *error)
{
    bitmap_t *b = part_bitmap(nt, cp, error);
    struct ctld_partition *part;

    if (!b)
        return -1;
    nt->parts = xrealloc(nt->parts, sizeof(*nt->parts) * (nt->part_count + 2));
    part = &nt->parts[nt->part_count];
    *part = (struct ctld_partition){.conf = cp, .nodes = b};
    part_derive(nt, part);
    return (long)nt->part_count++;
}

void node_table_part_remove(struct node_table *nt, size_t p)
{
    bitmap_destroy(nt->parts[p].nodes);
    part_conf_free(nt->parts[p].conf);
    memmove(&nt->parts[p], &nt->parts[p + 1],
            sizeof(*nt->parts) * (nt->part_count - p - 1));
    nt->part_count--;
}

void node_table_update_avail(struct node_table *nt, size_t i)
{
    const struct ctld_node *n = &nt->info[i];

    nt->sched[i].available = n->responding && !n->drain && !n->down
                             && !n->nepilog;
}

char *node_table_alloc_hostlist(const struct node_table *nt,
                                const struct sched_alloc *a)
{
    hostlist_t *hl = hostlist_create();
    char *s;

    for (uint32_t i = 0; a && i < a->node_count; i++)
        hostlist_append(hl, nt->names[a->node_idx[i]]);
    s = hostlist_encode(hl);
    hostlist_destroy(hl);
    return s ? s : xstrdup("");
}

/* Base state as Slurm derives it: DOWN, UNKNOWN (never registered),
 * ALLOCATED (every CPU taken), MIXED, IDLE. */
const char *node_table_base_state(const struct node_table *nt, size_t i)
{
    const struct ctld_node *n = &nt->info[i];
    const struct sched_node *sn = &nt->sched[i];

    if (n->down)
        return "DOWN";
    if (!n->responding && n->slurmd_start_time == 0 && sn->running_jobs == 0)
        return "UNKNOWN";
    if (sn->running_jobs > 0
        && (sn->alloc_cpus >= sn->cpus || sn->exclusive_alloc))
        return "ALLOCATED";
    if (sn->running_jobs > 0)
        return "MIXED";
    return "IDLE";
}

/* ",shard:8" (Gres=) or, with 'used', ",shard:2(2/4,0/4)" (GresUsed=, as
 * Slurm: in use of each GPU's), mps instead of shard for gres/mps; "" when
 * the GPUs are not shared.  Caller frees. */
static char *shard_string(const struct sched_node *sn, bool used)
{
    uint32_t total = 0;
    char *per = xstrdup(""), *s;

    for (uint32_t g = 0; sn->shards && g < sn->gpus; g++) {
        char *t = xasprintf("%s%s%u/%u", per, g ? "," : "",
                            sn->alloc_shards[g], sn->shards[g]);
        free(per);
        per = t;
        total += used ? sn->alloc_shards[g] : sn->shards[g];
    }
    s = !sn->shards ? xstrdup("")
        : used      ? xasprintf(",%s:%u(%s)", sn->share_name, total, per)
                    : xasprintf(",%s:%u", sn->share_name, total);
    free(per);
    return s;
}

/* GPU g's type on a node with gpu_types. */
static const char *type_at(const struct sched_node *sn, size_t g)
{
    return sn->gpu_types[g] ? sn->gpu_types[g] : "(null)";
}

/* "gpu:a100:2,gpu:v100:2" (Gres=) or, 'used', "gpu:a100:1(IDX:0),
 * gpu:v100:0(IDX:N/A)" (GresUsed=) of a node with GPUs of several types:
 * one entry per type in index order, indexes over all the node's GPUs,
 * as Slurm prints them.  Caller frees. */
static char *typed_gpus_string(const struct sched_node *sn, bool used)
{
    char *s = xstrdup("");

    for (size_t g = 0; g < sn->gpus; g++) {
        bitmap_t *mine;
        size_t first = 0, n = 0;
        char *idx, *t;

        while (strcmp(type_at(sn, first), type_at(sn, g)))
            first++;
        if (first != g || !(mine = bitmap_create(sn->gpus)))
            continue; /* this type is written already */
        for (size_t h = g; h < sn->gpus; h++)
            if (!strcmp(type_at(sn, h), type_at(sn, g))
                && (!used || bitmap_test(sn->alloc_gpus, h))) {
                bitmap_set(mine, h);
                n++;
            }
        idx = n ? bitmap_fmt(mine) : xstrdup("N/A");
        t = used ? xasprintf("%s%sgpu:%s:%zu(IDX:%s)", s, *s ? "," : "",
                             type_at(sn, g), n, idx)
                 : xasprintf("%s%sgpu:%s:%zu", s, *s ? "," : "",
                             type_at(sn, g), n);
        free(idx);
        free(s);
        s = t;
        bitmap_destroy(mine);
    }
    return s;
}

static char *gres_string(const struct sched_node *sn)
{
    char *shards = shard_string(sn, false), *s;

    if (!sn->gpus)
        s = xstrdup("(null)");
    else if (sn->gpu_types) {
        char *typed = typed_gpus_string(sn, false);
        s = xasprintf("%s%s", typed, shards);
        free(typed);
    } else if (sn->gpu_type)
        s = xasprintf("gpu:%s:%u%s", sn->gpu_type, sn->gpus, shards);
    else
        s = xasprintf("gpu:%u%s", sn->gpus, shards);
    free(shards);
    return s;
}

static char *gres_used_string(const struct sched_node *sn)
{
    size_t used = sn->alloc_gpus ? bitmap_count(sn->alloc_gpus) : 0;
    char *idx, *shards, *s;

    if (!sn->gpus)
        return xstrdup("");
    idx = used ? bitmap_fmt(sn->alloc_gpus) : xstrdup("N/A");
    shards = shard_string(sn, true);
    if (sn->gpu_types) {
        char *typed = typed_gpus_string(sn, true);
        s = xasprintf("%s%s", typed, shards);
        free(typed);
    } else if (sn->gpu_type)
        s = xasprintf("gpu:%s:%zu(IDX:%s)%s", sn->gpu_type, used, idx,
                      shards);
    else
        s = xasprintf("gpu:%zu(IDX:%s)%s", used, idx, shards);
    free(idx);
    free(shards);
    return s;
}

static char *tres_string(uint32_t cpus, uint64_t mem, int nodes,
                         uint32_t gpus, bool billing)
{
    char membuf[32], part[64], out[256] = "";

    if (cpus) {
        snprintf(part, sizeof(part), "cpu=%u,", cpus);
        strcat(out, part);
    }
    if (mem) {
        snprintf(part, sizeof(part), "mem=%s,",
                 sizefmt_mib(mem, membuf, sizeof(membuf)));
        strcat(out, part);
    }
    if (nodes) {
        snprintf(part, sizeof(part), "node=%d,", nodes);
        strcat(out, part);
    }
    if (billing && cpus) {
        snprintf(part, sizeof(part), "billing=%u,", cpus);
        strcat(out, part);
    }
    if (gpus) {
        snprintf(part, sizeof(part), "gres/gpu=%u,", gpus);
        strcat(out, part);
    }
    if (*out)
        out[strlen(out) - 1] = '\0';
    return xstrdup(out);
}

char *node_table_tres(uint32_t cpus, uint64_t mem, int nodes, uint32_t gpus,
                      bool billing)
{
    return tres_string(cpus, mem, nodes, gpus, billing);
}

static void put_partitions(const struct node_table *nt, size_t i,
                           const struct jsonw_sink *o)
{
    json_t *arr = json_array();

    for (size_t p = 0; p < nt->part_count; p++)
        if (bitmap_test(nt->parts[p].nodes, i))
            json_array_append_new(arr, json_string(nt->parts[p].conf->name));
    jsonw_put_json(o, "partitions", arr);
}

static char *node_state_str(const struct node_table *nt, size_t i,
                            const struct node_flags *f)
{
    const struct ctld_node *n = &nt->info[i];
    const char *base = node_table_base_state(nt, i);

    return xasprintf("%s%s%s%s%s%s", base, n->drain ? "+DRAIN" : "",
                     f->maint ? "+MAINTENANCE" : "",
                     f->reserved ? "+RESERVED" : "",
                     !n->responding && strcmp(base, "UNKNOWN")
                         ? "+NOT_RESPONDING"
                         : "",
                     n->nepilog ? "+COMPLETING" : f->planned ? "+PLANNED"
                                                            : "");
}

/* The flags of node_table_node_put(), only where set. */
static void put_flags(const struct jsonw_sink *o, const struct node_flags *f)
{
    if (f->maint)
        jsonw_put_bool(o, "maint", true);
    if (f->reserved)
        jsonw_put_bool(o, "reserved", true);
    if (f->planned)
        jsonw_put_bool(o, "planned", true);
}

/* A text member built by the caller (freed here). */
static void put_owned(const struct jsonw_sink *o, const char *key, char *v)
{
    jsonw_put_str(o, key, v);
    free(v);
}

void node_table_node_put(const struct node_table *nt, size_t i,
                         const struct node_flags *flags,
                         const struct jsonw_sink *o)
{
    static const struct node_flags none;
    const struct node_flags *f = flags ? flags : &none;
    const struct ctld_node *n = &nt->info[i];
    const struct sched_node *sn = &nt->sched[i];
    const struct conf_node *cn = n->conf;
    size_t gpus_used = sn->alloc_gpus ? bitmap_count(sn->alloc_gpus) : 0;

    jsonw_put_str(o, "name", cn->name);
    jsonw_put_str(o, "state", node_table_base_state(nt, i));
    jsonw_put_bool(o, "drain", n->drain);
    jsonw_put_bool(o, "not_responding", !n->responding);
    put_owned(o, "state_str", node_state_str(nt, i, f));
    jsonw_put_str(o, "reason", n->reason ? n->reason : "");
    jsonw_put_str(o, "reason_user", n->reason_user ? n->reason_user : "");
    jsonw_put_int(o, "reason_time", n->reason_time);
    jsonw_put_int(o, "cpus", sn->cpus);
    jsonw_put_int(o, "alloc_cpus", sn->alloc_cpus);
    jsonw_put_int(o, "sockets", cn->sockets);
    jsonw_put_int(o, "cores_per_socket", cn->cores_per_socket);
    jsonw_put_int(o, "threads_per_core", cn->threads_per_core);
    jsonw_put_int(o, "real_memory_mib", (int64_t)sn->mem_mib);
    jsonw_put_int(o, "alloc_mem_mib", (int64_t)sn->alloc_mem_mib);
    put_owned(o, "gres", gres_string(sn));
    put_owned(o, "gres_used", gres_used_string(sn));
    jsonw_put_str(o, "addr", cn->addr);
    jsonw_put_str(o, "hostname", cn->hostname);
    jsonw_put_int(o, "port", cn->port);
    put_partitions(nt, i, o);
    jsonw_put_str(o, "features", cn->features ? cn->features : "");
    jsonw_put_int(o, "weight", sn->weight);
    jsonw_put_int(o, "boot_time", n->boot_time);
    jsonw_put_int(o, "slurmd_start_time", n->slurmd_start_time);
    jsonw_put_int(o, "last_busy_time", n->last_busy);
    put_owned(o, "cfg_tres",
              tres_string(sn->cpus, sn->mem_mib, 0, sn->gpus, true));
    put_owned(o, "alloc_tres",
              tres_string(sn->alloc_cpus, sn->alloc_mem_mib, 0,
                          (uint32_t)gpus_used, false));
    jsonw_put_str(o, "version", DROVER_SLURM_VERSION);
    jsonw_put_int(o, "running_jobs", sn->running_jobs);
    if (n->nepilog) /* an Epilog runs there (node_epilog.h) */
        jsonw_put_bool(o, "completing", true);
    put_flags(o, f);
    if (n->os)
        jsonw_put_str(o, "os", n->os);
    if (n->gpus)
        jsonw_put_json(o, "gpus", json_incref(n->gpus));
}

/* RootOnly, Hidden and the access lists, only where set. */
static void part_access_json(json_t *o, const struct conf_partition *cp)
{
    const struct {
        const char *key;
        const char *value;
    } lists[] = {
        {"allow_groups", cp->allow_groups},
        {"allow_accounts", cp->allow_accounts},
        {"deny_accounts", cp->deny_accounts}, {"allow_qos", cp->allow_qos},
        {"deny_qos", cp->deny_qos},
    };

    if (cp->root_only)
        json_object_set_new(o, "root_only", json_true());
    if (cp->hidden)
        json_object_set_new(o, "hidden", json_true());
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        if (lists[i].value)
            json_object_set_new(o, lists[i].key, json_string(lists[i].value));
}

char *node_table_hostlist(const struct node_table *nt, const bitmap_t *b)
{
    hostlist_t *hl = hostlist_create();
    char *s;

    for (size_t i = 0; i < nt->count; i++)
        if (bitmap_test(b, i))
            hostlist_append(hl, nt->names[i]);
    s = hostlist_encode(hl);
    hostlist_destroy(hl);
    return s;
}

/* Its job defaults and limits, for scontrol show partition (omitted when
 * unset: the command prints Slurm's UNLIMITED, 0, NO, (null)). */
static void part_limits_json(json_t *o, const struct conf_partition *cp)
{
    char buf[64];
    const char *jd = conf_job_defaults_string(cp->def_cpu_per_gpu,
                                              cp->def_mem_per_gpu_mib, buf,
                                              sizeof(buf));

    if (cp->def_mem.mib)
        json_object_set_new(o, cp->def_mem.per_cpu ? "def_mem_per_cpu_mib"
                                                   : "def_mem_per_node_mib",
                            json_integer((json_int_t)cp->def_mem.mib));
    if (cp->max_mem.mib)
        json_object_set_new(o, cp->max_mem.per_cpu ? "max_mem_per_cpu_mib"
                                                   : "max_mem_per_node_mib",
                            json_integer((json_int_t)cp->max_mem.mib));
    if (jd)
        json_object_set_new(o, "job_defaults", json_string(jd));
    if (cp->disable_root_jobs)
        json_object_set_new(o, "disable_root_jobs", json_true());
    if (cp->min_nodes)
        json_object_set_new(o, "min_nodes", json_integer(cp->min_nodes));
    if (cp->max_cpus_per_node != UINT32_MAX)
        json_object_set_new(o, "max_cpus_per_node",
                            json_integer(cp->max_cpus_per_node));
}

json_t *node_table_partition_json(const struct node_table *nt, size_t p)
{
    const struct ctld_partition *part = &nt->parts[p];
    const struct conf_partition *cp = part->conf;
    uint64_t mem = 0;
    uint32_t gpus = 0;
    size_t nodes = bitmap_count(part->nodes);
    char *expr, *tres;
    json_t *o;

    for (size_t i = 0; i < nt->count; i++) {
        if (!bitmap_test(part->nodes, i))
            continue;
        mem += nt->sched[i].mem_mib;
        gpus += nt->sched[i].gpus;
    }
    expr = node_table_hostlist(nt, part->nodes);
    tres = tres_string(part->total_cpus, mem, (int)nodes, gpus, true);
    o = json_pack("{s:s s:b s:s s:s s:i s:i s:I s:I s:I s:i s:i s:s}", "name",
                  cp->name, "default", cp->is_default, "state", cp->state,
                  "nodes", expr ? expr : "",
                  "total_cpus", part->total_cpus, "total_nodes", (int)nodes,
                  "max_time_s", (json_int_t)cp->max_time_s, "default_time_s",
                  (json_int_t)cp->default_time_s, "max_nodes",
                  cp->max_nodes == UINT32_MAX ? (json_int_t)-1
                                              : (json_int_t)cp->max_nodes,
                  "priority_tier", cp->priority_tier, "priority_job_factor",
                  cp->priority_job_factor, "tres", tres);
    json_object_set_new(o, "grace_time_s", json_integer(cp->grace_time_s));
    if (cp->over_time_min != CONF_OVERTIME_UNSET) /* -1: UNLIMITED */
        json_object_set_new(o, "over_time_min",
                            json_integer(cp->over_time_min
                                                 == CONF_OVERTIME_UNLIMITED
                                             ? -1
                                             : (json_int_t)cp->over_time_min));
    json_object_set_new(o, "preempt_mode", json_string(
                                               conf_preempt_mode_string(
                                                   part->preempt_mode)));
    /* OverSubscribe= as Slurm prints it; NO left out */
    if (cp->exclusive_nodes)
        json_object_set_new(o, "oversubscribe", json_string("EXCLUSIVE"));
    else if (cp->oversubscribe)
        json_object_set_new(o, "oversubscribe", json_sprintf(
                                "%s:%u", cp->oversubscribe_force ? "FORCE"
                                                                  : "YES",
                                cp->oversubscribe));
    free(expr);
    free(tres);
    part_access_json(o, cp);
    part_limits_json(o, cp);
    return o;
}

json_t *node_table_admin_json(const struct node_table *nt, size_t i)
{
    const struct ctld_node *n = &nt->info[i];
    json_t *o = json_pack("{s:s s:b s:b s:s s:s s:I}", "name", nt->names[i],
                          "drain", n->drain, "down", n->down, "reason",
                          n->reason ? n->reason : "", "reason_user",
                          n->reason_user ? n->reason_user : "",
                          "reason_time", (json_int_t)n->reason_time);

    if (nt->sched[i].weight != n->conf->weight)
        json_object_set_new(o, "weight", json_integer(nt->sched[i].weight));
    if (n->health_drain)
        json_object_set_new(o, "health_drain", json_true());
    return o;
}

void node_table_admin_get(const struct node_table *nt, size_t i,
                          struct node_admin *a)
{
    const struct ctld_node *n = &nt->info[i];

    *a = (struct node_admin){
        .drain = n->drain,
        .down = n->down,
        .health_drain = n->health_drain,
        .reason = n->reason,
        .reason_user = n->reason_user,
        .reason_time = n->reason_time,
        .weight = nt->sched[i].weight,
    };
}

void node_table_admin_set(struct node_table *nt, size_t i,
                          const struct node_admin *a)
{
    struct ctld_node *n = &nt->info[i];
    char *reason = a->reason && *a->reason ? xstrdup(a->reason) : NULL;
    char *user = a->reason_user && *a->reason_user ? xstrdup(a->reason_user)
                                                   : NULL;

    free(n->reason);
    free(n->reason_user);
    n->reason = reason;
    n->reason_user = user;
    n->drain = a->drain;
    n->down = a->down;
    n->health_drain = a->drain && a->health_drain;
    n->reason_time = a->reason_time;
    nt->sched[i].weight = a->weight;
    node_table_update_avail(nt, i);
}

long node_table_admin_from_json(const struct node_table *nt, json_t *o,
                                struct node_admin *a)
{
    const char *name = "", *reason = NULL, *user = NULL;
    int drain = 0, down = 0, health = 0;
    json_int_t when = 0, weight = -1;
    long i;

    json_unpack(o, "{s?s s?b s?b s?s s?s s?I s?I s?b}", "name", &name,
                "drain", &drain, "down", &down, "reason", &reason,
                "reason_user", &user, "reason_time", &when, "weight", &weight,
                "health_drain", &health);
    if ((i = node_table_index(nt, name)) < 0)
        return -1;
    *a = (struct node_admin){
        .drain = drain,
        .down = down,
        .health_drain = health,
        .reason = reason,
        .reason_user = user,
        .reason_time = (time_t)when,
        .weight = weight >= 0 && weight < UINT32_MAX
                      ? (uint32_t)weight
                      : nt->info[i].conf->weight,
    };
    return i;
}

void node_table_admin_restore(struct node_table *nt, json_t *o)
{
    struct node_admin a;
    long i = node_table_admin_from_json(nt, o, &a);

    if (i >= 0)
        node_table_admin_set(nt, (size_t)i, &a);
}

bitmap_t *node_table_bitmap(const struct node_table *nt, const char *expr,
                            drv_error_t *error)
{
    hostlist_t *hl = hostlist_decode(expr, NULL);
    bitmap_t *b = bitmap_create(nt->count);
    size_t i;

    for (i = 0; hl && b && i < hostlist_count(hl); i++) {
        long idx = node_table_index(nt, hostlist_nth(hl, i));
        if (idx < 0)
            break;
        bitmap_set(b, (size_t)idx);
    }
    if (!hl || !b || i < hostlist_count(hl)) {
        errprintf(error, "invalid node name: %s",
                  hl && i < hostlist_count(hl) ? hostlist_nth(hl, i) : expr);
        hostlist_destroy(hl);
        bitmap_destroy(b);
        errno = EDRV_INVALID_NODE_NAME;
        return NULL;
    }
    hostlist_destroy(hl);
    return b;
}
