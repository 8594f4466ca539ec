/* SPDX-License-Identifier: Apache-2.0
 *
 * sinfo_print.c - sinfo's rows: nodes grouped by what the format shows
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uthash.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/sinfo_print.h"
#include "cmd/lib/states.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

#define ROW(rec) ((const struct sinfo_row *)(rec))

static const json_t *first_node(const void *rec)
{
    return ROW(rec)->nnodes ? ROW(rec)->nodes[0] : NULL;
}

static void put_int(struct fmt_buf *out, const void *rec, const char *key)
{
    fmt_buf_printf(out, "%lld", (long long)jint(first_node(rec), key, 0));
}

static void put_str(struct fmt_buf *out, const void *rec, const char *key,
                    const char *dflt)
{
    fmt_buf_puts(out, jstr_or(first_node(rec), key, dflt));
}

/* --- per-node columns ---------------------------------------------------- */

static void p_cpus(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "cpus");
}

static void p_memory(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "real_memory_mib");
}

static void p_alloc_mem(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "alloc_mem_mib");
}

static void p_disk(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "tmp_disk_mib");
}

static void p_weight(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "weight");
}

static void p_sockets(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "sockets");
}

static void p_cores(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "cores_per_socket");
}

static void p_threads(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_int(out, rec, "threads_per_core");
}

static void p_sct(struct fmt_buf *out, const void *rec, const void *ctx)
{
    const json_t *n = first_node(rec);

    fmt_buf_printf(out, "%lld:%lld:%lld", (long long)jint(n, "sockets", 0),
                   (long long)jint(n, "cores_per_socket", 0),
                   (long long)jint(n, "threads_per_core", 0));
}

static void p_gres(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_str(out, rec, "gres", "(null)");
}

/* One GRES entry with its count replaced: "gpu:a100:8" -> "gpu:a100:0". */
static void put_gres_zero(struct fmt_buf *out, const char *item, size_t len)
{
    const char *colon = NULL;

    for (const char *p = item; p < item + len; p++) {
        if (*p == ':')
            colon = p;
    }
    if (colon && isdigit((unsigned char)colon[1]))
        fmt_buf_printf(out, "%.*s:0", (int)(colon - item), item);
    else
        fmt_buf_printf(out, "%.*s:0", (int)len, item);
}

/* Length of the GRES item at 'p', up to a comma outside parentheses:
 * "shard:2(2/4,0/4)" is one. */
static size_t item_len(const char *p)
{
    size_t n = 0;
    int depth = 0;

    for (; p[n] && (p[n] != ',' || depth > 0); n++)
        depth += p[n] == '(' ? 1 : p[n] == ')' ? -1 : 0;
    return n;
}

/* sinfo's GresUsed shows counts without the "(IDX:..)" detail; a node with
 * GRES but none in use shows "gpu:0".
 */
static void p_gres_used(struct fmt_buf *out, const void *rec, const void *ctx)
{
    const char *used = jstr_or(first_node(rec), "gres_used", NULL);
    const char *gres = jstr_or(first_node(rec), "gres", NULL);
    const char *src = used ? used : gres;
    size_t n;

    if (!src) {
        fmt_buf_puts(out, "(null)");
        return;
    }
    for (const char *p = src; *p; p += n + (p[n] == ',')) {
        n = item_len(p);
        if (p != src)
            fmt_buf_puts(out, ",");
        if (used)
            fmt_buf_printf(out, "%.*s", (int)strcspn(p, "(,"), p);
        else
            put_gres_zero(out, p, n);
    }
}

static void p_state(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, ROW(rec)->nnodes
                          ? node_state_compact(node_state_of(first_node(rec)))
                          : "n/a");
}

static void p_state_long(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    fmt_buf_puts(out, ROW(rec)->nnodes
                          ? node_state_long(node_state_of(first_node(rec)))
                          : "n/a");
}

static void p_reason(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_str(out, rec, "reason", "none");
}

static void p_reason_user(struct fmt_buf *out, const void *rec,
                          const void *ctx)
{
    put_str(out, rec, "reason_user", "Unknown");
}

