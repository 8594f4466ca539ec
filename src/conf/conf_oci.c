/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_oci.c - oci.conf (oci.conf(5), Slurm 22.05)
 *
 * Read beside slurm.conf when the file exists (no oci.conf: containers
 * are off, as Slurm's "OCI container support is disabled if oci.conf does
 * not exist").  Keys are 22.05's: ContainerPath, CreateEnvFile and the
 * six RunTime* patterns; any other key is refused with file:line.  The
 * RunTime* set must be complete as Slurm's oci_config.c checks it: either
 * RunTimeRun, or RunTimeCreate with RunTimeStart, and in both cases
 * RunTimeKill, RunTimeDelete and RunTimeQuery.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

/* The string-valued keys: oci.conf's name, the name in the steps' copy
 * of the configuration (conf_step.h), the field.  One table for parsing,
 * checking, freeing and the copy. */
static const struct oci_key {
    const char *key, *json;
    size_t off;
} oci_keys[] = {
#define K(name, member) {name, #member, offsetof(struct conf_oci, member)}
    K("ContainerPath", container_path), K("RunTimeCreate", runtime_create),
    K("RunTimeStart", runtime_start),   K("RunTimeRun", runtime_run),
    K("RunTimeKill", runtime_kill),     K("RunTimeDelete", runtime_delete),
    K("RunTimeQuery", runtime_query),
#undef K
};
#define OCI_KEYS (sizeof(oci_keys) / sizeof(oci_keys[0]))

static char **key_field(struct conf_oci *oci, size_t i)
{
    return (char **)((char *)oci + oci_keys[i].off);
}

static char **string_field(struct conf_oci *oci, const char *key)
{
    for (size_t i = 0; i < OCI_KEYS; i++)
        if (!strcasecmp(key, oci_keys[i].key))
            return key_field(oci, i);
    return NULL;
}

/* One key=value into 'oci'; NULL, "" (ENOMEM), or why it is refused. */
static const char *set_pair(struct conf_oci *oci, const char *key,
                            const char *value)
{
    char **field = string_field(oci, key);

    if (field)
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    if (!strcasecmp(key, "CreateEnvFile"))
        return conf__parse_bool(value, &oci->create_env_file) < 0
                   ? "expected true or false" : NULL;
    return "unknown keyword";
}

static int oci_line(const struct conf_line *cl, void *arg, drv_error_t *error)
{
    struct conf_oci *oci = arg;

    for (size_t i = 0; i < cl->count; i++) {
        const char *why = set_pair(oci, cl->pairs[i].key, cl->pairs[i].value);

        if (why && !*why)
            return conf__enomem(error);
        if (why)
            return conf__einval(error, "%s:%d: %s=%s: %s", cl->file,
                                cl->line, cl->pairs[i].key,
                                cl->pairs[i].value, why);
    }
    return 0;
}

/* Slurm's rule for a usable set of RunTime* patterns; NULL or why not. */
static const char *check_runtimes(const struct conf_oci *o)
{
    bool common = o->runtime_kill && o->runtime_delete && o->runtime_query;

    if (!o->runtime_create && !o->runtime_start && !o->runtime_run
        && !o->runtime_kill && !o->runtime_delete && !o->runtime_query)
        return "present but missing required options";
    if (common && o->runtime_run && !o->runtime_create && !o->runtime_start)
        return NULL;
    if (common && !o->runtime_run && o->runtime_create && o->runtime_start)
        return NULL;
    return "RunTimeRun and RunTimeCreate/RunTimeStart are mutually "
           "exclusive; RunTimeKill, RunTimeDelete and RunTimeQuery are "
           "required";
}

/* The replacements of oci.conf(5)'s "OCI Pattern" section; NULL, or why
 * 'v' has another. */
static const char *bad_pattern(const char *v)
{
    for (const char *p = strchr(v, '%'); p; p = strchr(p + 2, '%'))
        if (!p[1] || !strchr("%@bejmnprstuU", p[1]))
            return "unknown %-replacement (oci.conf(5): %% %@ %b %e %j %m "
                   "%n %p %r %s %t %u %U)";
    return NULL;
}

void conf__oci_clear(struct conf_oci *oci)
{
    free(oci->path);
    for (size_t i = 0; i < OCI_KEYS; i++)
        free(*key_field(oci, i));
    *oci = (struct conf_oci){0};
}

int conf__load_oci(struct slurm_conf *conf, const char *confdir,
                   drv_error_t *error)
{
    struct conf_oci *oci = &conf->oci;
    char *path, *text;
    int rc;

    if (asprintf(&path, "%s/oci.conf", confdir) < 0)
        return conf__enomem(error);
    if (!(text = conf__read_file(path))) {
        int saved_errno = errno;

        free(path);
        if (saved_errno == ENOENT)
            return 0;
        errprintf(error, "oci.conf: %s", strerror(saved_errno));
        errno = saved_errno;
        return -1;
    }
    rc = conf__parse_oci(oci, path, text, confdir, error);
    free(text);
    return rc;
}

int conf__parse_oci(struct conf_oci *oci, char *path, const char *text,
                    const char *confdir, drv_error_t *error)
{
    const char *why;
    int rc;

    oci->path = path;
    rc = conf__lex(path, text, confdir, oci_line, oci, error);
    if (rc == 0 && (why = check_runtimes(oci)))
        rc = conf__einval(error, "%s: %s", path, why);
    for (size_t i = 0; rc == 0 && i < OCI_KEYS; i++) {
        const char *v = *key_field(oci, i);
        if (v && (why = bad_pattern(v)))
            rc = conf__einval(error, "%s: %s=%s: %s", path, oci_keys[i].key,
                              v, why);
    }
    if (rc == 0 && oci->container_path && oci->container_path[0] != '/')
        rc = conf__einval(error, "%s: ContainerPath=%s: not an absolute path",
                          path, oci->container_path);
    /* each step's directory is made afresh: two steps must never share it */
    if (rc == 0 && oci->container_path
        && (!strstr(oci->container_path, "%j")
            || !strstr(oci->container_path, "%s")))
        rc = conf__einval(error, "%s: ContainerPath=%s: needs %%j and %%s "
                                 "(one directory per step)",
                          path, oci->container_path);
    return rc;
}

json_t *conf__oci_to_json(const struct conf_oci *oci)
{
    json_t *o = json_pack("{s:s s:b}", "path", oci->path, "create_env_file",
                          oci->create_env_file);

    for (size_t i = 0; i < OCI_KEYS; i++) {
        const char *v = *key_field((struct conf_oci *)oci, i);
        if (v)
            json_object_set_new(o, oci_keys[i].json, json_string(v));
    }
    return o;
}

int conf__oci_from_json(json_t *o, struct conf_oci *oci, drv_error_t *error)
{
    json_t *path = json_object_get(o, "path");

    if (!o)
        return 0;
    if (!json_is_object(o) || !json_is_string(path))
        return errprintf(error, "step configuration: oci: bad value");
    if (conf__set_string(&oci->path, json_string_value(path),
                         json_string_length(path)) < 0)
        return errprintf(error, "step configuration: oci: out of memory");
    for (size_t i = 0; i < OCI_KEYS; i++) {
        json_t *v = json_object_get(o, oci_keys[i].json);
        if (json_is_string(v)
            && conf__set_string(key_field(oci, i), json_string_value(v),
                                json_string_length(v)) < 0)
            return errprintf(error, "step configuration: oci: out of memory");
    }
    oci->create_env_file = json_is_true(json_object_get(o, "create_env_file"));
    return 0;
}
