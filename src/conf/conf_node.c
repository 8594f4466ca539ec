/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_node.c - NodeName= and DownNodes= lines of slurm.conf
 *
 * A NodeName line is first parsed into a node_spec (what the line says, with
 * unset fields), filled from the NodeName=DEFAULT spec, then expanded to one
 * conf_node per host of its hostlist.  NodeAddr, NodeHostname and Port may
 * list one value per node ("Port=[17001-17004]"), assigned in order.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "conf/conf_private.h"

#define UNSET (-1)

struct node_spec {
    char *addr;
    char *hostname;
    char *port;
    char *features;
    char *state;
    char *reason;
    char *gres;
    int64_t cpus;
    int64_t boards;
    int64_t sockets_per_board;
    int64_t sockets;
    int64_t cores;
    int64_t threads;
    int64_t weight;
    int64_t real_memory;
    int64_t tmp_disk;
};

enum spec_type {
    SPEC_STRING, /* char * */
    SPEC_COUNT,  /* int64_t, 1..UINT32_MAX */
    SPEC_U32,    /* int64_t, 0..UINT32_MAX */
    SPEC_MIB,    /* int64_t MiB, "4096" or "16G" */
    SPEC_PORT,   /* char *, checked with conf__parse_ports */
    SPEC_STATE,  /* char *, one of node_states, upper-cased */
    SPEC_GRES,   /* char *, checked with conf__gres_parse */
};

struct node_key {
    const char *name;
    enum spec_type type;
    size_t offset;
};

#define SPEC(f) offsetof(struct node_spec, f)

static const struct node_key node_keys[] = {
    /* keyword          type          field */
    { "NodeAddr",        SPEC_STRING, SPEC(addr) },
    { "NodeHostname",    SPEC_STRING, SPEC(hostname) },
    { "Port",            SPEC_PORT,   SPEC(port) },
    { "CPUs",            SPEC_COUNT,  SPEC(cpus) },
    { "Procs",           SPEC_COUNT,  SPEC(cpus) }, /* Slurm's old name */
    { "Boards",          SPEC_COUNT,  SPEC(boards) },
    { "SocketsPerBoard", SPEC_COUNT,  SPEC(sockets_per_board) },
    { "Sockets",         SPEC_COUNT,  SPEC(sockets) },
    { "CoresPerSocket",  SPEC_COUNT,  SPEC(cores) },
    { "ThreadsPerCore",  SPEC_COUNT,  SPEC(threads) },
    { "RealMemory",      SPEC_MIB,    SPEC(real_memory) },
    { "TmpDisk",         SPEC_MIB,    SPEC(tmp_disk) },
    { "Weight",          SPEC_U32,    SPEC(weight) },
    { "Feature",         SPEC_STRING, SPEC(features) },
    { "Features",        SPEC_STRING, SPEC(features) },
    { "Gres",            SPEC_GRES,   SPEC(gres) },
    { "State",           SPEC_STATE,  SPEC(state) },
    { "Reason",          SPEC_STRING, SPEC(reason) },
};

/* States a node may be given in slurm.conf (slurm.conf(5) NodeName State=,
 * plus IDLE, which Slurm also accepts).
 */
static const char *const node_states[] = {
    "CLOUD", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "IDLE", "UNKNOWN",
};

/* The parts of an expanded NodeName line shared by its nodes. */
struct expansion {
    const struct node_spec *spec;
    size_t count;           /* nodes on the line */
    hostlist_t *addrs;      /* per-node NodeAddr list, or NULL */
    hostlist_t *hostnames;  /* per-node NodeHostname list, or NULL */
    uint16_t *ports;        /* Port list (1 or count entries), or NULL */
    size_t nports;
};

static const struct node_key *node_key_find(const char *name)
{
    for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++)
        if (!strcasecmp(node_keys[i].name, name))
            return &node_keys[i];
    return NULL;
}

static void spec_init(struct node_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++) {
        enum spec_type t = node_keys[i].type;
        if (t == SPEC_COUNT || t == SPEC_U32 || t == SPEC_MIB)
            *(int64_t *)((char *)spec + node_keys[i].offset) = UNSET;
    }
}