static void p_reason_uid(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    const json_t *n = first_node(rec);

    fmt_buf_printf(out, "%s(%lld)", jstr_or(n, "reason_user", "Unknown"),
                   (long long)jint(n, "reason_uid", 0));
}

static void p_reason_time(struct fmt_buf *out, const void *rec,
                          const void *ctx)
{
    char buf[32];

    fmt_buf_puts(out, timefmt_stamp((time_t)jint(first_node(rec),
                                                 "reason_time", 0),
                                    0, buf, sizeof(buf)));
}

static void p_features(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_str(out, rec, "features", "(null)");
}

static void p_cpu_load(struct fmt_buf *out, const void *rec, const void *ctx)
{
    const json_t *n = first_node(rec);

    if (jhas(n, "cpu_load"))
        fmt_buf_printf(out, "%.2f", (double)jint(n, "cpu_load", 0) / 100.0);
    else
        fmt_buf_puts(out, "N/A");
}

static void p_free_mem(struct fmt_buf *out, const void *rec, const void *ctx)
{
    const json_t *n = first_node(rec);

    if (jhas(n, "free_mem_mib"))
        put_int(out, rec, "free_mem_mib");
    else
        fmt_buf_puts(out, "N/A");
}

static void p_version(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_str(out, rec, "version", "N/A");
}

/* --- columns over the whole group ---------------------------------------- */

/* Encode one string field of every member node as a hostlist, once each. */
struct seen {
    UT_hash_handle hh; /* key: the value, borrowed from the JSON */
};

static void put_hostlist(struct fmt_buf *out, const void *rec,
                         const char *key)
{
    hostlist_t *hl = hostlist_create();
    struct seen *seen = NULL, *e, *tmp;
    struct seen *ents = xzalloc((ROW(rec)->nnodes + 1) * sizeof(*ents));
    char *s;

    for (size_t i = 0; hl && i < ROW(rec)->nnodes; i++) {
        const char *v = jstr_or(ROW(rec)->nodes[i], key, NULL);

        if (!v)
            v = jstr_or(ROW(rec)->nodes[i], "name", "");
        HASH_FIND_STR(seen, v, e);
        if (e)
            continue;
        HASH_ADD_KEYPTR(hh, seen, v, strlen(v), &ents[i]);
        hostlist_append(hl, v);
    }
    HASH_ITER(hh, seen, e, tmp)
        HASH_DEL(seen, e);
    free(ents);
    s = hl ? hostlist_encode(hl) : NULL;
    fmt_buf_puts(out, s ? s : "");
    free(s);
    hostlist_destroy(hl);
}

static void p_nodelist(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_hostlist(out, rec, "name");
}

static void p_hostnames(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    put_hostlist(out, rec, "hostname");
}

static void p_addrs(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_hostlist(out, rec, "addr");
}

static void p_count(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_printf(out, "%zu", ROW(rec)->nnodes);
}

/* Allocated, idle, other (drained, down...) and total, as sinfo counts. */
static void count_nodes(const void *rec, unsigned c[4])
{
    c[0] = c[1] = c[2] = 0;
    c[3] = (unsigned)ROW(rec)->nnodes;
    for (size_t i = 0; i < ROW(rec)->nnodes; i++) {
        struct node_state st = node_state_of(ROW(rec)->nodes[i]);

        if (st.drain || st.base == NODE_BASE_DOWN
            || st.base == NODE_BASE_UNKNOWN || st.not_responding)
            c[2]++;
        else if (st.base == NODE_BASE_ALLOCATED || st.base == NODE_BASE_MIXED)
            c[0]++;
        else if (st.base == NODE_BASE_IDLE)
            c[1]++;
        else
            c[2]++;
    }
}

static void p_nodes_aiot(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    unsigned c[4];

    count_nodes(rec, c);
    fmt_buf_printf(out, "%u/%u/%u/%u", c[0], c[1], c[2], c[3]);
}

static void p_nodes_ai(struct fmt_buf *out, const void *rec, const void *ctx)
{
    unsigned c[4];

    count_nodes(rec, c);
    fmt_buf_printf(out, "%u/%u", c[0], c[1]);
}

