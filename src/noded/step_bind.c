/* SPDX-License-Identifier: Apache-2.0
 *
 * step_bind.c - binding a step's tasks on this node (step_bind.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bitmap.h"
#include "common/cpubind.h"
#include "common/log.h"
#include "common/taskdist.h"
#include "common/xalloc.h"
#include "noded/affinity.h"
#include "noded/step_bind.h"

struct step_bind {
    bool cpus;             /* task/affinity: CPU masks set */
    bool verbose;
    enum cpubind_type type;
    char *map_list;        /* map_cpu: the list as given */
    cpu_set_t *masks;      /* one per local task */
    size_t ntasks;
    char *mask_list;       /* SLURM_CPU_BIND_LIST of mask types */
    struct gpubind gpu;
};

static const char *str(json_t *body, const char *key)
{
    return json_string_value(json_object_get(body, key));
}

/* -m's second level from the step's SLURM_DISTRIBUTION (the controller
 * sets it); cyclic when absent, as Slurm's default. */
static enum taskdist_level socket_dist(json_t *body)
{
    json_t *env = json_object_get(body, "env"), *v;
    struct taskdist d;
    size_t i;

    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);

        if (s && !strncmp(s, "SLURM_DISTRIBUTION=", 19)
            && taskdist_parse(s + 19, NULL, &d, NULL) == 0
            && d.socket != TASKDIST_LEVEL_NONE)
            return d.socket;
    }
    return TASKDIST_LEVEL_CYCLIC;
}

/* The request's binding type: --cpu-bind, else --hint, else auto. */
static int cpu_type(json_t *body, struct cpubind *cb, bool *one_thread,
                    drv_error_t *error)
{
    const char *spec = str(body, "cpu_bind"), *hint = str(body, "hint");
    enum cpubind_type t;

    *one_thread = false;
    if (spec && cpubind_parse(spec, cb, error) < 0)
        return -1;
    if (!spec)
        memset(cb, 0, sizeof(*cb));
    if (hint && cpubind_hint(hint, &t, one_thread, error) < 0)
        return -1;
    if (hint && cb->type == CPUBIND_UNSET)
        cb->type = t;
    return 0;
}

static void mask_list(struct step_bind *sb)
{
    char buf[AFFINITY_MASK_MAX], *s = xstrdup(""), *t;

    for (size_t i = 0; i < sb->ntasks; i++) {
        t = xasprintf("%s%s%s", s, i ? "," : "",
                      affinity_mask_str(&sb->masks[i], buf));
        free(s);
        s = t;
    }
    sb->mask_list = s;
}

/* The binding type: --cpu-bind, else --hint, else TaskPluginParam's
 * None|Sockets|Cores|Threads, else the automatic one, else (it found no
 * match) TaskPluginParam's autobind=, as Slurm's task/affinity. */
static enum cpubind_type bind_type(const struct conf_task_param *tp,
                                   const struct cpubind *cb,
                                   const struct affinity_req *r)
{
    enum cpubind_type t;

    if (cb->type != CPUBIND_UNSET)
        return cb->type;
    if (tp->bind != CPUBIND_UNSET)
        return tp->bind;
    t = affinity_auto_type(r->topo, &r->avail, r->ntasks, r->cpus_per_task);
    return t == CPUBIND_NONE && tp->autobind != CPUBIND_UNSET ? tp->autobind
                                                              : t;
}

static int cpu_setup(struct step_bind *sb, const struct conf_task_param *tp,
                     const struct conf_node *node, json_t *body,
                     drv_error_t *error)
{
    json_int_t job_cpus = json_integer_value(json_object_get(body,
                                                             "job_cpus"));
    json_int_t cpt = json_integer_value(json_object_get(body,
                                                        "cpus_per_task"));
    struct affinity_req r = {.ntasks = (uint32_t)sb->ntasks,
                             .cpus_per_task = cpt > 0 ? (uint32_t)cpt : 1};
    struct topo topo = {0};
    struct cpubind cb;
    int rc;

    if (cpu_type(body, &cb, &r.one_thread_per_core, error) < 0
        || topo_load(&topo, error) < 0) {
        cpubind_clear(&cb);
        return -1;
    }
    r.topo = &topo;
    affinity_step_cpus(&topo, (uint32_t)job_cpus,
                       json_string_value(json_object_get(body,
                                                         "job_cpu_ids")),
                       &r.avail);
    r.whole_node = job_cpus <= 0 || (uint64_t)job_cpus >= node->cpus;
    r.type = bind_type(tp, &cb, &r);
    r.list = cb.list;
    r.socket_dist = socket_dist(body);
    sb->cpus = true;
    sb->verbose = cb.verbose || (tp->verbose && !cb.quiet);
    sb->type = r.type;
    sb->map_list = cb.list ? xstrdup(cb.list) : NULL;
    sb->masks = xzalloc(sizeof(*sb->masks) * (sb->ntasks + 1));
    rc = affinity_masks(&r, sb->masks, error);
    if (rc == 0)
        mask_list(sb);
    cpubind_clear(&cb);
    topo_free(&topo);
    return rc;
}

int step_bind_create(const struct slurm_conf *conf,
                     const struct conf_node *node, json_t *body,
                     size_t ntasks, struct step_bind **out,
                     drv_error_t *error)
{
    const char *gpu = str(body, "gpu_bind");
    struct step_bind *sb;

    *out = NULL;
    if (!conf_task_affinity(conf) && !gpu)
        return 0;
    sb = xzalloc(sizeof(*sb));
    sb->ntasks = ntasks;
    if ((gpu && gpubind_parse(gpu, &sb->gpu, error) < 0)
        || (conf_task_affinity(conf)
            && cpu_setup(sb, &conf->task_param, node, body, error) < 0)) {
        step_bind_destroy(sb);
        return -1;
    }
    *out = sb;
    return 0;
}

