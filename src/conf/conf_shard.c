/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_shard.c - GPUs shared by counts: gres/shard (Slurm's GPU sharding)
 * or gres/mps (CUDA MPS), a node's shares per GPU
 *
 * As gres.conf(5) and Slurm's gres.html ("Sharding", "MPS Management"):
 * shares are counted per GPU.  A gres.conf Name=shard (or mps) line's
 * File= names the GPUs its Count= is shared over (evenly, the first GPUs
 * one more when it does not divide); a line without File=, or a node with
 * no such line at all, shares the count over all of the node's GPUs the
 * same way.  The node's Gres= total must equal what its lines give.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf_private.h"

/* Index of the node's GPU (gres_devs of name gpu) with File= 'file', or
 * -1. */
static long gpu_by_file(const struct conf_node *node, const char *file)
{
    for (size_t d = 0; d < node->gres_dev_count; d++) {
        const struct conf_gres_dev *dev = &node->gres_devs[d];
        if (!strcasecmp(dev->name, "gpu") && dev->file
            && !strcmp(dev->file, file))
            return dev->index;
    }
    return -1;
}

/* 'count' shared over GPUs gpu[0..n) of shards[]. */
static void share(uint32_t *shards, const long *gpu, size_t n, uint32_t count)
{
    for (size_t i = 0; i < n; i++)
        shards[gpu[i]] += count / n + (i < count % n);
}

uint32_t conf__gres_total(const struct conf_node *node, const char *name)
{
    uint32_t n = 0;

    for (size_t i = 0; i < node->gres_count; i++)
        if (!strcasecmp(node->gres[i].name, name))
            n += node->gres[i].count;
    return n;
}

/* One line's shards: on its File= GPUs, else on all of them. */
static int line_shards(struct conf_node *node, uint32_t gpus, const char *name,
                       const struct conf__shard_line *l, long *idx,
                       drv_error_t *error)
{
    size_t n = l->files ? hostlist_count(l->files) : gpus;

    for (size_t i = 0; i < n; i++) {
        const char *f = l->files ? hostlist_nth(l->files, i) : NULL;
        if ((idx[i] = f ? gpu_by_file(node, f) : (long)i) < 0)
            return conf__einval(error, "%s:%d: Name=%s File=%s: not a "
                                "GPU of node %s (%s is shared over its gpu "
                                "File= devices)", l->file, l->line, name, f,
                                node->name, name);
    }
    share(node->gpu_shards, idx, n, l->count);
    return 0;
}

int conf__gres_shards(struct conf_node *node, const char *name,
                      const struct conf__shard_line *lines, size_t nlines,
                      drv_error_t *error)
{
    uint32_t total = conf__gres_total(node, name);
    uint32_t gpus = conf__gres_total(node, "gpu"), sum = 0;
    long *idx;
    int rc = 0;

    if (total == 0 && nlines == 0)
        return 0;
    if (gpus == 0)
        return conf__einval(error, "node %s: Gres=%s needs GPUs "
                            "(Gres=gpu) to share", node->name, name);
    idx = calloc(gpus, sizeof(*idx));
    node->gpu_shards = calloc(gpus, sizeof(*node->gpu_shards));
    if (!idx || !node->gpu_shards) {
        free(idx);
        return conf__enomem(error);
    }
    for (size_t i = 0; rc == 0 && i < nlines; i++) {
        if (lines[i].files && hostlist_count(lines[i].files) > gpus)
            rc = conf__einval(error, "%s:%d: Name=%s: more files than "
                              "node %s has GPUs", lines[i].file,
                              lines[i].line, name, node->name);
        else
            rc = line_shards(node, gpus, name, &lines[i], idx, error);
        sum += lines[i].count;
    }
    if (rc == 0 && nlines == 0) {
        for (uint32_t g = 0; g < gpus; g++)
            idx[g] = (long)g;
        share(node->gpu_shards, idx, gpus, total);
        sum = total;
    }
    free(idx);
    if (rc == 0 && sum != total)
        rc = conf__einval(error, "%s:%d: Name=%s: %u for node %s, but its "
                          "Gres= has %s:%u", lines[nlines - 1].file,
                          lines[nlines - 1].line, name, sum, node->name,
                          name, total);
    if (rc == 0)
        node->gpu_share = strcasecmp(name, "mps") ? "shard" : "mps";
    return rc;
}