/* CPUs of a drained or down node that are not allocated count as other. */
static void p_cpus_aiot(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    long long a = 0, idle = 0, o = 0, t = 0;

    for (size_t i = 0; i < ROW(rec)->nnodes; i++) {
        const json_t *n = ROW(rec)->nodes[i];
        struct node_state st = node_state_of(n);
        long long cpus = (long long)jint(n, "cpus", 0);
        long long alloc = (long long)jint(n, "alloc_cpus", 0);

        t += cpus;
        a += alloc;
        if (st.drain || st.base == NODE_BASE_DOWN || st.not_responding)
            o += cpus - alloc;
        else
            idle += cpus - alloc;
    }
    fmt_buf_printf(out, "%lld/%lld/%lld/%lld", a, idle, o, t);
}

/* --- partition columns --------------------------------------------------- */

#define PART(rec) (ROW(rec)->part)

static void p_partition(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    if (!PART(rec)) {
        fmt_buf_puts(out, "n/a");
        return;
    }
    fmt_buf_puts(out, jstr_or(PART(rec), "name", ""));
    if (jbool(PART(rec), "default", false))
        fmt_buf_puts(out, "*");
}

static void p_partname(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, PART(rec) ? jstr_or(PART(rec), "name", "") : "n/a");
}

static void p_avail(struct fmt_buf *out, const void *rec, const void *ctx)
{
    const char *state = PART(rec) ? jstr_or(PART(rec), "state", "UP") : NULL;

    if (!state) {
        fmt_buf_puts(out, "n/a");
        return;
    }
    if (!strcmp(state, "INACTIVE")) { /* Slurm's sinfo: "inact" */
        fmt_buf_puts(out, "inact");
        return;
    }
    for (const char *p = state; *p; p++)
        fmt_buf_printf(out, "%c", tolower((unsigned char)*p));
}

static void put_part_time(struct fmt_buf *out, const void *rec,
                          const char *key, const char *none)
{
    char buf[32];
    int64_t secs;

    if (!PART(rec)) {
        fmt_buf_puts(out, "n/a");
        return;
    }
    secs = jint(PART(rec), key, TIME_INFINITE);
    if (secs < 0 && none)
        fmt_buf_puts(out, none);
    else
        fmt_buf_puts(out, timefmt_limit(secs < 0 ? TIME_INFINITE : secs, 1,
                                        buf, sizeof(buf)));
}

static void p_timelimit(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    put_part_time(out, rec, "max_time_s", NULL);
}

static void p_default_time(struct fmt_buf *out, const void *rec,
                           const void *ctx)
{
    put_part_time(out, rec, "default_time_s", "n/a");
}

static void p_jobsize(struct fmt_buf *out, const void *rec, const void *ctx)
{
    int64_t max = jint(PART(rec), "max_nodes", -1);

    if (max < 0)
        fmt_buf_puts(out, "1-infinite");
    else
        fmt_buf_printf(out, "1-%lld", (long long)max);
}

static void p_root(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, "no");
}

static void p_oversub(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, "NO");
}

static void p_groups(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, "all");
}

static void p_prio_tier(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    fmt_buf_printf(out, "%lld", (long long)jint(PART(rec), "priority_tier", 1));
}

static void p_prio_factor(struct fmt_buf *out, const void *rec,
                          const void *ctx)
{
    fmt_buf_printf(out, "%lld",
                   (long long)jint(PART(rec), "priority_job_factor", 1));
}

#define NC (FMT_NOCUT | FMT_HEADER_NOCUT)

