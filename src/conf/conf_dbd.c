/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_dbd.c - slurmdbd.conf: the table of keywords and the file checks
 *
 * Drover stores accounting in SQLite (embedded default) or PostgreSQL;
 * StorageType=accounting_storage/mysql, Slurm's usual one, is refused with
 * a message saying so rather than being taken for something else.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/log.h"
#include "conf/conf.h"
#include "conf/conf_dbd.h"
#include "conf/conf_private.h"

enum dbd_key_type {
    DK_STRING,
    DK_PORT,
    DK_DEBUG,
    DK_STORAGE,  /* StorageType= */
    DK_AUTHINFO,
    DK_AUTH_ALT_TYPES,  /* checked (conf_auth.c) */
    DK_AUTH_ALT_PARAMS, /* checked (conf_auth.c) */
    DK_IGNORE,   /* a slurmdbd.conf keyword we accept and do not use */
};

struct dbd_key {
    const char *name;
    enum dbd_key_type type;
    size_t offset; /* into struct dbd_conf */
};

#define DF(f) offsetof(struct dbd_conf, f)
#define DIGNORED(name) { name, DK_IGNORE, 0 }

/* Every char * field except 'path' has exactly one row (freed through it). */
static const struct dbd_key dbd_keys[] = {
    { "DbdHost",       DK_STRING,   DF(dbd_host) },
    { "DbdAddr",       DK_STRING,   DF(dbd_addr) },
    { "DbdPort",       DK_PORT,     DF(dbd_port) },
    { "StorageType",   DK_STORAGE,  DF(storage_type) },
    { "StorageHost",   DK_STRING,   DF(storage_host) },
    { "StoragePort",   DK_PORT,     DF(storage_port) },
    { "StorageUser",   DK_STRING,   DF(storage_user) },
    { "StoragePass",   DK_STRING,   DF(storage_pass) },
    { "StorageLoc",    DK_STRING,   DF(storage_loc) },
    { "PurgeJobAfter", DK_STRING,   DF(purge_job_after) },
    { "SlurmUser",     DK_STRING,   DF(slurm_user) },
    { "LogFile",       DK_STRING,   DF(log_file) },
    { "PidFile",       DK_STRING,   DF(pid_file) },
    { "PrivateData",   DK_STRING,   DF(private_data) },
    { "DebugLevel",    DK_DEBUG,    DF(debug_level) },
    { "AuthInfo",      DK_AUTHINFO, DF(auth_socket) },
    { "AuthAltTypes",  DK_AUTH_ALT_TYPES, DF(auth_alt_types) },
    { "AuthAltParameters", DK_AUTH_ALT_PARAMS, DF(auth_alt_params) },
    DIGNORED("AllowNoDefAcct"), DIGNORED("ArchiveDir"),
    DIGNORED("ArchiveEvents"), DIGNORED("ArchiveJobs"),
    DIGNORED("ArchiveResvs"), DIGNORED("ArchiveScript"),
    DIGNORED("ArchiveSteps"), DIGNORED("ArchiveSuspend"),
    DIGNORED("ArchiveTXN"), DIGNORED("ArchiveUsage"),
    DIGNORED("AuthType"), DIGNORED("CommitDelay"),
    DIGNORED("CommunicationParameters"), DIGNORED("DbdBackupHost"),
    DIGNORED("DebugFlags"), DIGNORED("DebugLevelSyslog"),
    DIGNORED("LogTimeFormat"), DIGNORED("MaxQueryTimeRange"),
    DIGNORED("MessageTimeout"), DIGNORED("Parameters"),
    DIGNORED("PluginDir"), DIGNORED("PurgeEventAfter"),
    DIGNORED("PurgeResvAfter"), DIGNORED("PurgeStepAfter"),
    DIGNORED("PurgeSuspendAfter"), DIGNORED("PurgeTXNAfter"),
    DIGNORED("PurgeUsageAfter"), DIGNORED("StorageParameters"),
    DIGNORED("TCPTimeout"), DIGNORED("TrackSlurmctldDown"),
    DIGNORED("TrackWCKey"),
};