static bool is_string_type(enum spec_type t)
{
    return t == SPEC_STRING || t == SPEC_PORT || t == SPEC_STATE
           || t == SPEC_GRES;
}

static void spec_clear(struct node_spec *spec)
{
    for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++) {
        if (is_string_type(node_keys[i].type)) {
            char **field = (char **)((char *)spec + node_keys[i].offset);
            free(*field);
            *field = NULL;
        }
    }
}

void conf__node_spec_destroy(struct node_spec *spec)
{
    if (spec) {
        int saved_errno = errno;
        spec_clear(spec);
        free(spec);
        errno = saved_errno;
    }
}

/* Fill what 'dst' leaves unset from 'src' (the DEFAULT line). */
static int spec_merge(struct node_spec *dst, const struct node_spec *src)
{
    for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++) {
        size_t off = node_keys[i].offset;
        enum spec_type t = node_keys[i].type;

        if (is_string_type(t)) {
            char **d = (char **)((char *)dst + off);
            char *const *s = (char *const *)((const char *)src + off);
            if (!*d && *s && !(*d = strdup(*s)))
                return -1;
        } else {
            int64_t *d = (int64_t *)((char *)dst + off);
            const int64_t *s = (const int64_t *)((const char *)src + off);
            if (*d == UNSET)
                *d = *s;
        }
    }
    return 0;
}

static const char *node_state_check(const char *value)
{
    for (size_t i = 0; i < sizeof(node_states) / sizeof(node_states[0]); i++)
        if (!strcasecmp(value, node_states[i]))
            return node_states[i];
    return NULL;
}

/* Check a text value; returns NULL if good, else the reason. */
static const char *text_check(enum spec_type t, const char *value, char *why,
                              size_t whylen)
{
    uint16_t *ports;
    size_t n;
    struct conf_gres *gres;

    switch (t) {
    case SPEC_PORT:
        if (conf__parse_ports(value, &ports, &n) < 0)
            return errno == ENOMEM ? "out of memory" : "not a port or range";
        free(ports);
        return NULL;
    case SPEC_STATE:
        return node_state_check(value) ? NULL : "not a node state";
    case SPEC_GRES:
        if (conf__gres_parse(value, &gres, &n, why, whylen) < 0)
            return why;
        for (size_t i = 0; i < n; i++)
            conf__gres_clear(&gres[i]);
        free(gres);
        return NULL;
    default:
        return NULL;
    }
}

static const char *number_check(enum spec_type t, const char *value,
                                int64_t *out)
{
    uint64_t v;
    uint32_t v32;

    if (t == SPEC_MIB) {
        if (conf__parse_mib(value, &v) < 0 || v > INT64_MAX)
            return "not a number";
        *out = (int64_t)v;
        return NULL;
    }
    if (conf__parse_u32(value, &v32) < 0)
        return "not a number";
    if (t == SPEC_COUNT && v32 == 0)
        return "must be greater than 0";
    *out = v32;
    return NULL;
}

static int spec_set(struct slurm_conf *conf, struct node_spec *spec,
                    const struct conf_line *l, const struct conf_pair *kv,
                    drv_error_t *error)
{
    const struct node_key *k = node_key_find(kv->key);
    const struct conf_inert *inert;
    char *field, why[100];
    const char *bad;

    if (!k && (inert = conf__inert_find(CONF_INERT_NODE, kv->key)))
        return conf__inert_apply(conf, inert, l, kv, error);
    if (!k) {
        log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                  kv->key);
        return 0;
    }
    field = (char *)spec + k->offset;
    if (!is_string_type(k->type))
        bad = number_check(k->type, kv->value, (int64_t *)field);
    else if (!(bad = text_check(k->type, kv->value, why, sizeof(why)))) {
        char **s = (char **)field;
        free(*s);
        if (!(*s = strdup(kv->value)))
            return conf__enomem(error);
        if (k->type == SPEC_STATE)
            for (char *c = *s; *c; c++)
                *c = (char)toupper((unsigned char)*c);
    }
    if (bad)
        return conf__einval(error, "%s:%d: NodeName=%s: %s=%s: %s", l->file,
                            l->line, l->pairs[0].value, kv->key, kv->value,
                            bad);
    return 0;
}

