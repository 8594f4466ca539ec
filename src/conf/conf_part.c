/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_part.c - PartitionName= lines of slurm.conf
 *
 * Nodes= is checked only after the last line, because Slurm lets a
 * partition name nodes defined further down (it builds nodes, then
 * partitions).  A second line for the same partition is ignored with a
 * warning, as Slurm does.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "conf/conf_private.h"

#define PUNSET INT64_MIN

/* What a PartitionName line says; numbers are PUNSET when not given. */
struct part_spec {
    char *nodes;
    int64_t is_default;
    int64_t state; /* index into part_states */
    int64_t max_time;
    int64_t default_time;
    int64_t max_nodes;
    int64_t priority_tier;
    int64_t priority_job_factor;
    int64_t preempt_mode; /* enum conf_preempt_mode */
    int64_t grace_time;   /* seconds */
    int64_t oversubscribe;/* N | FORCE_BIT, or EXCL_BIT (NO: 0) */
    int64_t root_only;
    int64_t hidden;
    int64_t over_time;    /* minutes, or CONF_OVERTIME_UNLIMITED */
    int64_t def_mem;      /* DefMemPerCPU/DefMemPerNode: MEM_CODE() */
    int64_t max_mem;      /* MaxMemPerCPU/MaxMemPerNode: MEM_CODE() */
    int64_t def_mem_per_gpu;
    int64_t def_cpu_per_gpu;
    int64_t disable_root_jobs;
    int64_t max_cpus_per_node;
    int64_t min_nodes;
    /* Access lists as written (NULL: not given); "ALL" kept as written. */
    char *allow_groups;
    char *allow_accounts;
    char *deny_accounts;
    char *allow_qos;
    char *deny_qos;
};

/* Where each partition was defined, for messages after the last line. */
struct part_src {
    char *file;
    int line;
    char *nodes; /* Nodes= as written, or NULL */
    /* What the partition takes from the global keywords when its lines
     * do not say (PUNSET), resolved after the last line. */
    int64_t def_mem, max_mem, def_mem_per_gpu, def_cpu_per_gpu;
    int64_t disable_root_jobs;
};

/* A memory pair's value in one int64: MiB, and which keyword of the pair. */
#define MEM_CODE(mib, per_cpu) ((int64_t)(mib) * 2 + ((per_cpu) ? 1 : 0))

enum part_type {
    PART_NODES,  /* char *, hostlist or ALL, checked after the last line */
    PART_BOOL,   /* YES/NO */
    PART_STATE,  /* UP/DOWN/DRAIN/INACTIVE */
    PART_TIME,   /* seconds, Slurm time limit syntax, minutes by default */
    PART_LIMIT,  /* number or UNLIMITED/INFINITE (UINT32_MAX) */
    PART_U32,
    PART_LIST,   /* char *, a comma list of names (AllowGroups=...) */
    PART_PREEMPT,/* PreemptMode=: enum conf_preempt_mode */
    PART_OVERSUB,/* OverSubscribe=NO|EXCLUSIVE|YES[:N]|FORCE[:N] */
    PART_OVERTIME,/* OverTimeLimit=: minutes or UNLIMITED */
    PART_MEM_CPU, /* DefMemPerCPU=, MaxMemPerCPU=: MEM_CODE(mib, 1) */
    PART_MEM_NODE,/* DefMemPerNode=, MaxMemPerNode=: MEM_CODE(mib, 0) */
    PART_MIB,    /* MiB ("16G" too) */
};

#define PSPEC(f) offsetof(struct part_spec, f)

