/* SPDX-License-Identifier: Apache-2.0
 *
 * gpu_files.c - a job's or step's GPU device files (gpu_files.h)
 */
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/gpu_files.h"

static bool is_gpu(const struct conf_gres_dev *d)
{
    return !strcmp(d->name, "gpu") && d->file;
}

static bool is_given(const bitmap_t *given, int index)
{
    return given && index >= 0 && (size_t)index < bitmap_size(given)
           && bitmap_test(given, (size_t)index);
}

/* Append 'file' to 'list' (n entries) unless it is there. */
static void add_once(const char **list, size_t *n, const char *file)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], file))
            return;
    list[(*n)++] = file;
}

/* File k of device 'd': File= (or MultipleFiles='s first) for 0, then the
 * rest of MultipleFiles=; NULL past the last (call with k counting up
 * from 0, stopping at the first NULL). */
static const char *dev_file(const struct conf_gres_dev *d, size_t k)
{
    if (k == 0)
        return d->file;
    return d->more_files ? d->more_files[k - 1] : NULL;
}

static size_t file_count(const struct conf_node *node)
{
    size_t n = 0;

    for (size_t i = 0; i < node->gres_dev_count; i++)
        for (size_t k = 0; is_gpu(&node->gres_devs[i])
                           && dev_file(&node->gres_devs[i], k); k++)
            n++;
    return n;
}

/* Whether 'file' is in the NULL-terminated 'list'. */
static bool listed(const char **list, const char *file)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(list[i], file))
            return true;
    return false;
}

void gpu_files_split(const struct conf_node *node, const bitmap_t *given,
                     struct gpu_files *out)
{
    size_t total = file_count(node), na = 0, nd = 0;

    out->allowed = xzalloc((total + 1) * sizeof(*out->allowed));
    out->denied = xzalloc((total + 1) * sizeof(*out->denied));
    for (size_t i = 0; i < node->gres_dev_count; i++) {
        const struct conf_gres_dev *d = &node->gres_devs[i];
        const char *f;
        for (size_t k = 0; is_gpu(d) && is_given(given, d->index)
                           && (f = dev_file(d, k)); k++)
            add_once(out->allowed, &na, f);
    }
    for (size_t i = 0; i < node->gres_dev_count; i++) {
        const struct conf_gres_dev *d = &node->gres_devs[i];
        const char *f;
        for (size_t k = 0; is_gpu(d) && !is_given(given, d->index)
                           && (f = dev_file(d, k)); k++)
            if (!listed(out->allowed, f))
                add_once(out->denied, &nd, f);
    }
}

bitmap_t *gpu_files_given(const struct conf_node *node, const char *list)
{
    drv_error_t error = { 0 };
    size_t bits;
    bitmap_t *b;

    if (!list || !*list)
        return NULL;
    bits = bitmap_list_bits(list, 1 << 16);
    if (bits < node->gres_dev_count)
        bits = node->gres_dev_count;
    if (!(b = bitmap_parse(list, bits ? bits : 1, &error)))
        log_error("GPU indexes '%s': %s", list, error.text);
    return b;
}

void gpu_files_free(struct gpu_files *f)
{
    free(f->allowed);
    free(f->denied);
    f->allowed = f->denied = NULL;
}
