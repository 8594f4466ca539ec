/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_keytab.c - what the table-driven dialects share (slurm.conf's
 * global keywords, slurmdbd.conf, cgroup.conf): finding a keyword in a
 * table, applying a line's pairs, the directory a file's Includes are
 * relative to.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "conf/conf_private.h"

const void *conf__key_find(const struct conf_keytab *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++) {
        const void *row = (const char *)t->rows + i * t->row_size;

        if (!strcasecmp(*(const char *const *)row, name))
            return row;
    }
    return NULL;
}

int conf__keytab_line(const struct conf_line *l, const struct conf_keytab *t,
                      void *conf, drv_error_t *error)
{
    for (size_t i = 0; i < l->count; i++) {
        const struct conf_pair *kv = &l->pairs[i];
        const void *k = conf__key_find(t, kv->key);
        const char *why;

        if (!k) {
            log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                      kv->key);
            continue;
        }
        if (!(why = t->set(conf, k, kv->value)))
            continue;
        if (!*why)
            return conf__enomem(error);
        if (*why == *CONF_NO_EFFECT) {
            size_t *n;
            char ***list;

            if (!*kv->value || !t->notices) /* "Key=": Slurm's default */
                continue;
            list = t->notices(conf, &n);
            if (conf__notice_add(list, n, l, "", kv, why + 1, error) < 0)
                return -1;
            continue;
        }
        return conf__einval(error, "%s:%d: %s=%s: %s", l->file, l->line,
                            kv->key, kv->value, why);
    }
    return 0;
}

char *conf__dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        return strdup(".");
    return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}