static const struct part_key {
    const char *name;
    enum part_type type;
    size_t offset;
} part_keys[] = {
    /* keyword             type         field */
    { "Nodes",             PART_NODES,  PSPEC(nodes) },
    { "Default",           PART_BOOL,   PSPEC(is_default) },
    { "State",             PART_STATE,  PSPEC(state) },
    { "MaxTime",           PART_TIME,   PSPEC(max_time) },
    { "DefaultTime",       PART_TIME,   PSPEC(default_time) },
    { "MaxNodes",          PART_LIMIT,  PSPEC(max_nodes) },
    { "PriorityTier",      PART_U32,    PSPEC(priority_tier) },
    { "PriorityJobFactor", PART_U32,    PSPEC(priority_job_factor) },
    { "RootOnly",          PART_BOOL,   PSPEC(root_only) },
    { "Hidden",            PART_BOOL,   PSPEC(hidden) },
    { "AllowGroups",       PART_LIST,   PSPEC(allow_groups) },
    { "AllowAccounts",     PART_LIST,   PSPEC(allow_accounts) },
    { "DenyAccounts",      PART_LIST,   PSPEC(deny_accounts) },
    { "AllowQos",          PART_LIST,   PSPEC(allow_qos) },
    { "DenyQos",           PART_LIST,   PSPEC(deny_qos) },
    { "DefCpuPerGPU",      PART_U32,    PSPEC(def_cpu_per_gpu) },
    { "DefMemPerCPU",      PART_MEM_CPU, PSPEC(def_mem) },
    { "DefMemPerGPU",      PART_MIB,    PSPEC(def_mem_per_gpu) },
    { "DefMemPerNode",     PART_MEM_NODE, PSPEC(def_mem) },
    { "DisableRootJobs",   PART_BOOL,   PSPEC(disable_root_jobs) },
    { "GraceTime",         PART_U32,    PSPEC(grace_time) },
    { "MaxCPUsPerNode",    PART_LIMIT,  PSPEC(max_cpus_per_node) },
    { "MaxMemPerCPU",      PART_MEM_CPU, PSPEC(max_mem) },
    { "MaxMemPerNode",     PART_MEM_NODE, PSPEC(max_mem) },
    { "MinNodes",          PART_U32,    PSPEC(min_nodes) },
    { "OverSubscribe",     PART_OVERSUB, PSPEC(oversubscribe) },
    { "OverTimeLimit",     PART_OVERTIME, PSPEC(over_time) },
    { "PreemptMode",       PART_PREEMPT, PSPEC(preempt_mode) },
    { "Shared",            PART_OVERSUB, PSPEC(oversubscribe) }, /* old name */
};

static const char *const part_states[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };

static const struct part_key *part_key_find(const char *name)
{
    for (size_t i = 0; i < sizeof(part_keys) / sizeof(part_keys[0]); i++)
        if (!strcasecmp(part_keys[i].name, name))
            return &part_keys[i];
    return NULL;
}

static void pspec_init(struct part_spec *s)
{
    *s = (struct part_spec){
        .nodes = NULL,
        .is_default = PUNSET,
        .state = PUNSET,
        .max_time = PUNSET,
        .default_time = PUNSET,
        .max_nodes = PUNSET,
        .priority_tier = PUNSET,
        .priority_job_factor = PUNSET,
        .preempt_mode = PUNSET,
        .grace_time = PUNSET,
        .oversubscribe = PUNSET,
        .root_only = PUNSET,
        .hidden = PUNSET,
        .over_time = PUNSET,
        .def_mem = PUNSET,
        .max_mem = PUNSET,
        .def_mem_per_gpu = PUNSET,
        .def_cpu_per_gpu = PUNSET,
        .disable_root_jobs = PUNSET,
        .max_cpus_per_node = PUNSET,
        .min_nodes = PUNSET,
    };
}

/* The char * fields of a part_spec that are PART_LIST keys. */
static char **pspec_list(struct part_spec *s, const struct part_key *k)
{
    return (char **)((char *)s + k->offset);
}

/* Free what 's' owns (Nodes= and the access lists). */
static void pspec_free(struct part_spec *s)
{
    free(s->nodes);
    s->nodes = NULL;
    for (size_t i = 0; i < sizeof(part_keys) / sizeof(part_keys[0]); i++) {
        if (part_keys[i].type == PART_LIST) {
            char **f = pspec_list(s, &part_keys[i]);
            free(*f);
            *f = NULL;
        }
    }
}

static int pspec_merge(struct part_spec *dst, const struct part_spec *src)
{
    for (size_t i = 0; i < sizeof(part_keys) / sizeof(part_keys[0]); i++) {
        size_t off = part_keys[i].offset;
        int64_t *d = (int64_t *)((char *)dst + off);

        if (part_keys[i].type == PART_LIST) {
            char **dl = pspec_list(dst, &part_keys[i]);
            char *const *sl =
                pspec_list((struct part_spec *)src, &part_keys[i]);
            if (!*dl && *sl && !(*dl = strdup(*sl)))
                return -1;
            continue;
        }
        if (part_keys[i].type == PART_NODES)
            continue;
        if (*d == PUNSET)
            *d = *(const int64_t *)((const char *)src + off);
    }
    if (!dst->nodes && src->nodes && !(dst->nodes = strdup(src->nodes)))
        return -1;
    return 0;
}