#define DBD_KEY_COUNT (sizeof(dbd_keys) / sizeof(dbd_keys[0]))

static const struct {
    const char *name;
    enum dbd_storage storage;
} storage_types[] = {
    { "accounting_storage/sqlite", DBD_STORAGE_SQLITE },
    { "accounting_storage/pgsql", DBD_STORAGE_PGSQL },
};

static const char *set_storage(struct dbd_conf *c, const char *value)
{
    for (size_t i = 0; i < sizeof(storage_types) / sizeof(storage_types[0]);
         i++) {
        if (!strcasecmp(value, storage_types[i].name)) {
            c->storage = storage_types[i].storage;
            return conf__set_string(&c->storage_type, storage_types[i].name,
                                    strlen(storage_types[i].name)) < 0
                       ? "" : NULL;
        }
    }
    if (!strcasecmp(value, "accounting_storage/mysql")) {
        /* Said apart: the error line, with a long path, may be cut. */
        log_error("StorageType=accounting_storage/mysql: Drover stores "
                  "accounting in SQLite or PostgreSQL");
        return "not supported (use accounting_storage/sqlite or "
               "accounting_storage/pgsql)";
    }
    return "expected accounting_storage/sqlite or accounting_storage/pgsql";
}

static const char *const string_defaults[][2] = {
    { "DbdHost", "localhost" },
    { "DbdPort", "6819" },
    { "StorageType", "accounting_storage/sqlite" },
    { "SlurmUser", "root" },
    { "DebugLevel", "info" },
};

/* The default of keyword 'name' ("DbdHost": "localhost"), or NULL. */
static const char *string_default(const char *name)
{
    size_t n = sizeof(string_defaults) / sizeof(string_defaults[0]);

    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(string_defaults[i][0], name))
            return string_defaults[i][1];
    return NULL;
}

static const char *set_dbd_key(struct dbd_conf *c, const struct dbd_key *k,
                               const char *value)
{
    void *field = (char *)c + k->offset;

    /* "Key=" restores the default: the daemon never sees a key it needs
     * (DbdHost, SlurmUser, DebugLevel...) unset. */
    if (!*value && string_default(k->name))
        value = string_default(k->name);
    switch (k->type) {
    case DK_STRING:
        if (!*value) { /* "Key=" restores the default */
            free(*(char **)field);
            *(char **)field = NULL;
            return NULL;
        }
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    case DK_PORT:
        return conf__set_port(field, value);
    case DK_DEBUG:
        return conf__set_debug(field, value);
    case DK_STORAGE:
        return set_storage(c, value);
    case DK_AUTHINFO:
        return conf__set_authinfo(field, value);
    case DK_AUTH_ALT_TYPES:
        return conf__set_auth_alt_types(field, value);
    case DK_AUTH_ALT_PARAMS:
        return conf__set_auth_alt_params(field, value);
    default:
        return NULL;
    }
}

static const char *set_dbd_row(void *c, const void *row, const char *value)
{
    return set_dbd_key(c, row, value);
}

static const struct conf_keytab dbd_table = {
    dbd_keys, DBD_KEY_COUNT, sizeof(dbd_keys[0]), set_dbd_row,
};

static int dbd_line(const struct conf_line *l, void *arg, drv_error_t *error)
{
    return conf__keytab_line(l, &dbd_table, arg, error);
}


static struct dbd_conf *dbd_create(const char *path)
{
    struct dbd_conf *c = calloc(1, sizeof(*c));
    size_t n = sizeof(string_defaults) / sizeof(string_defaults[0]);

    if (!c || !(c->path = strdup(path)))
        goto error;
    for (size_t i = 0; i < n; i++)
        if (set_dbd_key(c, conf__key_find(&dbd_table, string_defaults[i][0]),
                        string_defaults[i][1]) != NULL)
            goto error;
    return c;
error:
    conf_dbd_destroy(c);
    errno = ENOMEM;
    return NULL;
}