/* A NodeAddr/NodeHostname value naming one host per node; NULL (and no
 * error) when the value is a single name.
 */
static int per_node_list(const struct conf_line *l, const char *key,
                         const char *value, size_t count, hostlist_t **hl,
                         drv_error_t *error)
{
    drv_error_t herr = { 0 };
    size_t n;

    *hl = NULL;
    if (!value || !strpbrk(value, "[,"))
        return 0;
    if (!(*hl = hostlist_decode(value, &herr))) {
        if (errno == ENOMEM)
            return conf__enomem(error);
        return conf__einval(error, "%s:%d: NodeName=%s: %s=%s: %s", l->file,
                            l->line, l->pairs[0].value, key, value, herr.text);
    }
    n = hostlist_count(*hl);
    if (n != 1 && n != count)
        return conf__einval(error, "%s:%d: NodeName=%s: %s=%s: %zu names "
                            "for %zu nodes", l->file, l->line,
                            l->pairs[0].value, key, value, n, count);
    return 0;
}

static const char *pick(const hostlist_t *hl, const char *value, size_t i)
{
    if (!hl)
        return value;
    return hostlist_nth(hl, hostlist_count(hl) == 1 ? 0 : i);
}

static int expansion_init(struct expansion *x, const struct conf_line *l,
                          drv_error_t *error)
{
    const struct node_spec *spec = x->spec;

    if (per_node_list(l, "NodeAddr", spec->addr, x->count, &x->addrs,
                      error) < 0
        || per_node_list(l, "NodeHostname", spec->hostname, x->count,
                         &x->hostnames, error) < 0)
        return -1;
    if (!spec->port)
        return 0;
    if (conf__parse_ports(spec->port, &x->ports, &x->nports) < 0)
        return conf__enomem(error); /* the text was checked by spec_set */
    if (x->nports != 1 && x->nports != x->count)
        return conf__einval(error, "%s:%d: NodeName=%s: Port=%s: %zu ports "
                            "for %zu nodes", l->file, l->line,
                            l->pairs[0].value, spec->port, x->nports,
                            x->count);
    return 0;
}

static void expansion_clear(struct expansion *x)
{
    hostlist_destroy(x->addrs);
    hostlist_destroy(x->hostnames);
    free(x->ports);
}