static const char *parse_time(const char *value, int64_t *out)
{
    if (!strcasecmp(value, "NONE")) {
        *out = TIME_INFINITE;
        return NULL;
    }
    return timefmt_parse_limit(value, out, NULL) < 0 ? "not a time limit"
                                                     : NULL;
}

#define OVERSUB_FORCE (INT64_C(1) << 32)
#define OVERSUB_EXCL (INT64_C(1) << 33)

/* OverSubscribe=NO | EXCLUSIVE | YES[:N] | FORCE[:N] (N: 1-255, 4 when
 * not given, as Slurm) into N, with OVERSUB_FORCE or OVERSUB_EXCL. */
static const char *parse_oversub(const char *value, int64_t *out)
{
    size_t len = strcspn(value, ":");
    uint32_t n = 4;
    bool force = len == 5 && !strncasecmp(value, "FORCE", 5);

    if (!strcasecmp(value, "NO") || !strcasecmp(value, "EXCLUSIVE")) {
        *out = strcasecmp(value, "NO") ? OVERSUB_EXCL : 0;
        return NULL;
    }
    if (!force && !(len == 3 && !strncasecmp(value, "YES", 3)))
        return "expected NO, EXCLUSIVE, YES[:N] or FORCE[:N]";
    if (value[len] && (conf__parse_u32(value + len + 1, &n) < 0 || n < 1
                       || n > 255))
        return "the count after ':' must be 1 to 255";
    *out = (int64_t)n | (force ? OVERSUB_FORCE : 0);
    return NULL;
}

/* Parse one numeric value; NULL if good, else the reason. */
static const char *parse_number(enum part_type t, const char *value,
                                int64_t *out)
{
    uint32_t v;
    bool b;

    switch (t) {
    case PART_BOOL:
        if (conf__parse_bool(value, &b) < 0)
            return "expected YES or NO";
        *out = b;
        return NULL;
    case PART_STATE:
        for (size_t i = 0; i < sizeof(part_states) / sizeof(part_states[0]);
             i++) {
            if (!strcasecmp(value, part_states[i])) {
                *out = (int64_t)i;
                return NULL;
            }
        }
        return "expected UP, DOWN, DRAIN or INACTIVE";
    case PART_TIME:
        return parse_time(value, out);
    case PART_OVERSUB:
        return parse_oversub(value, out);
    case PART_OVERTIME: {
        const char *why = conf__parse_overtime(value, &v);
        if (!why)
            *out = v;
        return why;
    }
    case PART_MIB: {
        uint64_t mib;
        if (conf__parse_mib(value, &mib) < 0 || mib > INT64_MAX / 2)
            return "not a number";
        *out = (int64_t)mib;
        return NULL;
    }
    case PART_PREEMPT: {
        const char *why = conf_preempt_mode_parse(value, &v, NULL);
        if (!why)
            *out = v;
        return why;
    }
    default:
        if (t == PART_LIMIT
            && (!strcasecmp(value, "UNLIMITED") || !strcasecmp(value, "INFINITE")))
            v = UINT32_MAX;
        else if (conf__parse_u32(value, &v) < 0)
            return "not a number";
        *out = v;
        return NULL;
    }
}

/* DefMemPerCPU=/DefMemPerNode= (or the Max pair) of one line: one value,
 * the pair's other keyword on the same line refused (slurm.conf(5): the
 * two are mutually exclusive). */