const struct fmt_field sinfo_fields[] = {
    {'A', "NodeAI", "NODES(A/I)", p_nodes_ai, 0},
    {'a', "Available", "AVAIL", p_avail, 0},
    {'b', "FeaturesAct", "ACTIVE_FEATURES", p_features, 0},
    {'C', "CPUsState", "CPUS(A/I/O/T)", p_cpus_aiot, 0},
    {'c', "CPUs", "CPUS", p_cpus, 0},
    {'D', "Nodes", "NODES", p_count, 0},
    {'d', "Disk", "TMP_DISK", p_disk, 0},
    {'E', "Reason", "REASON", p_reason, 0},
    {'e', "FreeMem", "FREE_MEM", p_free_mem, 0},
    {'F', "NodeAIOT", "NODES(A/I/O/T)", p_nodes_aiot, 0},
    {'f', "Features", "AVAIL_FEATURES", p_features, 0},
    {'G', "Gres", "GRES", p_gres, 0},
    {0, "GresUsed", "GRES_USED", p_gres_used, 0},
    {'g', "Groups", "GROUPS", p_groups, 0},
    {'H', "Timestamp", "TIMESTAMP", p_reason_time, 0},
    {'h', "OverSubscribe", "OVERSUBSCRIBE", p_oversub, 0},
    {'I', "PriorityJobFactor", "PRIO_JOB_FACTOR", p_prio_factor, 0},
    {'L', "DefaultTime", "DEFAULTTIME", p_default_time, 0},
    {'l', "Time", "TIMELIMIT", p_timelimit, 0},
    {'m', "Memory", "MEMORY", p_memory, 0},
    {0, "AllocMem", "ALLOCMEM", p_alloc_mem, 0},
    {'N', "NodeList", "NODELIST", p_nodelist, NC},
    {'n', "NodeHost", "HOSTNAMES", p_hostnames, 0},
    {'O', "CPUsLoad", "CPU_LOAD", p_cpu_load, 0},
    {'o', "NodeAddr", "NODE_ADDR", p_addrs, 0},
    {'P', "Partition", "PARTITION", p_partition, 0},
    {'p', "PriorityTier", "PRIO_TIER", p_prio_tier, 0},
    {'R', "PartitionName", "PARTITION", p_partname, 0},
    {'r', "Root", "ROOT", p_root, 0},
    {'s', "Size", "JOB_SIZE", p_jobsize, 0},
    {'T', "StateLong", "STATE", p_state_long, 0},
    {'t', "StateCompact", "STATE", p_state, 0},
    {'U', "UserLong", "USER", p_reason_uid, 0},
    {'u', "User", "USER", p_reason_user, 0},
    {'v', "Version", "VERSION", p_version, 0},
    {'w', "Weight", "WEIGHT", p_weight, 0},
    {'X', "Sockets", "SOCKETS", p_sockets, 0},
    {'Y', "Cores", "CORES", p_cores, 0},
    {'Z', "Threads", "THREADS", p_threads, 0},
    {'z', "SocketCoreThread", "S:C:T", p_sct, 0},
    {0, NULL, NULL, NULL, 0},
};

static bool is_aggregate(fmt_print_f f)
{
    return f == p_nodelist || f == p_hostnames || f == p_addrs
           || f == p_count || f == p_nodes_aiot || f == p_nodes_ai
           || f == p_cpus_aiot;
}

static bool is_partition(fmt_print_f f)
{
    return f == p_partition || f == p_partname || f == p_avail
           || f == p_timelimit || f == p_default_time || f == p_jobsize
           || f == p_root || f == p_oversub || f == p_groups
           || f == p_prio_tier || f == p_prio_factor;
}

/* --- grouping ------------------------------------------------------------ */

/* Hash entries: a row by its key, a node by its name, a (row, node)
 * pair already added.  Each a lookup, not a walk: 10,000 nodes made the
 * walks quadratic (4 s for one sinfo: bench/scale). */
struct row_ent {
    size_t row;
    UT_hash_handle hh; /* key: the row's key (struct sinfo_row.key) */
};

struct node_ent {
    const json_t *node;
    size_t idx; /* its place in the node list */
    UT_hash_handle hh; /* key: its name, borrowed from the JSON */
};

struct pair_ent {
    uint64_t pair; /* row << 32 | node index */
    UT_hash_handle hh;
};

struct rows {
    struct sinfo_row *v;
    size_t n;
    size_t cap;
    struct row_ent *by_key;
    struct node_ent *by_name;
    struct pair_ent *added;
};

static bool spec_has_partition(const struct fmt_spec *spec)
{
    for (size_t i = 0; i < spec->count; i++) {
        if (is_partition(spec->items[i].field->print))
            return true;
    }
    return false;
}

