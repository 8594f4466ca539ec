/* SPDX-License-Identifier: Apache-2.0
 *
 * gpu_merge.c - the GPUs NVML found, merged into the node's configured
 * GPUs (gpu_nvml_merge in gpu_nvml.h gives the rules, Slurm's)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/gpu_nvml.h"

/* One found GPU as the merge sees it. */
struct found {
    const struct gpu_nvml_dev *dev;
    const char *type; /* cut down to a configured type, or NULL */
    bool taken;
};

/* " MIG <k>" for MIG instance k of its GPU, "" for a GPU (log lines). */
static const char *mig_label(const struct gpu_nvml_dev *dev)
{
    static char label[32];

    if (dev->mig < 0)
        return "";
    snprintf(label, sizeof(label), " MIG %d", dev->mig);
    return label;
}

static bool is_gpu(const struct conf_gres_dev *d)
{
    return !strcasecmp(d->name, "gpu");
}

static size_t type_len(const struct conf_gres_dev *d)
{
    return d->type ? strlen(d->type) : 0;
}

/* Cut each found type down to the longest unused configured type that is
 * a substring of it; without any configured type, drop the types. */
static void normalise_types(struct found *f, size_t nf,
                            const struct conf_node *node)
{
    bool *used = xzalloc(node->gres_dev_count + 1);
    bool any_type = false;

    for (size_t c = 0; c < node->gres_dev_count; c++)
        if (is_gpu(&node->gres_devs[c]) && node->gres_devs[c].type)
            any_type = true;
    for (size_t i = 0; i < nf; i++) {
        long best = -1;
        f[i].type = any_type ? f[i].dev->type : NULL;
        for (size_t c = 0; any_type && c < node->gres_dev_count; c++) {
            const struct conf_gres_dev *d = &node->gres_devs[c];
            if (!is_gpu(d) || !d->type || used[c]
                || !strcasestr(f[i].dev->type, d->type))
                continue;
            if (best < 0 || type_len(d) > type_len(&node->gres_devs[best]))
                best = (long)c;
        }
        if (best >= 0) {
            used[best] = true;
            f[i].type = node->gres_devs[best].type;
        }
    }
    free(used);
}

/* Whether found GPU 'dev' has configured GPU 'd''s File= (and, for
 * MultipleFiles=, the rest of its files: a MIG instance's). */
static bool same_files(const struct conf_gres_dev *d,
                       const struct gpu_nvml_dev *dev)
{
    size_t k = 0;

    if (strcmp(d->file, dev->file)
        || (d->more_files != NULL) != (dev->mig >= 0))
        return false;
    for (; d->more_files && d->more_files[k]; k++)
        if (k >= 2 || strcmp(d->more_files[k], dev->caps[k]))
            return false;
    return dev->mig < 0 || k == 2;
}

/* The first unused found GPU that configured GPU 'd' matches, or -1. */
static long match(struct found *f, size_t nf, const struct conf_gres_dev *d)
{
    for (size_t i = 0; i < nf; i++) {
        if (f[i].taken)
            continue;
        if (d->type && (!f[i].type || strcasecmp(d->type, f[i].type)))
            continue;
        if (d->file && !same_files(d, f[i].dev))
            continue;
        return (long)i;
    }
    return -1;
}

/* Append a GPU; 'more' (MultipleFiles= after the first, or NULL) is
 * copied. */
static void add(struct conf_gres_dev **out, size_t *n, const char *type,
                const char *file, char *const *more, const char *uuid)
{
    size_t nmore = 0;

    *out = xrealloc(*out, (*n + 1) * sizeof(**out));
    (*out)[*n] = (struct conf_gres_dev){
        .name = xstrdup("gpu"), .type = type ? xstrdup(type) : NULL,
        .file = file ? xstrdup(file) : NULL,
        .uuid = uuid ? xstrdup(uuid) : NULL, .index = (int)*n,
    };
    while (more && more[nmore])
        nmore++;
    if (nmore) {
        (*out)[*n].more_files = xzalloc((nmore + 1) * sizeof(char *));
        for (size_t i = 0; i < nmore; i++)
            (*out)[*n].more_files[i] = xstrdup(more[i]);
    }
    (*n)++;
}

/* Add found GPU 'dev' (a MIG instance with its capability files) as
 * type 'type'. */
static void add_found(struct conf_gres_dev **out, size_t *n, const char *type,
                      const struct gpu_nvml_dev *dev)
{
    char *caps[] = { (char *)dev->caps[0], (char *)dev->caps[1], NULL };

    add(out, n, type, dev->file, dev->mig >= 0 ? caps : NULL, dev->uuid);
}