static int pspec_set_mem(struct part_spec *s, const struct conf_line *l,
                         const struct conf_pair *kv, const struct part_key *k,
                         drv_error_t *error)
{
    int64_t *f = (int64_t *)((char *)s + k->offset);
    bool per_cpu = k->type == PART_MEM_CPU;
    uint64_t mib;

    if (*f != PUNSET && (*f & 1) != per_cpu)
        return conf__einval(error, "%s:%d: PartitionName=%s: %s=%s: "
                            "%.3sMemPerCPU and %.3sMemPerNode are mutually "
                            "exclusive", l->file, l->line, l->pairs[0].value,
                            kv->key, kv->value, k->name, k->name);
    if (conf__parse_mib(kv->value, &mib) < 0 || mib > INT64_MAX / 2)
        return conf__einval(error, "%s:%d: PartitionName=%s: %s=%s: not a "
                            "number", l->file, l->line, l->pairs[0].value,
                            kv->key, kv->value);
    *f = MEM_CODE(mib, per_cpu);
    return 0;
}

static int pspec_set(struct slurm_conf *conf, struct part_spec *s,
                     const struct conf_line *l, const struct conf_pair *kv,
                     drv_error_t *error)
{
    const struct part_key *k = part_key_find(kv->key);
    const struct conf_inert *inert;
    const char *bad;

    if (!k && (inert = conf__inert_find(CONF_INERT_PARTITION, kv->key)))
        return conf__inert_apply(conf, inert, l, kv, error);
    if (!k) {
        log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                  kv->key);
        return 0;
    }
    if (k->type == PART_NODES || k->type == PART_LIST) {
        char **f = k->type == PART_NODES ? &s->nodes : pspec_list(s, k);
        free(*f);
        return (*f = strdup(kv->value)) ? 0 : conf__enomem(error);
    }
    if (k->type == PART_MEM_CPU || k->type == PART_MEM_NODE)
        return pspec_set_mem(s, l, kv, k, error);
    bad = parse_number(k->type, kv->value,
                       (int64_t *)((char *)s + k->offset));
    if (bad)
        return conf__einval(error, "%s:%d: PartitionName=%s: %s=%s: %s",
                            l->file, l->line, l->pairs[0].value, kv->key,
                            kv->value, bad);
    return 0;
}

static int64_t or_default(int64_t v, int64_t dflt)
{
    return v != PUNSET ? v : dflt;
}

static int reserve_parts(struct conf_parser *p)
{
    struct slurm_conf *conf = p->conf;
    size_t alloc = p->part_alloc ? p->part_alloc * 2 : 8;
    struct conf_partition *parts;
    struct part_src *srcs;

    if (conf->partition_count < p->part_alloc)
        return 0;
    if (!(parts = realloc(conf->partitions, alloc * sizeof(*parts))))
        return -1;
    conf->partitions = parts;
    if (!(srcs = realloc(p->part_srcs, alloc * sizeof(*srcs))))
        return -1;
    p->part_srcs = srcs;
    p->part_alloc = alloc;
    return 0;
}

/* An Allow* list moved out of a spec: NULL for "ALL" (no restriction) or
 * when not given, else the list as written. */
static char *allow_list(char **field)
{
    char *v = *field;

    *field = NULL;
    if (v && !strcasecmp(v, "ALL")) {
        free(v);
        v = NULL;
    }
    return v;
}

static int add_partition(struct conf_parser *p, const struct conf_line *l,
                         struct part_spec *s)
{
    struct slurm_conf *conf = p->conf;
    struct conf_partition *part;
    struct part_src *src;

