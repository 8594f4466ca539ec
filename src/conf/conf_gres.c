/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_gres.c - Gres= of NodeName lines, and gres.conf
 *
 * Each node gets one conf_gres_dev per device.  gres.conf lines that apply
 * to the node (no NodeName=, or one naming it) give the devices of a name in
 * file order, File=/dev/nvidia[0-3] one per file; without gres.conf lines
 * for a name, the node's Gres= counts give devices with no file.  The counts
 * of the two files must agree, or the gres.conf line is named in the error.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "conf/conf_private.h"

/* One gres.conf line with a Name=. */
struct gres_entry {
    char *file;        /* for messages: gres.conf, or a file it includes */
    int line;
    bool all_nodes;    /* no NodeName=: every node */
    size_t *nodes;     /* sorted indices of the named nodes that exist */
    size_t nnodes;
    char *name;
    char *type;        /* or NULL */
    hostlist_t *files; /* File= expanded, or NULL */
    hostlist_t *multi; /* MultipleFiles= expanded (one device), or NULL */
    uint32_t count;    /* devices: files, else Count=, else 1 */
};

struct gres_table {
    struct slurm_conf *conf;
    struct gres_entry *entries;
    size_t count;
    int autodetect;         /* global AutoDetect=: -1 unset, 0 off, 1 nvml */
    signed char *node_auto; /* per node, from NodeName lines; -1 unset */
};

enum gres_key {
    GK_NODENAME,
    GK_NAME,
    GK_TYPE,
    GK_FILE,
    GK_COUNT,
    GK_AUTODETECT,
    GK_CORES,
    GK_CPUS,
    GK_LINKS,
    GK_FLAGS,
    GK_MULTIPLEFILES,
    GK_COUNT_OF_KEYS,
};

/* gres.conf keywords (gres.conf(5)); Cores, CPUs, Links and Flags are
 * accepted and not used.  AutoDetect=nvml (droverd's
 * noded/gpu_nvml.c) or off; Slurm's other detectors are refused.
 */
static const char *const gres_keys[GK_COUNT_OF_KEYS] = {
    [GK_NODENAME] = "NodeName", [GK_NAME] = "Name",
    [GK_TYPE] = "Type",         [GK_FILE] = "File",
    [GK_COUNT] = "Count",       [GK_AUTODETECT] = "AutoDetect",
    [GK_CORES] = "Cores",       [GK_CPUS] = "CPUs",
    [GK_LINKS] = "Links",       [GK_FLAGS] = "Flags",
    [GK_MULTIPLEFILES] = "MultipleFiles",
};

/* AutoDetect= values of Slurm 22.05's gres.conf(5) that Drover refuses:
 * only off and nvml are implemented. */
static const char *const autodetect_refused[] = {
    "rsmi", "oneapi", "nrt", "nvidia",
};

void conf__gres_clear(struct conf_gres *g)
{
    free(g->name);
    free(g->type);
    g->name = g->type = NULL;
}

void conf__gres_dev_clear(struct conf_gres_dev *dev)
{
    free(dev->name);
    free(dev->type);
    free(dev->file);
    free(dev->uuid);
    for (size_t i = 0; dev->more_files && dev->more_files[i]; i++)
        free(dev->more_files[i]);
    free(dev->more_files);
    dev->name = dev->type = dev->file = dev->uuid = NULL;
    dev->more_files = NULL;
}