static int64_t spec_or(int64_t value, int64_t dflt)
{
    return value != UNSET ? value : dflt;
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Slurm's inference of missing counts (read_config.c), except that CPUs
 * alone gives one socket of CPUs cores rather than CPUs sockets.
 */
static void node_topology(struct conf_node *node, const struct node_spec *s)
{
    uint64_t threads = (uint64_t)spec_or(s->threads, 1);
    uint64_t boards = (uint64_t)spec_or(s->boards, 1);
    uint64_t sockets = 1, cores = 1;

    if (s->sockets != UNSET)
        sockets = (uint64_t)s->sockets;
    else if (s->sockets_per_board != UNSET)
        sockets = boards * (uint64_t)s->sockets_per_board;
    else if (s->cpus != UNSET && s->cores != UNSET)
        sockets = (uint64_t)s->cpus / ((uint64_t)s->cores * threads);
    if (sockets == 0)
        sockets = 1;
    if (s->cores != UNSET)
        cores = (uint64_t)s->cores;
    else if (s->cpus != UNSET)
        cores = (uint64_t)s->cpus / (sockets * threads);
    if (cores == 0)
        cores = 1;
    node->threads_per_core = clamp32(threads);
    node->boards = clamp32(boards);
    node->sockets = clamp32(sockets);
    node->cores_per_socket = clamp32(cores);
    node->cpus = clamp32(s->cpus != UNSET ? (uint64_t)s->cpus
                                          : sockets * cores * threads);
}

static int dup_or_null(char **dst, const char *src)
{
    *dst = NULL;
    return src && !(*dst = strdup(src)) ? -1 : 0;
}

/* Fill node number 'i' of the expansion.  -1 only for ENOMEM. */
static int node_fill(struct conf_node *node, const char *host, size_t i,
                     const struct expansion *x)
{
    const struct node_spec *s = x->spec;
    const char *hostname = pick(x->hostnames, s->hostname, i);
    const char *addr = pick(x->addrs, s->addr, i);

    if (dup_or_null(&node->name, host) < 0
        || dup_or_null(&node->hostname, hostname ? hostname : host) < 0
        || dup_or_null(&node->addr, addr ? addr : node->hostname) < 0
        || dup_or_null(&node->features, s->features) < 0
        || dup_or_null(&node->state, s->state) < 0
        || dup_or_null(&node->reason, s->reason) < 0)
        return -1;
    if (x->ports)
        node->port = x->ports[x->nports == 1 ? 0 : i];
    node_topology(node, s);
    node->real_memory_mib = (uint64_t)spec_or(s->real_memory, 1);
    node->tmp_disk_mib = (uint64_t)spec_or(s->tmp_disk, 0);
    node->weight = (uint32_t)spec_or(s->weight, 1);
    if (s->gres) {
        char why[100];
        if (conf__gres_parse(s->gres, &node->gres, &node->gres_count, why,
                             sizeof(why)) < 0)
            return -1; /* checked by spec_set: only ENOMEM is left */
    }
    return 0;
}

static int reserve_nodes(struct conf_parser *p, size_t more)
{
    struct slurm_conf *conf = p->conf;
    struct conf_node *nodes;
    size_t alloc = p->node_alloc ? p->node_alloc : 16;

    if (conf->node_count + more <= p->node_alloc)
        return 0;
    while (alloc < conf->node_count + more)
        alloc *= 2;
    if (!(nodes = realloc(conf->nodes, alloc * sizeof(*nodes))))
        return -1;
    conf->nodes = nodes;
    p->node_alloc = alloc;
    return 0;
}

static int add_node(struct conf_parser *p, const struct conf_line *l,
                    const char *host, size_t i, const struct expansion *x,
                    drv_error_t *error)
{
    struct slurm_conf *conf = p->conf;
    struct conf_node *node = &conf->nodes[conf->node_count];

    if (conf__index_find(conf->node_index, host) >= 0)
        return conf__einval(error, "%s:%d: NodeName=%s: node %s is already "
                            "defined", l->file, l->line, l->pairs[0].value,
                            host);
    memset(node, 0, sizeof(*node));
    if (node_fill(node, host, i, x) < 0
        || conf__index_add(conf->node_index, node->name,
                           conf->node_count) < 0) {
        conf__node_clear(node);
        return conf__enomem(error);
    }
    conf->node_count++;
    return 0;
}

static int expand_nodes(struct conf_parser *p, const struct conf_line *l,
                        const struct node_spec *spec, drv_error_t *error)
{
    const char *expr = l->pairs[0].value;
    struct expansion x = { .spec = spec };
    drv_error_t herr = { 0 };
    hostlist_t *hosts;
    int rc = -1;

    if (!(hosts = hostlist_decode(expr, &herr))) {
        if (errno == ENOMEM)
            return conf__enomem(error);
        return conf__einval(error, "%s:%d: NodeName=%s: %s", l->file, l->line,
                            expr, herr.text);
    }
    if ((x.count = hostlist_count(hosts)) == 0) {
        conf__einval(error, "%s:%d: NodeName=%s: no node names", l->file,
                     l->line, expr);
        goto done;
    }
    if (expansion_init(&x, l, error) < 0)
        goto done;
    if (reserve_nodes(p, x.count) < 0) {
        conf__enomem(error);
        goto done;
    }
    for (size_t i = 0; i < x.count; i++)
        if (add_node(p, l, hostlist_nth(hosts, i), i, &x, error) < 0)
            goto done;
    rc = 0;
done:
    expansion_clear(&x);
    hostlist_destroy(hosts);
    return rc;
}

/* NodeName=DEFAULT: 'spec' (already merged with the old defaults) becomes
 * the defaults; its strings move, leaving 'spec' empty.
 */
static int set_defaults(struct conf_parser *p, struct node_spec *spec)
{
    if (p->node_defaults)
        spec_clear(p->node_defaults);
    else if (!(p->node_defaults = malloc(sizeof(*spec))))
        return -1;
    *p->node_defaults = *spec;
    spec_init(spec);
    return 0;
}

int conf__node_line(struct conf_parser *p, const struct conf_line *l,
                    drv_error_t *error)
{
    struct node_spec spec;
    int rc = -1;

    spec_init(&spec);
    for (size_t i = 1; i < l->count; i++)
        if (spec_set(p->conf, &spec, l, &l->pairs[i], error) < 0)
            goto done;
    if (p->node_defaults && spec_merge(&spec, p->node_defaults) < 0) {
        conf__enomem(error);
        goto done;
    }
    if (!strcasecmp(l->pairs[0].value, "DEFAULT")) {
        if ((rc = set_defaults(p, &spec)) < 0)
            conf__enomem(error);
    } else if (p->client) { /* a command's load: checked, not expanded */
        rc = 0;
    } else
        rc = expand_nodes(p, l, &spec, error);
done:
    spec_clear(&spec);
    return rc;
}

static int replace_string(char **dst, const char *src)
{
    char *s = NULL;

    if (src && !(s = strdup(src)))
        return -1;
    free(*dst);
    *dst = s;
    return 0;
}

/* DownNodes=n[1-2] State=DRAIN Reason="bad fan": after the NodeName lines,
 * set the state of nodes already defined.
 */
int conf__down_line(struct conf_parser *p, const struct conf_line *l,
                    drv_error_t *error)
{
    const char *expr = l->pairs[0].value, *state = "DOWN", *reason = NULL;
    drv_error_t herr = { 0 };
    hostlist_t *hosts;
    int rc = 0;

    if (p->client) /* no nodes to set: conf_load_client() */
        return 0;
    for (size_t i = 1; i < l->count; i++) {
        const struct conf_pair *kv = &l->pairs[i];
        if (!strcasecmp(kv->key, "State")) {
            if (!(state = node_state_check(kv->value)))
                return conf__einval(error, "%s:%d: DownNodes=%s: State=%s: "
                                    "not a node state", l->file, l->line,
                                    expr, kv->value);
        } else if (!strcasecmp(kv->key, "Reason"))
            reason = kv->value;
        else
            log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                      kv->key);
    }
    if (!(hosts = hostlist_decode(expr, &herr)))
        return errno == ENOMEM ? conf__enomem(error)
                               : conf__einval(error, "%s:%d: DownNodes=%s: %s",
                                              l->file, l->line, expr,
                                              herr.text);
    for (size_t i = 0; i < hostlist_count(hosts) && rc == 0; i++) {
        const char *host = hostlist_nth(hosts, i);
        long n = conf__index_find(p->conf->node_index, host);
        if (n < 0)
            rc = conf__einval(error, "%s:%d: DownNodes=%s: no such node %s",
                              l->file, l->line, expr, host);
        else if (replace_string(&p->conf->nodes[n].state, state) < 0
                 || replace_string(&p->conf->nodes[n].reason, reason) < 0)
            rc = conf__enomem(error);
    }
    hostlist_destroy(hosts);
    return rc;
}

void conf__node_clear(struct conf_node *node)
{
    free(node->name);
    free(node->addr);
    free(node->hostname);
    free(node->features);
    free(node->state);
    free(node->reason);
    for (size_t i = 0; i < node->gres_count; i++)
        conf__gres_clear(&node->gres[i]);
    free(node->gres);
    for (size_t i = 0; i < node->gres_dev_count; i++)
        conf__gres_dev_clear(&node->gres_devs[i]);
    free(node->gres_devs);
    free(node->gpu_shards);
    free(node->gpu_types);
    memset(node, 0, sizeof(*node));
}
