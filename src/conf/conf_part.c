/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_part.c - PartitionName= lines of slurm.conf
 *
 * Nodes= is checked only after the last line, because Slurm lets a
 * partition name nodes defined further down (it builds nodes, then
 * partitions).  A second line for the same partition is ignored with a
 * warning, as Slurm does.  The same table parses the settings of
 * scontrol create|update partition (conf_partition_update()), so a value
 * means on the command line what it means in the file.
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
struct conf_part_spec {
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
    PART_JOBDEF, /* JobDefaults=DefCpuPerGPU=N,DefMemPerGPU=MiB: the two
                  * keywords of the same names */
};

#define PSPEC(f) offsetof(struct conf_part_spec, f)

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
    { "JobDefaults",       PART_JOBDEF, 0 },
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

static void pspec_init(struct conf_part_spec *s)
{
    *s = (struct conf_part_spec){
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
static char **pspec_list(struct conf_part_spec *s, const struct part_key *k)
{
    return (char **)((char *)s + k->offset);
}

/* Free what 's' owns (Nodes= and the access lists). */
static void pspec_free(struct conf_part_spec *s)
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

static int pspec_merge(struct conf_part_spec *dst, const struct conf_part_spec *src)
{
    for (size_t i = 0; i < sizeof(part_keys) / sizeof(part_keys[0]); i++) {
        size_t off = part_keys[i].offset;
        int64_t *d = (int64_t *)((char *)dst + off);

        if (part_keys[i].type == PART_LIST) {
            char **dl = pspec_list(dst, &part_keys[i]);
            char *const *sl =
                pspec_list((struct conf_part_spec *)src, &part_keys[i]);
            if (!*dl && *sl && !(*dl = strdup(*sl)))
                return -1;
            continue;
        }
        if (part_keys[i].type == PART_NODES
            || part_keys[i].type == PART_JOBDEF)
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

/* DefMemPerCPU=/DefMemPerNode= (or the Max pair): one value, the pair's
 * other keyword in the same line or change refused (slurm.conf(5): the
 * two are mutually exclusive). */
static int pspec_value_mem(struct conf_part_spec *s, const struct part_key *k,
                           const char *value, char *why, size_t size)
{
    int64_t *f = (int64_t *)((char *)s + k->offset);
    bool per_cpu = k->type == PART_MEM_CPU;
    uint64_t mib;

    if (*f != PUNSET && (*f & 1) != per_cpu) {
        snprintf(why, size, "%.3sMemPerCPU and %.3sMemPerNode are mutually "
                 "exclusive", k->name, k->name);
        return -1;
    }
    if (conf__parse_mib(value, &mib) < 0 || mib > INT64_MAX / 2) {
        snprintf(why, size, "not a number");
        return -1;
    }
    *f = MEM_CODE(mib, per_cpu);
    return 0;
}

static int pspec_value(struct conf_part_spec *s, const struct part_key *k,
                       const char *value, char *why, size_t size);

/* JobDefaults=DefCpuPerGPU=N,DefMemPerGPU=MiB (Slurm's form of the two);
 * empty: both 0 (none). */
static int pspec_value_jobdef(struct conf_part_spec *s, const char *value,
                              char *why, size_t size)
{
    char item[256];

    if (!*value) {
        s->def_cpu_per_gpu = s->def_mem_per_gpu = 0;
        return 0;
    }
    for (const char *p = value; *p;) {
        size_t len = strcspn(p, ",");
        const char *eq;
        const struct part_key *k;

        snprintf(item, sizeof(item), "%.*s", (int)len, p);
        p += len + (p[len] == ',');
        eq = strchr(item, '=');
        if (eq)
            item[eq - item] = '\0';
        k = eq ? part_key_find(item) : NULL;
        if (!k || (strcasecmp(k->name, "DefCpuPerGPU")
                   && strcasecmp(k->name, "DefMemPerGPU"))) {
            snprintf(why, size, "expected DefCpuPerGPU=N and/or "
                     "DefMemPerGPU=MiB");
            return -1;
        }
        if (pspec_value(s, k, eq + 1, why, size) < 0)
            return -1;
    }
    return 0;
}

/* Value 'value' of keyword 'k' into 's'.  0, or -1 with the reason in
 * 'why' (errno ENOMEM when out of memory, else EINVAL). */
static int pspec_value(struct conf_part_spec *s, const struct part_key *k,
                       const char *value, char *why, size_t size)
{
    const char *bad;

    errno = EINVAL;
    if (k->type == PART_NODES || k->type == PART_LIST) {
        char **f = k->type == PART_NODES ? &s->nodes : pspec_list(s, k);
        free(*f);
        if ((*f = strdup(value)))
            return 0;
        errno = ENOMEM;
        snprintf(why, size, "%s", strerror(ENOMEM));
        return -1;
    }
    if (k->type == PART_MEM_CPU || k->type == PART_MEM_NODE)
        return pspec_value_mem(s, k, value, why, size);
    if (k->type == PART_JOBDEF)
        return pspec_value_jobdef(s, value, why, size);
    bad = parse_number(k->type, value, (int64_t *)((char *)s + k->offset));
    if (bad) {
        snprintf(why, size, "%s", bad);
        return -1;
    }
    return 0;
}

static int pspec_set(struct slurm_conf *conf, struct conf_part_spec *s,
                     const struct conf_line *l, const struct conf_pair *kv,
                     drv_error_t *error)
{
    const struct part_key *k = part_key_find(kv->key);
    const struct conf_inert *inert;
    char why[256];

    if (!k && (inert = conf__inert_find(CONF_INERT_PARTITION, kv->key)))
        return conf__inert_apply(conf, inert, l, kv, error);
    if (!k) {
        log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                  kv->key);
        return 0;
    }
    if (pspec_value(s, k, kv->value, why, sizeof(why)) < 0)
        return errno == ENOMEM
                   ? conf__enomem(error)
                   : conf__einval(error, "%s:%d: PartitionName=%s: %s=%s: %s",
                                  l->file, l->line, l->pairs[0].value,
                                  kv->key, kv->value, why);
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

/* Slurm's values of what no line sets. */
static void part_base(struct conf_partition *part)
{
    *part = (struct conf_partition){
        .state = part_states[0],
        .state_up = true,
        .max_time_s = TIME_INFINITE,
        .default_time_s = TIME_INFINITE,
        .max_nodes = UINT32_MAX,
        .priority_tier = 1,
        .priority_job_factor = 1,
        .preempt_mode = CONF_PREEMPT_MODE_UNSET,
        .over_time_min = CONF_OVERTIME_UNSET,
        .max_cpus_per_node = UINT32_MAX,
    };
}

/* An access list as given ('v'; NULL: not given, no change) into *dst:
 * NULL for an empty one and, for an Allow list, for "ALL" (no
 * restriction), as Slurm's update_part() keeps them.  0 or -1 ENOMEM. */
static int list_set(char **dst, const char *v, bool allow)
{
    char *copy = NULL;

    if (!v)
        return 0;
    if (*v && !(allow && !strcasecmp(v, "ALL")) && !(copy = strdup(v)))
        return -1;
    free(*dst);
    *dst = copy;
    return 0;
}

static struct conf_mem mem_of(int64_t code, const struct conf_mem *global)
{
    if (code == PUNSET)
        return (struct conf_mem){ .mib = global ? global->mib : 0,
                                  .per_cpu = global && global->per_cpu };
    return (struct conf_mem){ .mib = (uint64_t)code / 2,
                              .per_cpu = (code & 1) != 0 };
}

#define SET(field, v, type) \
    do { if ((v) != PUNSET) (field) = (type)(v); } while (0)

/* What 's' sets laid over 'part' (Nodes= excepted: it is resolved by the
 * caller).  0, or -1 with errno ENOMEM (part partly changed: callers lay
 * a spec over a copy or a new record). */
static int pspec_overlay(struct conf_partition *part,
                         const struct conf_part_spec *s)
{
    SET(part->is_default, s->is_default, bool);
    if (s->state != PUNSET) {
        part->state = part_states[s->state];
        part->state_up = s->state == 0;
    }
    SET(part->max_time_s, s->max_time, int64_t);
    SET(part->default_time_s, s->default_time, int64_t);
    SET(part->max_nodes, s->max_nodes, uint32_t);
    SET(part->priority_tier, s->priority_tier, uint32_t);
    SET(part->priority_job_factor, s->priority_job_factor, uint32_t);
    SET(part->preempt_mode, s->preempt_mode, uint32_t);
    SET(part->grace_time_s, s->grace_time, uint32_t);
    if (s->oversubscribe != PUNSET) {
        part->oversubscribe = (uint32_t)(s->oversubscribe & 0xffffffff);
        part->oversubscribe_force = (s->oversubscribe & OVERSUB_FORCE) != 0;
        part->exclusive_nodes = (s->oversubscribe & OVERSUB_EXCL) != 0;
    }
    SET(part->root_only, s->root_only, bool);
    SET(part->hidden, s->hidden, bool);
    SET(part->over_time_min, s->over_time, uint32_t);
    SET(part->max_cpus_per_node, s->max_cpus_per_node, uint32_t);
    SET(part->min_nodes, s->min_nodes, uint32_t);
    if (s->def_mem != PUNSET)
        part->def_mem = mem_of(s->def_mem, NULL);
    if (s->max_mem != PUNSET)
        part->max_mem = mem_of(s->max_mem, NULL);
    SET(part->def_mem_per_gpu_mib, s->def_mem_per_gpu, uint64_t);
    SET(part->def_cpu_per_gpu, s->def_cpu_per_gpu, uint32_t);
    SET(part->disable_root_jobs, s->disable_root_jobs, bool);
    if (list_set(&part->allow_groups, s->allow_groups, true) < 0
        || list_set(&part->allow_accounts, s->allow_accounts, true) < 0
        || list_set(&part->deny_accounts, s->deny_accounts, false) < 0
        || list_set(&part->allow_qos, s->allow_qos, true) < 0
        || list_set(&part->deny_qos, s->deny_qos, false) < 0)
        return -1;
    return 0;
}

#undef SET

static int add_partition(struct conf_parser *p, const struct conf_line *l,
                         struct conf_part_spec *s)
{
    struct slurm_conf *conf = p->conf;
    struct conf_partition *part;
    struct part_src *src;

    if (reserve_parts(p) < 0)
        return -1;
    part = &conf->partitions[conf->partition_count];
    src = &p->part_srcs[conf->partition_count];
    part_base(part);
    *src = (struct part_src){ .line = l->line, .nodes = s->nodes,
        .def_mem = s->def_mem, .max_mem = s->max_mem,
        .def_mem_per_gpu = s->def_mem_per_gpu,
        .def_cpu_per_gpu = s->def_cpu_per_gpu,
        .disable_root_jobs = s->disable_root_jobs };
    s->nodes = NULL; /* moved to src */
    if (pspec_overlay(part, s) < 0 || !(part->name = strdup(l->pairs[0].value))
        || !(src->file = strdup(l->file))) {
        conf__part_clear(part);
        free(src->nodes);
        return -1;
    }
    /* Slurm: a later Default=YES partition replaces the earlier default. */
    for (size_t i = 0; part->is_default && i < conf->partition_count; i++)
        conf->partitions[i].is_default = false;
    conf->partition_count++;
    return 0;
}

static int set_defaults(struct conf_parser *p, struct conf_part_spec *s)
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
    struct conf_part_spec spec;
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

/* Nodes= 'expr' (a hostlist or ALL) against conf's nodes: their
 * compressed hostlist (caller frees).  NULL with errno ENOMEM, EINVAL (a
 * bad expression) or EDRV_INVALID_NODE_NAME (a node conf lacks), 'why'
 * saying which. */
static char *nodes_resolve(const struct slurm_conf *conf, const char *expr,
                           char *why, size_t size)
{
    drv_error_t herr = { 0 };
    hostlist_t *hl;
    char *out = NULL;

    hl = !strcasecmp(expr, "ALL") ? all_nodes(conf)
                                  : hostlist_decode(expr, &herr);
    if (!hl) {
        snprintf(why, size, "%s", errno == ENOMEM ? strerror(ENOMEM)
                                                  : herr.text);
        return NULL;
    }
    for (size_t i = 0; i < hostlist_count(hl); i++) {
        const char *host = hostlist_nth(hl, i);
        if (conf__index_find(conf->node_index, host) < 0) {
            snprintf(why, size, "no such node %s", host);
            hostlist_destroy(hl);
            errno = EDRV_INVALID_NODE_NAME;
            return NULL;
        }
    }
    if (!(out = hostlist_encode(hl)))
        snprintf(why, size, "%s", strerror(ENOMEM));
    hostlist_destroy(hl);
    return out;
}

static int resolve_one(struct slurm_conf *conf, struct conf_partition *part,
                       const struct part_src *src, bool client,
                       drv_error_t *error)
{
    char why[200];

    if (!src->nodes || !*src->nodes)
        return (part->nodes = strdup("")) ? 0 : conf__enomem(error);
    if (client) /* no nodes to resolve against: as written */
        return (part->nodes = strdup(src->nodes)) ? 0 : conf__enomem(error);
    if ((part->nodes = nodes_resolve(conf, src->nodes, why, sizeof(why))))
        return 0;
    if (errno == ENOMEM)
        return conf__enomem(error);
    return conf__einval(error, "%s:%d: PartitionName=%s: Nodes=%s: %s",
                        src->file, src->line, part->name, src->nodes, why);
}

/* The job defaults and limits a partition's lines left out: the global
 * keywords' (Slurm's partitions inherit them the same way). */
static void inherit_from(const struct slurm_conf *conf,
                         struct conf_partition *part, int64_t def_mem,
                         int64_t max_mem, int64_t mem_per_gpu,
                         int64_t cpu_per_gpu, int64_t no_root)
{
    part->def_mem = mem_of(def_mem, &conf->def_mem);
    part->max_mem = mem_of(max_mem, &conf->max_mem);
    part->def_mem_per_gpu_mib = (uint64_t)or_default(
        mem_per_gpu, (int64_t)conf->def_mem_per_gpu_mib);
    part->def_cpu_per_gpu = (uint32_t)or_default(cpu_per_gpu,
                                                 conf->def_cpu_per_gpu);
    part->disable_root_jobs = or_default(no_root,
                                         conf->disable_root_jobs) != 0;
}

static void inherit(const struct slurm_conf *conf, struct conf_partition *part,
                    const struct part_src *src)
{
    inherit_from(conf, part, src->def_mem, src->max_mem,
                 src->def_mem_per_gpu, src->def_cpu_per_gpu,
                 src->disable_root_jobs);
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
    /* Kept for scontrol create partition (conf_partition_init()). */
    p->conf->part_defaults = p->part_defaults;
    p->part_defaults = NULL;
}

void conf__part_defaults_free(struct slurm_conf *conf)
{
    if (conf->part_defaults)
        pspec_free(conf->part_defaults);
    free(conf->part_defaults);
    conf->part_defaults = NULL;
}

/* --- scontrol create|update partition ------------------------------------ */

int conf_partition_copy(struct conf_partition *dst,
                        const struct conf_partition *src)
{
    *dst = *src;
    dst->name = dst->nodes = NULL;
    dst->allow_groups = dst->allow_accounts = dst->deny_accounts = NULL;
    dst->allow_qos = dst->deny_qos = NULL;
    if ((src->name && !(dst->name = strdup(src->name)))
        || (src->nodes && !(dst->nodes = strdup(src->nodes)))
        || list_set(&dst->allow_groups, src->allow_groups, false) < 0
        || list_set(&dst->allow_accounts, src->allow_accounts, false) < 0
        || list_set(&dst->deny_accounts, src->deny_accounts, false) < 0
        || list_set(&dst->allow_qos, src->allow_qos, false) < 0
        || list_set(&dst->deny_qos, src->deny_qos, false) < 0) {
        conf__part_clear(dst);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void conf_partition_clear(struct conf_partition *part)
{
    int saved_errno = errno;

    if (part)
        conf__part_clear(part);
    errno = saved_errno;
}

int conf_partition_init(const struct slurm_conf *conf,
                        struct conf_partition *part, const char *name,
                        drv_error_t *error)
{
    const struct conf_part_spec *d = conf ? conf->part_defaults : NULL;
    const struct slurm_conf zero = { 0 };
    char why[200];

    part_base(part);
    if ((d && pspec_overlay(part, d) < 0) || !(part->name = strdup(name))) {
        conf__part_clear(part);
        return conf__enomem(error);
    }
    part->is_default = false;
    inherit_from(conf ? conf : &zero, part, d ? d->def_mem : PUNSET,
                 d ? d->max_mem : PUNSET, d ? d->def_mem_per_gpu : PUNSET,
                 d ? d->def_cpu_per_gpu : PUNSET,
                 d ? d->disable_root_jobs : PUNSET);
    if (!d || !d->nodes || !*d->nodes || !conf)
        part->nodes = strdup(d && d->nodes ? d->nodes : "");
    else if (!(part->nodes = nodes_resolve(conf, d->nodes, why, sizeof(why)))
             && errno != ENOMEM) {
        conf__part_clear(part);
        return errprintf(error, "PartitionName=DEFAULT: Nodes=%s: %s",
                         d->nodes, why);
    }
    if (!part->nodes) {
        conf__part_clear(part);
        return conf__enomem(error);
    }
    return 0;
}

/* One Key=Value of a change into 's': a keyword with no counterpart in
 * Drover is taken only with a value that is Drover's behaviour. */
static int pspec_change(struct conf_part_spec *s, const char *key,
                        const char *value, drv_error_t *error)
{
    const struct part_key *k = part_key_find(key);
    const struct conf_inert *inert;
    char why[256];

    if (!k && (inert = conf__inert_find(CONF_INERT_PARTITION, key))) {
        if (conf__inert_check(inert, value, why, sizeof(why)) == 0)
            return 0;
        errno = ENOTSUP;
        return errprintf(error, "%s=%s: %s", inert->name, value, why);
    }
    if (!k) {
        errno = ENOENT;
        return errprintf(error, "%s=%s: not a partition keyword", key, value);
    }
    if (pspec_value(s, k, value, why, sizeof(why)) < 0)
        return errno == ENOMEM ? conf__enomem(error)
                               : conf__einval(error, "%s=%s: %s", k->name,
                                              value, why);
    return 0;
}

int conf_partition_update(const struct slurm_conf *conf,
                          struct conf_partition *part, size_t n,
                          const char *const keys[],
                          const char *const values[], drv_error_t *error)
{
    struct conf_part_spec s;
    struct conf_partition copy;
    char *nodes = NULL, why[200];
    int rc = -1;

    pspec_init(&s);
    for (size_t i = 0; i < n; i++)
        if (pspec_change(&s, keys[i], values[i], error) < 0)
            goto done;
    if (s.nodes && (!*s.nodes || !conf)) {
        nodes = strdup(s.nodes); /* none, or as written (a client) */
    } else if (s.nodes
               && !(nodes = nodes_resolve(conf, s.nodes, why, sizeof(why)))
               && errno != ENOMEM) {
        errprintf(error, "Nodes=%s: %s", s.nodes, why);
        goto done;
    }
    if ((s.nodes && !nodes) || conf_partition_copy(&copy, part) < 0) {
        conf__enomem(error);
        goto done;
    }
    if (pspec_overlay(&copy, &s) < 0) {
        conf__part_clear(&copy);
        conf__enomem(error);
        goto done;
    }
    if (nodes) {
        free(copy.nodes);
        copy.nodes = nodes;
        nodes = NULL;
    }
    /* Slurm's update_part() leaves DefaultTime unchanged, saying so in its
     * log only, when it would exceed MaxTime; Drover refuses the change. */
    if (s.default_time != PUNSET && copy.default_time_s != TIME_INFINITE
        && copy.max_time_s != TIME_INFINITE
        && copy.default_time_s > copy.max_time_s) {
        conf__part_clear(&copy);
        conf__einval(error, "DefaultTime would exceed MaxTime");
        goto done;
    }
    conf__part_clear(part);
    *part = copy;
    rc = 0;
done:
    pspec_free(&s);
    free(nodes);
    return rc;
}

const char *conf_partition_keyword(const char *key)
{
    const struct part_key *k = key ? part_key_find(key) : NULL;
    const struct conf_inert *inert;

    if (k)
        return !strcmp(k->name, "Shared") ? "OverSubscribe" : k->name;
    inert = key ? conf__inert_find(CONF_INERT_PARTITION, key) : NULL;
    return inert ? inert->name : NULL;
}

/* The value offsets keyword 'k' sets: one, or JobDefaults's two. */
static size_t key_offsets(const struct part_key *k, size_t out[2])
{
    if (k->type != PART_JOBDEF) {
        out[0] = k->offset;
        return 1;
    }
    out[0] = PSPEC(def_cpu_per_gpu);
    out[1] = PSPEC(def_mem_per_gpu);
    return 2;
}

bool conf_partition_keys_overlap(const char *a, const char *b)
{
    const struct part_key *ka = part_key_find(a), *kb = part_key_find(b);
    size_t oa[2], ob[2], na, nb;

    if (!ka || !kb)
        return !strcasecmp(a, b);
    na = key_offsets(ka, oa);
    nb = key_offsets(kb, ob);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (oa[i] == ob[j])
                return true;
    return false;
}