size_t gpu_nvml_merge(struct conf_node *node, const struct gpu_nvml_dev *devs,
                      size_t count)
{
    struct found *f = xzalloc((count + 1) * sizeof(*f));
    bool *keep = xzalloc(node->gres_dev_count + 1);
    long *found_of = xzalloc((node->gres_dev_count + 1) * sizeof(*found_of));
    struct conf_gres_dev *gpus = NULL, *all;
    size_t ngpus = 0, nall = 0, nf = 0;

    /* A GPU in MIG mode is not given to jobs: its instances are. */
    for (size_t i = 0; i < count; i++)
        if (devs[i].mig_count < 0)
            f[nf++].dev = &devs[i];
    normalise_types(f, nf, node);
    /* Configured GPUs with a File= first, as Slurm: they pick their own. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t c = 0; c < node->gres_dev_count; c++) {
            const struct conf_gres_dev *d = &node->gres_devs[c];
            long m;
            if (!is_gpu(d) || (pass == 0) != (d->file != NULL))
                continue;
            found_of[c] = m = match(f, nf, d);
            if (m >= 0)
                f[m].taken = true;
            else if ((keep[c] = d->file != NULL))
                log_info("AutoDetect=nvml: configured GPU %s not found by "
                         "NVML: kept as configured", d->file);
            else
                log_error("AutoDetect=nvml: a configured GPU%s%s matches "
                          "no GPU NVML found, and has no File=: dropped",
                          d->type ? " of type " : "", d->type ? d->type : "");
        }
    }
    /* In the configured order, which is the controller's GPU indexes (a
     * node with GPUs of several types must agree on each index's type). */
    for (size_t c = 0; c < node->gres_dev_count; c++) {
        if (!is_gpu(&node->gres_devs[c]))
            continue;
        if (found_of[c] >= 0) {
            add_found(&gpus, &ngpus, f[found_of[c]].type, f[found_of[c]].dev);
        } else if (keep[c]) {
            add(&gpus, &ngpus, node->gres_devs[c].type,
                node->gres_devs[c].file, node->gres_devs[c].more_files, NULL);
        }
    }
    for (size_t i = 0; i < nf; i++)
        if (!f[i].taken)
            log_info("AutoDetect=nvml: GPU %u%s (%s, %s) is not in "
                     "slurm.conf's Gres=: ignored", f[i].dev->index,
                     mig_label(f[i].dev), f[i].dev->name,
                     f[i].dev->mig < 0 ? f[i].dev->file : f[i].dev->uuid);
    /* The node's devices: the GPUs, then its other GRES as they were. */
    all = xzalloc((ngpus + node->gres_dev_count + 1) * sizeof(*all));
    for (size_t i = 0; i < ngpus; i++)
        all[nall++] = gpus[i];
    for (size_t c = 0; c < node->gres_dev_count; c++) {
        if (is_gpu(&node->gres_devs[c]))
            conf_gres_dev_clear(&node->gres_devs[c]);
        else
            all[nall++] = node->gres_devs[c];
    }
    free(node->gres_devs);
    free(gpus);
    free(keep);
    free(found_of);
    free(f);
    node->gres_devs = all;
    node->gres_dev_count = nall;
    return ngpus;
}

/* One log line for each GPU and MIG instance found. */
static void log_found(const struct gpu_nvml_dev *devs, int count)
{
    for (int i = 0; i < count; i++) {
        const struct gpu_nvml_dev *d = &devs[i];
        if (d->mig >= 0)
            log_info("AutoDetect=nvml: GPU %u%s: %s %s,%s,%s %s GI=%u CI=%u",
                     d->index, mig_label(d), d->name, d->file, d->caps[0],
                     d->caps[1], d->uuid, d->gi, d->ci);
        else
            log_info("AutoDetect=nvml: GPU %u: %s %s %s Cores=%s Links=%s",
                     d->index, d->name, d->file, d->uuid,
                     d->cores[0] ? d->cores : "(none)",
                     d->links[0] ? d->links : "(none)");
        if (d->mig_count > 0)
            log_info("AutoDetect=nvml: GPU %u is in MIG mode: its %d MIG "
                     "instance(s) are used, not the GPU", d->index,
                     d->mig_count);
        else if (d->mig_count == 0)
            log_error("AutoDetect=nvml: GPU %u is in MIG mode without MIG "
                      "instances: not used", d->index);
    }
}

void gpu_nvml_autodetect(struct conf_node *node)
{
    struct gpu_nvml_dev *devs = NULL;
    const char *minors = getenv("DROVER_NVML_MIG_MINORS");
    char why[512] = "";
    int usable = 0;
    int count = gpu_nvml_discover(NULL, minors && *minors ? minors : NULL,
                                  &devs, why, sizeof(why));

    if (count < 0) {
        log_error("AutoDetect=nvml: %s: the GPUs of gres.conf/slurm.conf "
                  "are used", why);
        return;
    }
    log_found(devs, count);
    for (int i = 0; i < count; i++)
        usable += devs[i].mig_count < 0;
    log_info("AutoDetect=nvml: %zu GPU(s) in use of %d found",
             gpu_nvml_merge(node, devs, (size_t)count), usable);
    free(devs);
}