/* Defaults that depend on other keywords. */
static int dbd_finish(struct dbd_conf *c, drv_error_t *error)
{
    const char *loc = c->storage == DBD_STORAGE_SQLITE ? DBD_SQLITE_DEFAULT_LOC
                                                       : DBD_PGSQL_DEFAULT_LOC;

    if ((!c->dbd_addr && !(c->dbd_addr = strdup(c->dbd_host)))
        || (!c->storage_loc && !(c->storage_loc = strdup(loc))))
        return conf__enomem(error);
    /* slurmdbd has no state directory to find a default key in. */
    if (c->auth_alt_types && *c->auth_alt_types
        && !(c->auth_alt_params && strcasestr(c->auth_alt_params,
                                              "jwt_key="))) {
        errno = EINVAL;
        return errprintf(error, "%s: AuthAltTypes=auth/jwt needs "
                         "AuthAltParameters=jwt_key=PATH", c->path);
    }
    return 0;
}

struct dbd_conf *conf_dbd_parse(const char *path, const char *text,
                                drv_error_t *error)
{
    struct dbd_conf *c;
    char *dir;

    if (!path || !text) {
        errno = EINVAL;
        errprintf(error, "conf_dbd_parse: no path or no text");
        return NULL;
    }
    if (!(c = dbd_create(path))) {
        conf__enomem(error);
        return NULL;
    }
    dir = conf__dir_of(path);
    if (!dir || conf__lex(path, text, dir, dbd_line, c, error) < 0
        || dbd_finish(c, error) < 0) {
        if (!dir)
            conf__enomem(error);
        free(dir);
        conf_dbd_destroy(c);
        return NULL;
    }
    free(dir);
    return c;
}

char *conf_dbd_default_path(void)
{
    const char *env = getenv("DROVER_DBD_CONF");
    const char *conf = conf_env_path();
    const char *slash = conf ? strrchr(conf, '/') : NULL;
    char *path = NULL;

    if (env && env[0])
        return strdup(env);
    if (slash && asprintf(&path, "%.*s/slurmdbd.conf", (int)(slash - conf),
                          conf) < 0)
        return NULL;
    if (conf && conf[0] && !slash)
        return strdup("slurmdbd.conf");
    return path ? path : strdup(DROVER_SYSCONFDIR "/slurmdbd.conf");
}

struct dbd_conf *conf_dbd_load(const char *path, drv_error_t *error)
{
    char *dflt = path ? NULL : conf_dbd_default_path();
    struct dbd_conf *c = NULL;
    char *text;

    if (!path && !(path = dflt)) {
        conf__enomem(error);
        return NULL;
    }
    if (!(text = conf__read_file(path))) {
        int saved_errno = errno;
        errprintf(error, "cannot open %s: %s", path, strerror(saved_errno));
        errno = saved_errno;
    } else {
        c = conf_dbd_parse(path, text, error);
    }
    int saved_errno = errno;
    free(text);
    free(dflt);
    errno = saved_errno;
    return c;
}

int conf_dbd_check_file(const char *path, uid_t uid, drv_error_t *error)
{
    struct stat st;

    if (stat(path, &st) < 0)
        return errprintf(error, "cannot stat %s: %s", path, strerror(errno));
    errno = EPERM;
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        return errprintf(error, "should be 600 is %o accessible for group "
                         "or others", (unsigned)(st.st_mode & 0777));
    if (st.st_uid != uid)
        return errprintf(error, "is owned by uid %u, not by uid %u that "
                         "droverdbd runs as", (unsigned)st.st_uid,
                         (unsigned)uid);
    return 0;
}

bool conf_dbd_private(const struct dbd_conf *conf, const char *what)
{
    const char *list = conf->private_data ? conf->private_data : "jobs";
    size_t n = strlen(what);

    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncasecmp(p, what, n))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

void conf_dbd_destroy(struct dbd_conf *conf)
{
    if (!conf)
        return;
    int saved_errno = errno;
    for (size_t i = 0; i < DBD_KEY_COUNT; i++) {
        enum dbd_key_type t = dbd_keys[i].type;
        if (t != DK_PORT && t != DK_IGNORE)
            free(*(char **)((char *)conf + dbd_keys[i].offset));
    }
    free(conf->path);
    free(conf);
    errno = saved_errno;
}
