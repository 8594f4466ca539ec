/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_jc.c - job_container.conf (job_container.conf(5), Slurm 22.05)
 *
 * Read beside slurm.conf when JobContainerType=job_container/tmpfs, and
 * then required (Slurm's plugin fails without it).  Lines are either
 * "NodeName=LIST BasePath=... [AutoBasePath= Dirs= InitScript= Shared=]"
 * or "BasePath=... [...]" (every node); AutoBasePath=, Dirs= and Shared=
 * may also stand alone as the file's defaults.  A node takes the last
 * line that names it, as Slurm's parser does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "conf/conf.h"
#include "conf/conf_private.h"

#define JC_DEFAULT_DIRS "/tmp,/dev/shm"

/* Dirs=: a comma list of absolute paths, none of them "/". */
static const char *check_dirs(const char *v)
{
    while (*v) {
        size_t n = strcspn(v, ",");
        if (v[0] != '/' || n < 2)
            return "expected a comma list of absolute directories";
        v += n + (v[n] == ',');
    }
    return NULL;
}

/* One pair of a line into 'l'; NULL, or why it is refused. */
static const char *set_pair(struct conf_jc_line *l, const char *key,
                            const char *value)
{
    bool b;

    if (!strcasecmp(key, "NodeName"))
        return conf__set_string(&l->nodes, value, strlen(value)) < 0 ? ""
                                                                      : NULL;
    if (!strcasecmp(key, "BasePath")) {
        if (value[0] != '/')
            return "not an absolute path";
        return conf__set_string(&l->base_path, value, strlen(value)) < 0
                   ? "" : NULL;
    }
    if (!strcasecmp(key, "InitScript")) {
        if (value[0] != '/')
            return "not an absolute path";
        return conf__set_string(&l->init_script, value, strlen(value)) < 0
                   ? "" : NULL;
    }
    if (!strcasecmp(key, "Dirs"))
        return check_dirs(value)
                   ?: (conf__set_string(&l->dirs, value, strlen(value)) < 0
                           ? "" : NULL);
    if (!strcasecmp(key, "AutoBasePath") || !strcasecmp(key, "Shared")) {
        if (conf__parse_bool(value, &b) < 0)
            return "expected true or false";
        *(!strcasecmp(key, "Shared") ? &l->shared : &l->auto_base_path) = b;
        return NULL;
    }
    return "unknown keyword";
}

static void line_clear(struct conf_jc_line *l)
{
    free(l->nodes);
    free(l->base_path);
    free(l->dirs);
    free(l->init_script);
}

/* A line of AutoBasePath=/Dirs=/Shared= only: the file's defaults. */
static int set_globals(struct conf_job_container *jc,
                       const struct conf_jc_line *l)
{
    if (l->auto_base_path >= 0)
        jc->auto_base_path = l->auto_base_path;
    if (l->shared >= 0)
        jc->shared = l->shared;
    if (l->dirs) {
        free(jc->dirs);
        if (!(jc->dirs = strdup(l->dirs)))
            return -1;
    }
    return 0;
}

static int jc_line(const struct conf_line *cl, void *arg, drv_error_t *error)
{
    struct conf_job_container *jc = arg;
    struct conf_jc_line l = { .auto_base_path = -1, .shared = -1 };
    struct conf_jc_line *grown;
    const char *why = NULL;
    size_t i;

    for (i = 0; i < cl->count && !why; i++)
        why = set_pair(&l, cl->pairs[i].key, cl->pairs[i].value);
    if (why) {
        line_clear(&l);
        if (!*why)
            return conf__enomem(error);
        return conf__einval(error, "%s:%d: %s=%s: %s", cl->file, cl->line,
                            cl->pairs[i - 1].key, cl->pairs[i - 1].value,
                            why);
    }
    if (l.nodes && !l.base_path) {
        line_clear(&l);
        return conf__einval(error, "%s:%d: NodeName= line without BasePath=",
                            cl->file, cl->line);
    }
    if (!l.base_path) {
        int rc = set_globals(jc, &l);
        line_clear(&l);
        return rc < 0 ? conf__enomem(error) : 0;
    }
    if (!(grown = realloc(jc->lines, (jc->count + 1) * sizeof(*grown)))) {
        line_clear(&l);
        return conf__enomem(error);
    }
    jc->lines = grown;
    jc->lines[jc->count++] = l;
    return 0;
}

void conf__job_container_clear(struct conf_job_container *jc)
{
    for (size_t i = 0; i < jc->count; i++)
        line_clear(&jc->lines[i]);
    free(jc->lines);
    free(jc->dirs);
    free(jc->path);
    *jc = (struct conf_job_container){0};
}

int conf__load_job_container(struct slurm_conf *conf, const char *confdir,
                             drv_error_t *error)
{
    struct conf_job_container *jc = &conf->job_container;
    char *text;
    int rc;

    if (!conf_job_container_tmpfs(conf))
        return 0;
    if (asprintf(&jc->path, "%s/job_container.conf", confdir) < 0) {
        jc->path = NULL;
        return conf__enomem(error);
    }
    if (!(text = conf__read_file(jc->path))) {
        int saved_errno = errno;
        errprintf(error, "JobContainerType=job_container/tmpfs needs %s: %s",
                  jc->path, strerror(saved_errno));
        errno = saved_errno;
        return -1;
    }
    rc = conf__parse_job_container(jc, text, confdir, error);
    free(text);
    return rc;
}

int conf__parse_job_container(struct conf_job_container *jc,
                              const char *text, const char *confdir,
                              drv_error_t *error)
{
    int rc = conf__lex(jc->path, text, confdir, jc_line, jc, error);

    if (rc == 0 && jc->dirs && check_dirs(jc->dirs))
        rc = conf__einval(error, "%s: Dirs=%s: %s", jc->path, jc->dirs,
                          check_dirs(jc->dirs));
    return rc;
}

static bool line_names(const struct conf_jc_line *l, const char *node)
{
    hostlist_t *hl;
    bool found;

    if (!l->nodes)
        return true;
    if (!(hl = hostlist_decode(l->nodes, NULL)))
        return false;
    found = hostlist_find(hl, node) >= 0;
    hostlist_destroy(hl);
    return found;
}

int conf_job_container_for(const struct slurm_conf *conf, const char *node,
                           struct conf_jc *out)
{
    const struct conf_job_container *jc = &conf->job_container;
    const struct conf_jc_line *l = NULL;
    struct conf_node n = { .name = (char *)node };
    char *base;

    for (size_t i = 0; i < jc->count; i++)
        if (line_names(&jc->lines[i], node))
            l = &jc->lines[i];
    if (!l) {
        errno = ENOENT;
        return -1;
    }
    if (!(base = conf_expand_node_path(l->base_path, &n)))
        return -1;
    *out = (struct conf_jc){
        .dirs = l->dirs ? l->dirs : jc->dirs ? jc->dirs : JC_DEFAULT_DIRS,
        .init_script = l->init_script,
        .auto_base_path = l->auto_base_path >= 0 ? l->auto_base_path
                                                 : jc->auto_base_path,
        .shared = l->shared >= 0 ? l->shared : jc->shared,
    };
    if (asprintf(&out->base_path, "%s/%s", base, node) < 0) {
        free(base);
        return -1;
    }
    free(base);
    return 0;
}