void conf_gres_dev_clear(struct conf_gres_dev *dev)
{
    conf__gres_dev_clear(dev);
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static int why_fail(char *why, size_t len, int errnum, const char *msg)
{
    snprintf(why, len, "%s", msg);
    errno = errnum;
    return -1;
}

/* A GRES that shares GPUs (gres.conf(5)): its File= names the GPUs its
 * Count= is spread over, not one device per file. */
static bool is_shared(const char *name)
{
    return !strcasecmp(name, "shard") || !strcasecmp(name, "mps");
}

/* More devices of GRES 'name' than a node may have (CONF_GRES_DEVICES_MAX);
 * shares are no devices. */
static bool too_many_devices(const char *name, uint32_t count)
{
    return count > CONF_GRES_DEVICES_MAX && !is_shared(name);
}

/* "gpu", "gpu:8", "gpu:a100", "gpu:a100:8", with an ignored "(S:0-1)". */
static int gres_item(char *item, struct conf_gres *g, char *why, size_t len)
{
    char *f[3] = { item, NULL, NULL }, *s, *type = NULL, *count = NULL;
    size_t n = 1;
    uint32_t c = 1;

    if ((s = strchr(item, '(')))
        *s = '\0';
    while ((s = strchr(f[n - 1], ':'))) {
        if (n == 3)
            return why_fail(why, len, EINVAL, "too many ':' fields");
        *s = '\0';
        f[n++] = s + 1;
    }
    if (n == 3) {
        type = f[1];
        count = f[2];
    } else if (n == 2 && isdigit((unsigned char)*f[1]))
        count = f[1];
    else if (n == 2)
        type = f[1];
    if (!*f[0])
        return why_fail(why, len, EINVAL, "empty GRES name");
    if (type && !*type)
        return why_fail(why, len, EINVAL, "empty GRES type");
    if (count && (!all_digits(count) || conf__parse_u32(count, &c) < 0))
        return why_fail(why, len, EINVAL, "count is not a number");
    if (too_many_devices(f[0], c)) {
        snprintf(why, len, "count %u over %u (devices of one GRES on a "
                 "node)", c, CONF_GRES_DEVICES_MAX);
        errno = ERANGE;
        return -1;
    }
    g->count = c;
    if (!(g->name = strdup(f[0])) || (type && !(g->type = strdup(type))))
        return why_fail(why, len, ENOMEM, "out of memory");
    return 0;
}

static bool gres_same(const struct conf_gres *a, const struct conf_gres *b)
{
    if (strcasecmp(a->name, b->name))
        return false;
    if (!a->type || !b->type)
        return !a->type && !b->type;
    return !strcasecmp(a->type, b->type);
}

/* Append 'item' to the array; -1 with errno and 'why' set on error. */
static int gres_add(char *item, struct conf_gres **gres, size_t *count,
                    char *why, size_t whylen)
{
    struct conf_gres g = { 0 }, *ng;

    if (gres_item(item, &g, why, whylen) < 0)
        goto error;
    for (size_t i = 0; i < *count; i++) {
        if (gres_same(&g, &(*gres)[i])) {
            snprintf(why, whylen, "%s%s%s given twice", g.name,
                     g.type ? ":" : "", g.type ? g.type : "");
            errno = EINVAL;
            goto error;
        }
    }
    if (!(ng = realloc(*gres, (*count + 1) * sizeof(*ng)))) {
        why_fail(why, whylen, ENOMEM, "out of memory");
        goto error;
    }
    *gres = ng;
    ng[(*count)++] = g;
    return 0;
error:
    conf__gres_clear(&g);
    return -1;
}

static void gres_free_all(struct conf_gres *gres, size_t count)
{
    int saved_errno = errno;

    for (size_t i = 0; i < count; i++)
        conf__gres_clear(&gres[i]);
    free(gres);
    errno = saved_errno;
}

int conf__gres_parse(const char *value, struct conf_gres **gres,
                     size_t *count, char *why, size_t whylen)
{
    char *copy = strdup(value), *item;
    int depth = 0, rc = 0;

    *gres = NULL;
    *count = 0;
    if (!copy)
        return why_fail(why, whylen, ENOMEM, "out of memory");
    item = copy;
    /* Split at commas outside "(S:0,1)" socket lists. */
    for (char *s = copy; *value; s++) {
        bool end = *s == '\0';
        if (*s == '(')
            depth++;
        else if (*s == ')')
            depth--;
        if (end || (*s == ',' && depth == 0)) {
            *s = '\0';
            if ((rc = gres_add(item, gres, count, why, whylen)) < 0 || end)
                break;
            item = s + 1;
        }
    }
    free(copy);
    if (rc < 0) {
        gres_free_all(*gres, *count);
        *gres = NULL;
        *count = 0;
    }
    return rc;
}

static void entry_clear(struct gres_entry *e)
{
    free(e->file);
    free(e->nodes);
    free(e->name);
    free(e->type);
    hostlist_destroy(e->files);
    hostlist_destroy(e->multi);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* The nodes named by a gres.conf NodeName= that slurm.conf defines; the
 * others may belong to another cluster sharing the file, and are skipped.
 */
static int entry_nodes(struct gres_table *t, const struct conf_line *l,
                       struct gres_entry *e, const char *expr,
                       drv_error_t *error)
{
    drv_error_t herr = { 0 };
    hostlist_t *hl = hostlist_decode(expr, &herr);
    size_t n;

    if (!hl)
        return errno == ENOMEM ? conf__enomem(error)
                               : conf__einval(error, "%s:%d: NodeName=%s: %s",
                                              l->file, l->line, expr,
                                              herr.text);
    n = hostlist_count(hl);
    if (n > 0 && !(e->nodes = calloc(n, sizeof(*e->nodes)))) {
        hostlist_destroy(hl);
        return conf__enomem(error);
    }
    for (size_t i = 0; i < n; i++) {
        long pos = conf__index_find(t->conf->node_index, hostlist_nth(hl, i));
        if (pos >= 0)
            e->nodes[e->nnodes++] = (size_t)pos;
    }
    if (e->nnodes > 0)
        qsort(e->nodes, e->nnodes, sizeof(*e->nodes), cmp_size);
    hostlist_destroy(hl);
    return 0;
}

/* File= (one device per file) or, 'multi', MultipleFiles= (every file
 * for one device, as a MIG instance's parent GPU and capability files). */
static int entry_files(const struct conf_line *l, struct gres_entry *e,
                       const char *expr, bool multi, drv_error_t *error)
{
    const char *key = multi ? "MultipleFiles" : "File";
    drv_error_t herr = { 0 };
    hostlist_t *hl;

    if (!(hl = hostlist_decode(expr, &herr)))
        return errno == ENOMEM ? conf__enomem(error)
                               : conf__einval(error, "%s:%d: %s=%s: %s",
                                              l->file, l->line, key, expr,
                                              herr.text);
    *(multi ? &e->multi : &e->files) = hl;
    if (hostlist_count(hl) == 0)
        return conf__einval(error, "%s:%d: %s=%s: no file names", l->file,
                            l->line, key, expr);
    e->count = multi ? 1 : (uint32_t)hostlist_count(hl);
    return 0;
}

static int entry_count(const struct conf_line *l, struct gres_entry *e,
                       const char *const *v, drv_error_t *error)
{
    uint32_t count;

    if (!v[GK_COUNT])
        return 0;
    if (conf__parse_u32(v[GK_COUNT], &count) < 0)
        return conf__einval(error, "%s:%d: Name=%s: Count=%s: not a number",
                            l->file, l->line, v[GK_NAME], v[GK_COUNT]);
    if (too_many_devices(v[GK_NAME], count))
        return conf__einval(error, "%s:%d: Name=%s: Count=%s: over %u "
                            "(devices of one GRES on a node)", l->file,
                            l->line, v[GK_NAME], v[GK_COUNT],
                            CONF_GRES_DEVICES_MAX);
    if (e->files && count != e->count && !is_shared(v[GK_NAME]))
        return conf__einval(error, "%s:%d: Name=%s: Count=%s, but File=%s "
                            "names %u devices", l->file, l->line, v[GK_NAME],
                            v[GK_COUNT], v[GK_FILE], e->count);
    if (e->multi && count != 1)
        return conf__einval(error, "%s:%d: Name=%s: Count=%s with "
                            "MultipleFiles= (the files of one device)",
                            l->file, l->line, v[GK_NAME], v[GK_COUNT]);
    e->count = count;
    return 0;
}

static int add_entry(struct gres_table *t, const struct conf_line *l,
                     const char *const *v, drv_error_t *error)
{
    struct gres_entry e = {
        .line = l->line, .all_nodes = !v[GK_NODENAME], .count = 1,
    };
    struct gres_entry *entries;

    if ((v[GK_NODENAME] && entry_nodes(t, l, &e, v[GK_NODENAME], error) < 0)
        || (v[GK_FILE] && v[GK_MULTIPLEFILES]
            && conf__einval(error, "%s:%d: File= and MultipleFiles= on one "
                            "line", l->file, l->line) < 0)
        || (v[GK_FILE] && entry_files(l, &e, v[GK_FILE], false, error) < 0)
        || (v[GK_MULTIPLEFILES]
            && entry_files(l, &e, v[GK_MULTIPLEFILES], true, error) < 0)
        || entry_count(l, &e, v, error) < 0)
        goto error;
    if (!(e.name = strdup(v[GK_NAME])) || !(e.file = strdup(l->file))
        || (v[GK_TYPE] && *v[GK_TYPE] && !(e.type = strdup(v[GK_TYPE])))
        || !(entries = realloc(t->entries, (t->count + 1) * sizeof(e)))) {
        conf__enomem(error);
        goto error;
    }
    t->entries = entries;
    t->entries[t->count++] = e;
    return 0;
error:
    entry_clear(&e);
    return -1;
}

/* AutoDetect=: 0 off, 1 nvml, -1 (error set) otherwise. */
static int autodetect_value(const struct conf_line *l, const char *value,
                            drv_error_t *error)
{
    if (!strcasecmp(value, "off"))
        return 0;
    if (!strcasecmp(value, "nvml"))
        return 1;
    for (size_t i = 0;
         i < sizeof(autodetect_refused) / sizeof(autodetect_refused[0]); i++)
        if (!strcasecmp(value, autodetect_refused[i]))
            return conf__einval(error, "%s:%d: AutoDetect=%s: not supported "
                                "by Drover (off or nvml)", l->file, l->line,
                                value);
    return conf__einval(error, "%s:%d: AutoDetect=%s: expected off, nvml, "
                        "rsmi, oneapi or nrt", l->file, l->line, value);
}

/* AutoDetect= of a line: global without NodeName=, else for its nodes
 * (which win over the global value, whatever the order, as Slurm). */
static int autodetect_line(struct gres_table *t, const struct conf_line *l,
                           const char *const *v, drv_error_t *error)
{
    struct gres_entry e = { 0 };
    int value = autodetect_value(l, v[GK_AUTODETECT], error);

    if (value < 0)
        return -1;
    if (!v[GK_NODENAME]) {
        t->autodetect = value;
        return 0;
    }
    if (entry_nodes(t, l, &e, v[GK_NODENAME], error) < 0) {
        entry_clear(&e);
        return -1;
    }
    for (size_t i = 0; i < e.nnodes; i++)
        t->node_auto[e.nodes[i]] = (signed char)value;
    entry_clear(&e);
    return 0;
}

static int gres_line(const struct conf_line *l, void *arg, drv_error_t *error)
{
    const char *v[GK_COUNT_OF_KEYS] = { 0 };

    for (size_t i = 0; i < l->count; i++) {
        size_t k = 0;
        while (k < GK_COUNT_OF_KEYS && strcasecmp(gres_keys[k], l->pairs[i].key))
            k++;
        if (k < GK_COUNT_OF_KEYS)
            v[k] = l->pairs[i].value;
        else
            log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                      l->pairs[i].key);
    }
    if (v[GK_AUTODETECT] && autodetect_line(arg, l, v, error) < 0)
        return -1;
    if (v[GK_NAME] && !*v[GK_NAME])
        return conf__einval(error, "%s:%d: Name=: empty name", l->file,
                            l->line);
    if (!v[GK_NAME] && (v[GK_TYPE] || v[GK_FILE] || v[GK_COUNT]
                        || v[GK_MULTIPLEFILES]))
        return conf__einval(error, "%s:%d: Name= is required", l->file,
                            l->line);
    if (!v[GK_NAME])
        return 0; /* AutoDetect=nvml alone, say */
    return add_entry(arg, l, v, error);
}

static bool entry_applies(const struct gres_entry *e, size_t node)
{
    return e->all_nodes
           || (e->nnodes > 0
               && bsearch(&node, e->nodes, e->nnodes, sizeof(node), cmp_size));
}

/* The type of the node's only Gres= entry for 'name' (NULL if untyped or
 * if there are several).  Untyped gres.conf lines take it.
 */
static const char *only_type(const struct conf_node *node, const char *name)
{
    const char *type = NULL;
    int n = 0;

    for (size_t i = 0; i < node->gres_count; i++) {
        if (!strcasecmp(node->gres[i].name, name)) {
            type = node->gres[i].type;
            n++;
        }
    }
    return n == 1 ? type : NULL;
}

/* Whether Gres= of the node takes devices of this type. */
static bool type_known(const struct conf_node *node, const char *name,
                       const char *type)
{
    for (size_t i = 0; i < node->gres_count; i++) {
        const struct conf_gres *g = &node->gres[i];
        if (strcasecmp(g->name, name))
            continue;
        if (!g->type || (type && !strcasecmp(g->type, type)))
            return true;
    }
    return false;
}

/* The files of MultipleFiles= 'multi' after its first, NULL-terminated;
 * NULL when it names one (or none).  NULL with errno=ENOMEM too. */
static char **more_files(const hostlist_t *multi, bool *oom)
{
    size_t n = multi ? hostlist_count(multi) : 0;
    char **more;

    *oom = false;
    if (n < 2)
        return NULL;
    if (!(more = calloc(n, sizeof(*more)))) {
        *oom = true;
        return NULL;
    }
    for (size_t i = 1; i < n; i++)
        if (!(more[i - 1] = strdup(hostlist_nth(multi, i))))
            *oom = true;
    return more;
}

static int add_dev(struct conf_node *node, const char *name, const char *type,
                   const char *file, const hostlist_t *multi, int index)
{
    struct conf_gres_dev *devs, *d;
    bool oom;

    devs = realloc(node->gres_devs, (node->gres_dev_count + 1) * sizeof(*d));
    if (!devs)
        return -1;
    node->gres_devs = devs;
    d = &devs[node->gres_dev_count];
    *d = (struct conf_gres_dev){ .index = index };
    if (multi)
        file = hostlist_nth(multi, 0);
    d->more_files = more_files(multi, &oom);
    if (oom || !(d->name = strdup(name)) || (type && !(d->type = strdup(type)))
        || (file && !(d->file = strdup(file)))) {
        conf__gres_dev_clear(d);
        return -1;
    }
    node->gres_dev_count++;
    return 0;
}

/* No gres.conf line for 'name' on this node: Gres= counts, no files. */
static int devs_from_gres(struct conf_node *node, const char *name,
                          drv_error_t *error)
{
    int index = 0;

    for (size_t i = 0; i < node->gres_count; i++) {
        const struct conf_gres *g = &node->gres[i];
        if (strcasecmp(g->name, name))
            continue;
        for (uint32_t j = 0; j < g->count; j++)
            if (add_dev(node, name, g->type, NULL, NULL, index++) < 0)
                return conf__enomem(error);
    }
    return 0;
}

/* Devices of 'name' from the gres.conf lines for node 'ni', in file order.
 * *last is the last such line, or NULL if there is none.
 */
static int devs_from_entries(struct gres_table *t, size_t ni,
                             const char *name,
                             const struct gres_entry **last,
                             drv_error_t *error)
{
    struct conf_node *node = &t->conf->nodes[ni];
    const char *dflt = only_type(node, name);
    int index = 0;

    *last = NULL;
    for (size_t i = 0; i < t->count; i++) {
        const struct gres_entry *e = &t->entries[i];
        const char *type = e->type ? e->type : dflt;

        if (strcasecmp(e->name, name) || !entry_applies(e, ni))
            continue;
        if (!type_known(node, name, type))
            return conf__einval(error, "%s:%d: Name=%s%s%s: not in Gres= of "
                                "node %s", e->file, e->line, e->name,
                                e->type ? " Type=" : "",
                                e->type ? e->type : "", node->name);
        for (uint32_t j = 0; j < e->count; j++) {
            const char *file = e->files ? hostlist_nth(e->files, j) : NULL;
            if (add_dev(node, name, type, file, e->multi, index++) < 0)
                return conf__enomem(error);
        }
        *last = e;
    }
    return 0;
}

/* Each Gres= entry of 'name' must match the devices gres.conf gave. */
static int check_counts(const struct conf_node *node,
                        const char *name, size_t start,
                        const struct gres_entry *last, drv_error_t *error)
{
    for (size_t i = 0; i < node->gres_count; i++) {
        const struct conf_gres *g = &node->gres[i];
        size_t n = 0;

        if (strcasecmp(g->name, name))
            continue;
        for (size_t d = start; d < node->gres_dev_count; d++) {
            const char *type = node->gres_devs[d].type;
            if (!g->type || (type && !strcasecmp(type, g->type)))
                n++;
        }
        if (n != g->count)
            return conf__einval(error, "%s:%d: Name=%s: %zu %s%sdevices for "
                                "node %s, but its Gres= has %s%s%s:%u",
                                last->file, last->line, name, n,
                                g->type ? g->type : "", g->type ? " " : "",
                                node->name, g->name, g->type ? ":" : "",
                                g->type ? g->type : "", g->count);
    }
    return 0;
}

static bool first_of_name(const struct conf_node *node, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!strcasecmp(node->gres[j].name, node->gres[i].name))
            return false;
    return true;
}