static bool node_selected(const json_t *node, const struct sinfo_opts *o)
{
    struct node_state st = node_state_of(node);
    bool known, any = false;

    if (o->reasons && !st.drain && st.base != NODE_BASE_DOWN)
        return false;
    if (o->responding && st.not_responding)
        return false;
    if (o->dead && !st.not_responding)
        return false;
    for (size_t i = 0; i < o->nstates; i++)
        any = any || node_state_matches(o->states[i], st, &known);
    return o->nstates == 0 || any;
}

/* The printed text of every per-node column, plus the partition and (with
 * -N) the node name: nodes with equal keys share a row.
 */
static char *make_key(const struct fmt_spec *spec, const json_t *part,
                      const json_t *node, const struct sinfo_opts *o)
{
    struct fmt_buf key = {0};
    struct sinfo_row tmp = {part, 0, &node, 1, NULL, 0};

    fmt_buf_printf(&key, "%s\x1f%s\x1f", part ? jstr_or(part, "name", "") : "",
                   o->node_view ? jstr_or(node, "name", "") : "");
    for (size_t i = 0; i < spec->count; i++) {
        fmt_print_f f = spec->items[i].field->print;

        if (is_aggregate(f) || is_partition(f))
            continue;
        f(&key, &tmp, NULL);
        fmt_buf_puts(&key, "\x1f");
    }
    return key.s;
}

static struct sinfo_row *row_get(struct rows *r, char *key, const json_t *part,
                                 size_t part_index)
{
    struct row_ent *e;

    HASH_FIND_STR(r->by_key, key, e);
    if (e) {
        free(key);
        return &r->v[e->row];
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->v = realloc(r->v, r->cap * sizeof(*r->v));
        if (!r->v)
            abort();
    }
    r->v[r->n] = (struct sinfo_row){part, part_index, NULL, 0, key, r->n};
    e = xzalloc(sizeof(*e));
    e->row = r->n;
    HASH_ADD_KEYPTR(hh, r->by_key, key, strlen(key), e);
    return &r->v[r->n++];
}

/* Add node 'k' of the list to 'row' (once). */
static void row_add_node(struct rows *r, struct sinfo_row *row,
                         const struct node_ent *k)
{
    uint64_t pair = (uint64_t)(row - r->v) << 32 | k->idx;
    struct pair_ent *e;

    HASH_FIND(hh, r->added, &pair, sizeof(pair), e);
    if (e)
        return;
    e = xzalloc(sizeof(*e));
    e->pair = pair;
    HASH_ADD(hh, r->added, pair, sizeof(e->pair), e);
    if ((row->nnodes & (row->nnodes - 1)) == 0) { /* 0, 1, 2, 4, ... */
        row->nodes = realloc(row->nodes, (row->nnodes ? 2 * row->nnodes : 1)
                                             * sizeof(*row->nodes));
        if (!row->nodes)
            abort();
    }
    row->nodes[row->nnodes++] = k->node;
}

static void index_nodes(struct rows *r, const json_t *nodes)
{
    size_t i;
    json_t *n;

    json_array_foreach(nodes, i, n) {
        const char *name = jstr(n, "name");
        struct node_ent *e;
        if (!name)
            continue;
        HASH_FIND_STR(r->by_name, name, e);
        if (e)
            continue; /* the first of a name, as a walk would find */
        e = xzalloc(sizeof(*e));
        e->node = n;
        e->idx = i;
        HASH_ADD_KEYPTR(hh, r->by_name, name, strlen(name), e);
    }
}

static void rows_index_free(struct rows *r)
{
    struct row_ent *re, *rt;
    struct node_ent *ne, *nt;
    struct pair_ent *pe, *pt;

    HASH_ITER(hh, r->by_key, re, rt) {
        HASH_DEL(r->by_key, re);
        free(re);
    }
    HASH_ITER(hh, r->by_name, ne, nt) {
        HASH_DEL(r->by_name, ne);
        free(ne);
    }
    HASH_ITER(hh, r->added, pe, pt) {
        HASH_DEL(r->added, pe);
        free(pe);
    }
}