int step_bind_job_cpuset(uint32_t job_cpus, const char *job_cpu_ids,
                         cpu_set_t *out, drv_error_t *error)
{
    struct topo topo = {0};

    if (topo_load(&topo, error) < 0)
        return -1;
    affinity_step_cpus(&topo, job_cpus, job_cpu_ids, out);
    topo_free(&topo);
    return 0;
}

char *step_bind_cpuset_list(const cpu_set_t *set)
{
    bitmap_t *bits = bitmap_create(CPU_SETSIZE);
    char *list;

    if (!bits)
        return NULL;
    for (size_t c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set))
            bitmap_set(bits, c);
    list = bitmap_fmt(bits);
    bitmap_destroy(bits);
    return list;
}

char *step_bind_job_cpus(uint32_t job_cpus, const char *job_cpu_ids,
                         drv_error_t *error)
{
    cpu_set_t set;
    char *list;

    if (step_bind_job_cpuset(job_cpus, job_cpu_ids, &set, error) < 0)
        return NULL;
    if (!(list = step_bind_cpuset_list(&set)))
        errprintf(error, "cgroup: out of memory");
    return list;
}

void step_bind_destroy(struct step_bind *sb)
{
    if (!sb)
        return;
    free(sb->map_list);
    free(sb->masks);
    free(sb->mask_list);
    gpubind_clear(&sb->gpu);
    free(sb);
}

bool step_bind_replaces(const struct step_bind *sb, const char *kv)
{
    return sb && sb->cpus && !strncmp(kv, "SLURM_CPU_BIND", 14);
}

size_t step_bind_env(const struct step_bind *sb, size_t local, char **e,
                     size_t n)
{
    const char *verbose, *type, *list;

    (void)local;
    if (!sb || !sb->cpus)
        return n;
    verbose = sb->verbose ? "verbose" : "quiet";
    if (sb->type == CPUBIND_NONE) {
        type = "none";
        list = "";
    } else if (sb->type == CPUBIND_MAP_CPU) {
        type = "map_cpu:";
        list = sb->map_list;
    } else {
        type = "mask_cpu:";
        list = sb->mask_list;
    }
    e[n++] = xasprintf("SLURM_CPU_BIND_VERBOSE=%s", verbose);
    e[n++] = xasprintf("SLURM_CPU_BIND_TYPE=%s", type);
    e[n++] = xasprintf("SLURM_CPU_BIND_LIST=%s", list);
    e[n++] = xasprintf("SLURM_CPU_BIND=%s,%s%s", verbose, type, list);
    return n;
}

/* The positions of 'gpus' (node indexes) set in 'set'. */
static json_t *positions_in(json_t *gpus, const cpu_set_t *set)
{
    json_t *pos = json_array(), *g;
    size_t i;

    json_array_foreach(gpus, i, g) {
        json_int_t id = json_integer_value(g);

        if (id >= 0 && id < CPU_SETSIZE && CPU_ISSET((size_t)id, set))
            json_array_append_new(pos, json_integer((json_int_t)i));
    }
    return pos;
}

json_t *step_bind_gpus(const struct step_bind *sb, json_t *gpus,
                       size_t local)
{
    size_t ngpus = json_array_size(gpus), n;
    cpu_set_t *sets;
    json_t *pos;

    if (!sb || !ngpus || sb->gpu.type == GPUBIND_UNSET)
        return NULL;
    if (sb->gpu.type == GPUBIND_SINGLE) {
        pos = json_array();
        json_array_append_new(pos, json_integer((json_int_t)(
                                  (local / sb->gpu.single) % ngpus)));
        return pos;
    }
    /* none, and closest without GPU affinity: every GPU of the step */
    if (sb->gpu.type == GPUBIND_NONE || sb->gpu.type == GPUBIND_CLOSEST
        || cpubind_list(sb->gpu.list, sb->gpu.type == GPUBIND_MASK_GPU,
                        &sets, &n, NULL) < 0)
        return NULL;
    pos = positions_in(gpus, &sets[local % n]);
    free(sets);
    if (json_array_size(pos) == 0) {
        log_error("--gpu-bind=%s: task %zu names none of the step's GPUs: "
                  "it gets all of them", sb->gpu.list, local);
        json_decref(pos);
        return NULL;
    }
    return pos;
}

void step_bind_apply(const struct step_bind *sb, size_t local, int rank,
                     const char *node_name, int err_fd)
{
    char buf[AFFINITY_MASK_MAX];
    cpu_set_t cur;
    bool bind;

    if (!sb || !sb->cpus || local >= sb->ntasks)
        return;
    bind = sb->type != CPUBIND_NONE;
    if (bind && sched_setaffinity(0, sizeof(sb->masks[local]),
                                  &sb->masks[local]) < 0)
        dprintf(err_fd, "droverd: task %d: sched_setaffinity %s: %s\n", rank,
                affinity_mask_str(&sb->masks[local], buf), strerror(errno));
    if (!sb->verbose)
        return;
    CPU_ZERO(&cur);
    sched_getaffinity(0, sizeof(cur), &cur);
    dprintf(err_fd, "cpu-bind=%s - %s, task %2d %2zu [%d]: mask %s%s\n",
            !bind ? "NONE" : sb->type == CPUBIND_MAP_CPU ? "MAP " : "MASK",
            node_name, rank, local, (int)getpid(),
            affinity_mask_str(bind ? &sb->masks[local] : &cur, buf),
            bind ? " set" : "");
}