    if (reserve_parts(p) < 0)
        return -1;
    part = &conf->partitions[conf->partition_count];
    src = &p->part_srcs[conf->partition_count];
    *part = (struct conf_partition){
        .is_default = or_default(s->is_default, 0) != 0,
        .state = part_states[or_default(s->state, 0)],
        .state_up = or_default(s->state, 0) == 0,
        .max_time_s = or_default(s->max_time, TIME_INFINITE),
        .default_time_s = or_default(s->default_time, TIME_INFINITE),
        .max_nodes = (uint32_t)or_default(s->max_nodes, UINT32_MAX),
        .priority_tier = (uint32_t)or_default(s->priority_tier, 1),
        .priority_job_factor = (uint32_t)or_default(s->priority_job_factor, 1),
        .preempt_mode = (uint32_t)or_default(s->preempt_mode,
                                             CONF_PREEMPT_MODE_UNSET),
        .grace_time_s = (uint32_t)or_default(s->grace_time, 0),
        .oversubscribe = (uint32_t)(or_default(s->oversubscribe, 0)
                                    & 0xffffffff),
        .oversubscribe_force = (or_default(s->oversubscribe, 0)
                                & OVERSUB_FORCE) != 0,
        .exclusive_nodes = (or_default(s->oversubscribe, 0) & OVERSUB_EXCL)
                           != 0,
        .root_only = or_default(s->root_only, 0) != 0,
        .hidden = or_default(s->hidden, 0) != 0,
        .over_time_min = (uint32_t)or_default(s->over_time,
                                              CONF_OVERTIME_UNSET),
        .allow_groups = allow_list(&s->allow_groups),
        .allow_accounts = allow_list(&s->allow_accounts),
        .deny_accounts = s->deny_accounts,
        .allow_qos = allow_list(&s->allow_qos),
        .deny_qos = s->deny_qos,
        .max_cpus_per_node = (uint32_t)or_default(s->max_cpus_per_node,
                                                  UINT32_MAX),
        .min_nodes = (uint32_t)or_default(s->min_nodes, 0),
    };
    s->deny_accounts = s->deny_qos = NULL; /* moved to part */
    *src = (struct part_src){ .line = l->line, .nodes = s->nodes,
        .def_mem = s->def_mem, .max_mem = s->max_mem,
        .def_mem_per_gpu = s->def_mem_per_gpu,
        .def_cpu_per_gpu = s->def_cpu_per_gpu,
        .disable_root_jobs = s->disable_root_jobs };
    if (!(part->name = strdup(l->pairs[0].value))
        || !(src->file = strdup(l->file))) {
        free(part->name);
        return -1;
    }
    s->nodes = NULL; /* moved to src */
    /* Slurm: a later Default=YES partition replaces the earlier default. */
    for (size_t i = 0; part->is_default && i < conf->partition_count; i++)
        conf->partitions[i].is_default = false;
    conf->partition_count++;
    return 0;
}

static int set_defaults(struct conf_parser *p, struct part_spec *s)
{
    if (p->part_defaults)
        pspec_free(p->part_defaults);
    else if (!(p->part_defaults = malloc(sizeof(*s))))
        return -1;
    *p->part_defaults = *s;
    pspec_init(s);
    return 0;
}

static bool part_exists(const struct slurm_conf *conf, const char *name)
{
    for (size_t i = 0; i < conf->partition_count; i++)
        if (!strcmp(conf->partitions[i].name, name))
            return true;
    return false;
}

int conf__part_line(struct conf_parser *p, const struct conf_line *l,
                    drv_error_t *error)
{
    const char *name = l->pairs[0].value;
    struct part_spec spec;
    int rc = -1;

    if (!*name)
        return conf__einval(error, "%s:%d: PartitionName=: empty name",
                            l->file, l->line);
    pspec_init(&spec);
    for (size_t i = 1; i < l->count; i++)
        if (pspec_set(p->conf, &spec, l, &l->pairs[i], error) < 0)
            goto done;
    if (p->part_defaults && pspec_merge(&spec, p->part_defaults) < 0) {
        conf__enomem(error);
        goto done;
    }
    rc = 0;
    if (!strcasecmp(name, "DEFAULT"))
        rc = set_defaults(p, &spec);
    else if (part_exists(p->conf, name))
        log_error("%s:%d: PartitionName=%s: duplicate entry ignored",
                  l->file, l->line, name);
    else
        rc = add_partition(p, l, &spec);
    if (rc < 0)
        conf__enomem(error);
done:
    pspec_free(&spec);
    return rc;
}

/* Every node, in slurm.conf order. */
static hostlist_t *all_nodes(const struct slurm_conf *conf)
{
    hostlist_t *hl = hostlist_create();

    for (size_t i = 0; hl && i < conf->node_count; i++) {
        if (hostlist_append(hl, conf->nodes[i].name) < 0) {
            hostlist_destroy(hl);
            return NULL;
        }
    }
    return hl;
}

static hostlist_t *part_hosts(const struct slurm_conf *conf,
                              const struct part_src *src, const char *name,
                              drv_error_t *error)
{
    drv_error_t herr = { 0 };
    hostlist_t *hl;

    if (!strcasecmp(src->nodes, "ALL"))
        hl = all_nodes(conf);
    else
        hl = hostlist_decode(src->nodes, &herr);
    if (!hl && errno == ENOMEM)
        conf__enomem(error);
    else if (!hl)
        conf__einval(error, "%s:%d: PartitionName=%s: Nodes=%s: %s", src->file,
                     src->line, name, src->nodes, herr.text);
    return hl;
}