/* Which sharing GRES node 'ni' has (Gres= or gres.conf lines): "shard",
 * "mps" or NULL; both is refused. */
static int node_share(struct gres_table *t, size_t ni, const char **name,
                      drv_error_t *error)
{
    const struct conf_node *node = &t->conf->nodes[ni];
    bool has[2] = { conf__gres_total(node, "shard") > 0,
                    conf__gres_total(node, "mps") > 0 };

    for (size_t i = 0; i < t->count; i++)
        if (entry_applies(&t->entries[i], ni)
            && is_shared(t->entries[i].name))
            has[!strcasecmp(t->entries[i].name, "mps")] = true;
    if (has[0] && has[1])
        return conf__einval(error, "node %s: gres/shard and gres/mps on one "
                            "node: Drover shares a node's GPUs one way",
                            node->name);
    *name = has[0] ? "shard" : has[1] ? "mps" : NULL;
    return 0;
}

/* The node's shares per GPU from the Name=shard (or mps) lines that apply
 * to it. */
static int node_shards(struct gres_table *t, size_t ni, drv_error_t *error)
{
    struct conf__shard_line *lines;
    const char *name;
    size_t n = 0;
    int rc;

    if (node_share(t, ni, &name, error) < 0)
        return -1;
    if (!name)
        return 0;
    if (!(lines = calloc(t->count + 1, sizeof(*lines))))
        return conf__enomem(error);
    for (size_t i = 0; i < t->count; i++) {
        const struct gres_entry *e = &t->entries[i];
        if (!strcasecmp(e->name, name) && entry_applies(e, ni))
            lines[n++] = (struct conf__shard_line){
                .file = e->file, .line = e->line, .count = e->count,
                .files = e->files,
            };
    }
    rc = conf__gres_shards(&t->conf->nodes[ni], name, lines, n, error);
    free(lines);
    return rc;
}