static void add_partition(struct rows *r, const struct fmt_spec *spec,
                          const json_t *part, size_t pi,
                          const struct sinfo_opts *o, bool by_part)
{
    hostlist_t *hl = hostlist_decode(jstr_or(part, "nodes", ""), NULL);
    size_t count = hl ? hostlist_count(hl) : 0;

    if (count == 0 && by_part && !o->reasons && !o->nstates)
        row_get(r, xasprintf("%s\x1f(empty)", jstr_or(part, "name", "")), part,
                pi);
    for (size_t i = 0; i < count; i++) {
        struct node_ent *k;

        HASH_FIND_STR(r->by_name, hostlist_nth(hl, i), k);
        if (!k || !node_selected(k->node, o))
            continue;
        row_add_node(r,
                     row_get(r, make_key(spec, by_part ? part : NULL, k->node,
                                         o),
                             by_part ? part : NULL, pi),
                     k);
    }
    hostlist_destroy(hl);
}

/* Slurm's node-name order: at the first difference, numbers compare as
 * numbers ("n2" < "n10").
 */
static int name_cmp(const char *a, const char *b)
{
    size_t i = 0;

    while (a[i] && a[i] == b[i])
        i++;
    if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[i]))
        return (atoi(a + i) > atoi(b + i)) - (atoi(a + i) < atoi(b + i));
    return strcmp(a, b);
}

static const char *row_name(const struct sinfo_row *r)
{
    return r->nnodes ? jstr_or(r->nodes[0], "name", "") : "";
}

static uint32_t row_state_key(const struct sinfo_row *r)
{
    return r->nnodes ? node_state_sort_key(node_state_of(r->nodes[0])) : 0;
}

static bool sort_by_node;
static const char *sort_keys; /* -S, or NULL */

static int cmp_num(double a, double b)
{
    return (a > b) - (a < b);
}

/* A column's printed value, as the rows show it. */
static char *row_value(const struct sinfo_row *r, char letter)
{
    const struct fmt_field *f = fmt_field_by_letter(sinfo_fields, letter);
    struct fmt_buf b = {0};

    if (!f)
        return NULL;
    f->print(&b, r, NULL);
    if (!b.s)
        return xstrdup("");
    return b.s;
}

/* What a reason's time sorts by: the text after its last '@' (Slurm's). */
static const char *reason_time(const char *v)
{
    const char *at = strrchr(v, '@');

    return at ? at + 1 : v;
}

/* One -S key: the partition, its time limit and the node state by their
 * values as Slurm's sinfo sorts them; node names as names; any other
 * column by its printed value, numerically where both begin with a
 * number ("4+" and "16" as 4 and 16). */
static int key_cmp(const struct sinfo_row *a, const struct sinfo_row *b,
                   char letter, bool part_order)
{
    char *va, *vb, *ea, *eb;
    double na, nb;
    int d;

    switch (letter) {
    case 'P':
        if (part_order)
            return cmp_num((double)a->part_index, (double)b->part_index);
        return strcmp(a->part ? jstr_or(a->part, "name", "") : "",
                      b->part ? jstr_or(b->part, "name", "") : "");
    case 'l': {
        int64_t ta = a->part ? jint(a->part, "max_time_s", -1) : 0;
        int64_t tb = b->part ? jint(b->part, "max_time_s", -1) : 0;

        return cmp_num(ta < 0 ? 4294967295.0 : (double)ta,
                       tb < 0 ? 4294967295.0 : (double)tb);
    }
    case 't':
    case 'T':
        return cmp_num(row_state_key(a), row_state_key(b));
    case 'D':
        return cmp_num((double)a->nnodes, (double)b->nnodes);
    case 'N':
        return name_cmp(row_name(a), row_name(b));
    default:
        break;
    }
    if (!(va = row_value(a, letter)))
        return 0; /* not a column: Slurm's sinfo ignores it too */
    vb = row_value(b, letter);
    if (letter == 'n' || letter == 'o') {
        d = name_cmp(va, vb);
    } else if (letter == 'E') {
        d = strcmp(reason_time(va), reason_time(vb));
    } else {
        na = strtod(va, &ea);
        nb = strtod(vb, &eb);
        d = ea != va && eb != vb && na != nb ? cmp_num(na, nb)
                                               : strcmp(va, vb);
    }
    free(va);
    free(vb);
    return d;
}