static int resolve_one(struct slurm_conf *conf, struct conf_partition *part,
                       const struct part_src *src, bool client,
                       drv_error_t *error)
{
    hostlist_t *hl;
    int rc = 0;

    if (!src->nodes || !*src->nodes)
        return (part->nodes = strdup("")) ? 0 : conf__enomem(error);
    if (client) /* no nodes to resolve against: as written */
        return (part->nodes = strdup(src->nodes)) ? 0 : conf__enomem(error);
    if (!(hl = part_hosts(conf, src, part->name, error)))
        return -1;
    for (size_t i = 0; i < hostlist_count(hl) && rc == 0; i++) {
        const char *host = hostlist_nth(hl, i);
        if (conf__index_find(conf->node_index, host) < 0)
            rc = conf__einval(error, "%s:%d: PartitionName=%s: Nodes=%s: no "
                              "such node %s", src->file, src->line, part->name,
                              src->nodes, host);
    }
    if (rc == 0 && !(part->nodes = hostlist_encode(hl)))
        rc = conf__enomem(error);
    hostlist_destroy(hl);
    return rc;
}

static struct conf_mem mem_of(int64_t code, const struct conf_mem *global)
{
    if (code == PUNSET)
        return (struct conf_mem){ .mib = global->mib,
                                  .per_cpu = global->per_cpu };
    return (struct conf_mem){ .mib = (uint64_t)code / 2,
                              .per_cpu = (code & 1) != 0 };
}

/* The job defaults and limits a partition's lines left out: the global
 * keywords' (Slurm's partitions inherit them the same way). */
static void inherit(const struct slurm_conf *conf, struct conf_partition *part,
                    const struct part_src *src)
{
    part->def_mem = mem_of(src->def_mem, &conf->def_mem);
    part->max_mem = mem_of(src->max_mem, &conf->max_mem);
    part->def_mem_per_gpu_mib = (uint64_t)or_default(
        src->def_mem_per_gpu, (int64_t)conf->def_mem_per_gpu_mib);
    part->def_cpu_per_gpu = (uint32_t)or_default(src->def_cpu_per_gpu,
                                                 conf->def_cpu_per_gpu);
    part->disable_root_jobs = or_default(src->disable_root_jobs,
                                         conf->disable_root_jobs) != 0;
}

int conf__part_resolve(struct conf_parser *p, drv_error_t *error)
{
    struct slurm_conf *conf = p->conf;

    for (size_t i = 0; i < conf->partition_count; i++)
        inherit(conf, &conf->partitions[i], &p->part_srcs[i]);
    for (size_t i = 0; i < conf->partition_count; i++)
        if (resolve_one(conf, &conf->partitions[i], &p->part_srcs[i],
                        p->client, error) < 0)
            return -1;
    return 0;
}

const char *conf_job_defaults_string(uint32_t cpu_per_gpu,
                                     uint64_t mem_per_gpu_mib, char *buf,
                                     size_t size)
{
    int n = 0;

    if (!cpu_per_gpu && !mem_per_gpu_mib)
        return NULL;
    if (cpu_per_gpu)
        n = snprintf(buf, size, "DefCpuPerGPU=%u", cpu_per_gpu);
    if (mem_per_gpu_mib && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "%sDefMemPerGPU=%llu",
                 n ? "," : "", (unsigned long long)mem_per_gpu_mib);
    return buf;
}

void conf__part_clear(struct conf_partition *part)
{
    free(part->name);
    free(part->nodes);
    free(part->allow_groups);
    free(part->allow_accounts);
    free(part->deny_accounts);
    free(part->allow_qos);
    free(part->deny_qos);
    memset(part, 0, sizeof(*part));
}

void conf__part_parser_clear(struct conf_parser *p)
{
    for (size_t i = 0; p->part_srcs && i < p->conf->partition_count; i++) {
        free(p->part_srcs[i].file);
        free(p->part_srcs[i].nodes);
    }
    free(p->part_srcs);
    p->part_srcs = NULL;
    if (p->part_defaults)
        pspec_free(p->part_defaults);
    free(p->part_defaults);
    p->part_defaults = NULL;
}