static int node_devs(struct gres_table *t, size_t ni, drv_error_t *error)
{
    struct conf_node *node = &t->conf->nodes[ni];

    for (size_t i = 0; i < node->gres_count; i++) {
        const char *name = node->gres[i].name;
        size_t start = node->gres_dev_count;
        const struct gres_entry *last;

        if (!first_of_name(node, i) || is_shared(name))
            continue;
        if (devs_from_entries(t, ni, name, &last, error) < 0)
            return -1;
        if (!last && devs_from_gres(node, name, error) < 0)
            return -1;
        if (last && !(node->gpu_autodetect && !strcasecmp(name, "gpu"))
            && check_counts(node, name, start, last, error) < 0)
            return -1;
    }
    return 0;
}

/* The Gres= type string of node 'node' equal to 'type' (any case), or
 * NULL. */
static const char *gres_type(const struct conf_node *node, const char *type)
{
    for (size_t i = 0; type && i < node->gres_count; i++)
        if (!strcasecmp(node->gres[i].name, "gpu") && node->gres[i].type
            && !strcasecmp(node->gres[i].type, type))
            return node->gres[i].type;
    return NULL;
}

/* gpu_types of a node whose GPUs are of two types or more: each GPU
 * device's type by its index. */
static int node_gpu_types(struct conf_node *node, drv_error_t *error)
{
    const char *first = NULL;
    bool mixed = false;
    size_t n = 0;

    free(node->gpu_types);
    node->gpu_types = NULL;
    for (size_t i = 0; i < node->gres_count; i++)
        if (!strcasecmp(node->gres[i].name, "gpu")) {
            mixed |= n && (!first || !node->gres[i].type
                           || strcasecmp(first, node->gres[i].type));
            first = n++ ? first : node->gres[i].type;
        }
    if (!mixed)
        return 0;
    n = conf__gres_total(node, "gpu");
    if (!(node->gpu_types = calloc(n + 1, sizeof(*node->gpu_types))))
        return conf__enomem(error);
    for (size_t d = 0; d < node->gres_dev_count; d++) {
        const struct conf_gres_dev *dev = &node->gres_devs[d];
        if (!strcasecmp(dev->name, "gpu") && dev->index >= 0
            && (size_t)dev->index < n)
            node->gpu_types[dev->index] = gres_type(node, dev->type);
    }
    return 0;
}

int conf__gres_devs(struct conf_parser *p, const char *file, const char *text,
                    drv_error_t *error)
{
    struct gres_table t = { .conf = p->conf, .autodetect = -1 };
    int rc = 0;

    t.node_auto = malloc(p->conf->node_count + 1);
    if (!t.node_auto)
        return conf__enomem(error);
    memset(t.node_auto, -1, p->conf->node_count + 1);
    if (text)
        rc = conf__lex(file, text, p->confdir, gres_line, &t, error);
    for (size_t i = 0; rc == 0 && i < p->conf->node_count; i++) {
        int a = t.node_auto[i] >= 0 ? t.node_auto[i] : t.autodetect;
        p->conf->nodes[i].gpu_autodetect = a == 1;
        if ((rc = node_devs(&t, i, error)) == 0
            && (rc = node_shards(&t, i, error)) == 0)
            rc = node_gpu_types(&p->conf->nodes[i], error);
    }
    free(t.node_auto);
    for (size_t i = 0; i < t.count; i++)
        entry_clear(&t.entries[i]);
    free(t.entries);
    return rc;
}