/* -S: each key in turn, '-' reversing it and '#P' the partitions'
 * configured order; ',' and '+' separate or do nothing, as in Slurm. */
static int keys_cmp(const struct sinfo_row *a, const struct sinfo_row *b)
{
    for (const char *k = sort_keys; *k; k++) {
        bool reverse = k > sort_keys && k[-1] == '-';
        bool part_order = k > sort_keys && k[-1] == '#';
        int d;

        if (strchr(",#+-", *k))
            continue;
        if ((d = key_cmp(a, b, *k, part_order)))
            return reverse ? -d : d;
    }
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int row_cmp(const void *pa, const void *pb)
{
    const struct sinfo_row *a = pa, *b = pb;
    uint32_t sa, sb;
    int d;

    if (sort_keys)
        return keys_cmp(a, b);
    if (sort_by_node && (d = name_cmp(row_name(a), row_name(b))))
        return d;
    if (a->part_index != b->part_index)
        return a->part_index < b->part_index ? -1 : 1;
    sa = row_state_key(a);
    sb = row_state_key(b);
    if (!sort_by_node && sa != sb)
        return sa > sb ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

struct sinfo_row *sinfo_rows_build(const struct fmt_spec *spec,
                                   const json_t *partitions,
                                   const json_t *nodes,
                                   const struct sinfo_opts *opts,
                                   size_t *nrows)
{
    struct rows r = {0};
    bool by_part = spec_has_partition(spec);
    size_t i;
    json_t *part;

    index_nodes(&r, nodes);
    json_array_foreach(partitions, i, part)
        add_partition(&r, spec, part, i, opts, by_part);
    rows_index_free(&r);
    /* qsort is not stable; row_cmp breaks ties by creation order. */
    sort_by_node = opts->node_view;
    sort_keys = opts->sort;
    if (r.n > 1)
        qsort(r.v, r.n, sizeof(*r.v), row_cmp);
    *nrows = r.n;
    return r.v;
}

void sinfo_rows_destroy(struct sinfo_row *rows, size_t nrows)
{
    for (size_t i = 0; rows && i < nrows; i++) {
        free(rows[i].nodes);
        free(rows[i].key);
    }
    free(rows);
}

/* Slurm's MIN_NODE_FIELD_SIZE and MIN_PART_FIELD_SIZE. */
#define MIN_FIELD_SIZE 9

void sinfo_fit_widths(struct fmt_spec *spec, const struct sinfo_row *rows,
                      size_t nrows, bool node_field, bool part_field)
{
    int node_w = MIN_FIELD_SIZE, part_w = MIN_FIELD_SIZE;
    struct fmt_buf b = {0};

    for (size_t i = 0; i < nrows; i++) {
        fmt_buf_reset(&b);
        p_nodelist(&b, &rows[i], NULL);
        if ((int)b.len > node_w)
            node_w = (int)b.len;
        fmt_buf_reset(&b);
        if (rows[i].part)
            p_partition(&b, &rows[i], NULL);
        if ((int)b.len > part_w)
            part_w = (int)b.len;
    }
    free(b.s);
    for (size_t i = 0; i < spec->count; i++) {
        if (node_field && spec->items[i].field->print == p_nodelist)
            spec->items[i].width = node_w;
        if (part_field && spec->items[i].field->print == p_partition)
            spec->items[i].width = part_w;
    }
}

void sinfo_print(FILE *out, const struct fmt_spec *spec,
                 const struct sinfo_row *rows, size_t nrows, bool noheader)
{
    char *line;

    if (!noheader) {
        line = fmt_header(spec);
        fprintf(out, "%s\n", line);
        free(line);
    }
    for (size_t i = 0; i < nrows; i++) {
        line = fmt_row(spec, &rows[i], NULL);
        fprintf(out, "%s\n", line);
        free(line);
    }
}
