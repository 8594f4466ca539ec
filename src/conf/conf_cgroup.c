/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_cgroup.c - cgroup.conf: the table of keywords
 *
 * The file sits beside slurm.conf and is optional: without it, Slurm's
 * defaults hold (autodetect, /sys/fs/cgroup, nothing constrained).  The
 * limits apply only when slurm.conf's TaskPlugin lists task/cgroup, as in
 * Slurm; tracking (the job's processes in its cgroup) whenever cgroups are
 * in use (conf_cgroup_in_use()).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "conf/conf.h"
#include "conf/conf_private.h"

enum cg_key_type {
    CK_PLUGIN,  /* enum conf_cgroup_plugin */
    CK_PATH,    /* char *, an absolute path */
    CK_BOOL,    /* bool */
    CK_PERCENT, /* double, a non-negative percentage ("101.5") */
    CK_MIB,     /* uint64_t, MiB ("30", "1G") */
    CK_IGNORE,  /* a Slurm keyword we accept and do not use */
};

struct cg_key {
    const char *name; /* Slurm's spelling; matched case-insensitively */
    enum cg_key_type type;
    size_t offset;    /* into struct conf_cgroup */
    const char *dflt; /* parsed like a value from the file */
    const char *why;  /* CK_IGNORE: CONF_NO_EFFECT and why not used */
};

#define CF(f) offsetof(struct conf_cgroup, f)
#define CKEY(name, type, field, dflt) { name, type, CF(field), dflt, NULL }
#define CIGNORED(name, why) { name, CK_IGNORE, 0, NULL, CONF_NO_EFFECT why }

#define NO_KMEM "no kernel memory limit (cgroup v1 only, deprecated)"
#define NO_SYSTEMD "Drover makes its cgroups itself, without systemd"

/* Defaults are Slurm's (cgroup.conf(5), 22.05). */
static const struct cg_key cg_keys[] = {
    /* keyword              type        field                   default */
    CKEY("CgroupPlugin",       CK_PLUGIN,  plugin,             "autodetect"),
    CKEY("CgroupMountpoint",   CK_PATH,    mountpoint,     "/sys/fs/cgroup"),
    CKEY("ConstrainCores",     CK_BOOL,    constrain_cores,    "no"),
    CKEY("ConstrainDevices",   CK_BOOL,    constrain_devices,  "no"),
    CKEY("ConstrainRAMSpace",  CK_BOOL,    constrain_ram_space, "no"),
    CKEY("ConstrainSwapSpace", CK_BOOL,    constrain_swap_space, "no"),
    CKEY("AllowedRAMSpace",    CK_PERCENT, allowed_ram_space,  "100"),
    CKEY("AllowedSwapSpace",   CK_PERCENT, allowed_swap_space, "0"),
    CKEY("MinRAMSpace",        CK_MIB,     min_ram_space_mib,  "30"),
    /* Accepted, not used: each given one is a notice (the controller logs
     * it at start) naming why. */
    CIGNORED("AllowedDevicesFile", "the allowed devices are the job's "
             "GRES (gres.conf) and the usual /dev nodes"),
    CIGNORED("AllowedKmemSpace", NO_KMEM),
    CIGNORED("CgroupAutomount", "Drover mounts nothing; it uses the "
             "hierarchies mounted"),
    CIGNORED("CgroupReleaseAgentDir", "droverd removes a job's cgroups "
             "itself"),
    CIGNORED("CgroupSubsystems", "Drover uses the controllers it needs"),
    CIGNORED("ConstrainKmemSpace", NO_KMEM),
    CIGNORED("EnableControllers", NO_SYSTEMD),
    CIGNORED("IgnoreSystemd", NO_SYSTEMD),
    CIGNORED("IgnoreSystemdOnFailure", NO_SYSTEMD),
    CIGNORED("MaxKmemPercent", NO_KMEM),
    CIGNORED("MaxRAMPercent", "the memory limit is the job's request "
             "scaled by AllowedRAMSpace"),
    CIGNORED("MaxSwapPercent", "the swap limit is AllowedSwapSpace of the "
             "job's request"),
    CIGNORED("MemorySwappiness", "the kernel's swappiness is kept"),
    CIGNORED("MinKmemSpace", NO_KMEM),
    CIGNORED("SignalChildrenProcesses", "a signal reaches every process "
             "of the step's cgroup"),
    CIGNORED("SystemdTimeout", NO_SYSTEMD),
    CIGNORED("TaskAffinity", "CPU binding is TaskPlugin=task/affinity's"),
};

#define CG_KEY_COUNT (sizeof(cg_keys) / sizeof(cg_keys[0]))

static const struct {
    const char *word;
    enum conf_cgroup_plugin plugin;
} plugin_words[] = {
    { "autodetect", CONF_CGROUP_AUTODETECT },
    { "cgroup/v1", CONF_CGROUP_V1 },
    { "cgroup/v2", CONF_CGROUP_V2 },
    { "disabled", CONF_CGROUP_DISABLED },
};

static const char *set_plugin(enum conf_cgroup_plugin *field,
                              const char *value)
{
    for (size_t i = 0; i < sizeof(plugin_words) / sizeof(plugin_words[0]);
         i++) {
        if (!strcasecmp(value, plugin_words[i].word)) {
            *field = plugin_words[i].plugin;
            return NULL;
        }
    }
    return "expected autodetect, cgroup/v1, cgroup/v2 or disabled";
}

/* Slurm takes a float ("101.5"); we refuse signs, exponents, NaN. */
static const char *set_percent(double *field, const char *value)
{
    char *end;
    double v;

    if (strspn(value, "0123456789.") != strlen(value) || !*value)
        return "not a percentage";
    errno = 0;
    v = strtod(value, &end);
    if (errno || *end || !isfinite(v))
        return "not a percentage";
    *field = v;
    return NULL;
}

/* Set one keyword.  Returns NULL, or why not ("" for ENOMEM). */
static const char *set_cg_key(struct conf_cgroup *cg, const struct cg_key *k,
                              const char *value)
{
    void *field = (char *)cg + k->offset;

    if (!*value && k->type != CK_IGNORE) /* "Key=" restores the default */
        value = k->dflt;
    switch (k->type) {
    case CK_PLUGIN:
        return set_plugin(field, value);
    case CK_PATH:
        if (value[0] != '/')
            return "not an absolute path";
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    case CK_BOOL:
        return conf__parse_bool(value, field) < 0 ? "expected yes or no"
                                                   : NULL;
    case CK_PERCENT:
        return set_percent(field, value);
    case CK_MIB:
        return conf__parse_mib(value, field) < 0 ? "not a size in MiB"
                                                  : NULL;
    default:
        return k->why;
    }
}

static const char *set_cg_row(void *cg, const void *row, const char *value)
{
    return set_cg_key(cg, row, value);
}

static char ***cg_notices(void *cg, size_t **count)
{
    *count = &((struct conf_cgroup *)cg)->notice_count;
    return &((struct conf_cgroup *)cg)->notices;
}

static const struct conf_keytab cg_table = {
    cg_keys, CG_KEY_COUNT, sizeof(cg_keys[0]), set_cg_row, cg_notices,
};

static int cg_line(const struct conf_line *l, void *arg, drv_error_t *error)
{
    return conf__keytab_line(l, &cg_table, arg, error);
}

static int cg_defaults(struct conf_cgroup *cg)
{
    for (size_t i = 0; i < CG_KEY_COUNT; i++)
        if (cg_keys[i].dflt && set_cg_key(cg, &cg_keys[i], cg_keys[i].dflt))
            return -1; /* defaults are valid: only ENOMEM */
    return 0;
}

int conf_cgroup_parse(struct conf_cgroup *cg, const char *path,
                      const char *text, drv_error_t *error)
{
    struct conf_cgroup fresh = { 0 };
    char *dir = NULL;

    if (!cg || (text && !path)) {
        errno = EINVAL;
        return errprintf(error, "conf_cgroup_parse: no conf or no path");
    }
    if (cg_defaults(&fresh) < 0 || (text && !(fresh.path = strdup(path)))
        || (text && !(dir = conf__dir_of(path)))) {
        conf__enomem(error);
        goto error;
    }
    if (text && conf__lex(path, text, dir, cg_line, &fresh, error) < 0)
        goto error;
    free(dir);
    conf_cgroup_clear(cg);
    *cg = fresh;
    return 0;
error:
    free(dir);
    conf_cgroup_clear(&fresh);
    return -1;
}

void conf_cgroup_clear(struct conf_cgroup *cg)
{
    if (!cg)
        return;
    int saved_errno = errno;
    free(cg->path);
    free(cg->mountpoint);
    conf__notice_list_free(&cg->notices, &cg->notice_count);
    memset(cg, 0, sizeof(*cg));
    errno = saved_errno;
}

/* Whether the comma-separated 'list' has the word 'want'. */
static bool list_has(const char *list, const char *want)
{
    size_t n = strlen(want);

    while (list && *list) {
        size_t len = strcspn(list, ",");
        if (len == n && !strncasecmp(list, want, n))
            return true;
        list += len + (list[len] == ',');
    }
    return false;
}

bool conf_task_cgroup(const struct slurm_conf *conf)
{
    return conf && list_has(conf->task_plugin, "task/cgroup");
}

bool conf_task_affinity(const struct slurm_conf *conf)
{
    return conf && list_has(conf->task_plugin, "task/affinity");
}

bool conf_cgroup_in_use(const struct slurm_conf *conf)
{
    if (!conf || conf->cgroup.plugin == CONF_CGROUP_DISABLED)
        return false;
    return conf_task_cgroup(conf)
           || (conf->proctrack_type
               && !strcasecmp(conf->proctrack_type, "proctrack/cgroup"));
}
