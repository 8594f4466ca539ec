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
    DK_PURGE,    /* PurgeJobAfter= */
    DK_IGNORE,   /* a slurmdbd.conf keyword we accept and do not use */
};

struct dbd_key {
    const char *name;
    enum dbd_key_type type;
    size_t offset;   /* into struct dbd_conf */
    const char *why; /* DK_IGNORE: CONF_NO_EFFECT and why not used */
};

#define DF(f) offsetof(struct dbd_conf, f)
#define DKEY(name, type, field) { name, type, DF(field), NULL }
#define DIGNORED(name, why) { name, DK_IGNORE, 0, CONF_NO_EFFECT why }

#define NO_ARCHIVE "no archiving; PurgeJobAfter deletes old jobs"
#define NO_PURGE "only PurgeJobAfter is applied"
#define NO_TIMEOUT "droverdbd's own timeouts hold"

/* Every char * field except 'path' has exactly one row (freed through it). */
static const struct dbd_key dbd_keys[] = {
    DKEY("DbdHost",       DK_STRING,   dbd_host),
    DKEY("DbdAddr",       DK_STRING,   dbd_addr),
    DKEY("DbdPort",       DK_PORT,     dbd_port),
    DKEY("StorageType",   DK_STORAGE,  storage_type),
    DKEY("StorageHost",   DK_STRING,   storage_host),
    DKEY("StoragePort",   DK_PORT,     storage_port),
    DKEY("StorageUser",   DK_STRING,   storage_user),
    DKEY("StoragePass",   DK_STRING,   storage_pass),
    DKEY("StorageLoc",    DK_STRING,   storage_loc),
    DKEY("PurgeJobAfter", DK_PURGE,    purge_job_after),
    DKEY("SlurmUser",     DK_STRING,   slurm_user),
    DKEY("LogFile",       DK_STRING,   log_file),
    DKEY("PidFile",       DK_STRING,   pid_file),
    DKEY("PrivateData",   DK_STRING,   private_data),
    DKEY("DebugLevel",    DK_DEBUG,    debug_level),
    DKEY("AuthInfo",      DK_AUTHINFO, auth_socket),
    DKEY("AuthAltTypes",  DK_AUTH_ALT_TYPES, auth_alt_types),
    DKEY("AuthAltParameters", DK_AUTH_ALT_PARAMS, auth_alt_params),
    DKEY("CommunicationParameters", DK_STRING, comm_params),
    /* Accepted, not used: each given one is a notice (droverdbd logs it
     * at start) naming why.  AuthType=auth/munge is what Drover does. */
    DIGNORED("AllowNoDefAcct", "users without a default account are "
             "refused, as by Slurm's default"),
    DIGNORED("ArchiveDir", NO_ARCHIVE), DIGNORED("ArchiveEvents", NO_ARCHIVE),
    DIGNORED("ArchiveJobs", NO_ARCHIVE), DIGNORED("ArchiveResvs", NO_ARCHIVE),
    DIGNORED("ArchiveScript", NO_ARCHIVE),
    DIGNORED("ArchiveSteps", NO_ARCHIVE),
    DIGNORED("ArchiveSuspend", NO_ARCHIVE),
    DIGNORED("ArchiveTXN", NO_ARCHIVE), DIGNORED("ArchiveUsage", NO_ARCHIVE),
    DIGNORED("AuthType", "MUNGE authenticates droverdbd's callers"),
    DIGNORED("CommitDelay", "each change commits at once"),
    DIGNORED("DbdBackupHost", "one droverdbd; its clients spool while it "
             "is down"),
    DIGNORED("DebugFlags", "no debug flags; DebugLevel= sets the log"),
    DIGNORED("DebugLevelSyslog", "droverdbd logs to LogFile or stderr"),
    DIGNORED("LogTimeFormat", "log lines carry ISO 8601 times"),
    DIGNORED("MaxQueryTimeRange", "a query's time range is not limited"),
    DIGNORED("MessageTimeout", NO_TIMEOUT),
    DIGNORED("Parameters", "no slurmdbd parameters"),
    DIGNORED("PluginDir", "no plugins"),
    DIGNORED("PurgeEventAfter", NO_PURGE),
    DIGNORED("PurgeResvAfter", NO_PURGE), DIGNORED("PurgeStepAfter", NO_PURGE),
    DIGNORED("PurgeSuspendAfter", NO_PURGE),
    DIGNORED("PurgeTXNAfter", NO_PURGE), DIGNORED("PurgeUsageAfter", NO_PURGE),
    DIGNORED("StorageParameters", "the database's own settings hold"),
    DIGNORED("TCPTimeout", NO_TIMEOUT),
    DIGNORED("TrackSlurmctldDown", "no controller-down events"),
    DIGNORED("TrackWCKey", "no WCKeys"),
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

#define PURGE_FORM "expected N[hours|days|months]"

/* PurgeJobAfter=: a count and an optional unit, "hours", "days" or
 * "months" (the default; singular too, any case), as Slurm's
 * slurmdb_parse_purge(). */
static const char *set_purge(struct dbd_conf *c, const char *value)
{
    static const struct {
        const char *word;
        char unit;
    } units[] = {{"", 'm'},     {"hour", 'h'},  {"hours", 'h'},
                 {"day", 'd'},  {"days", 'd'},  {"month", 'm'},
                 {"months", 'm'}};
    char *end;
    unsigned long n;

    if (!*value) { /* "PurgeJobAfter=": no purge, Slurm's default */
        c->purge_job_n = 0;
        free(c->purge_job_after);
        c->purge_job_after = NULL;
        return NULL;
    }
    errno = 0;
    n = strtoul(value, &end, 10);
    if (end == value || errno || n == 0 || n > 100000 || value[0] == '-')
        return PURGE_FORM;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].word))
            continue;
        c->purge_job_n = (uint32_t)n;
        c->purge_job_unit = units[i].unit;
        return conf__set_string(&c->purge_job_after, value, strlen(value)) < 0
                   ? "" : NULL;
    }
    return PURGE_FORM;
}

time_t conf_dbd_purge_job_cutoff(const struct dbd_conf *conf, time_t now)
{
    struct tm tm;

    if (!conf->purge_job_n || !localtime_r(&now, &tm))
        return 0;
    tm.tm_sec = 0;
    tm.tm_min = 0;
    if (conf->purge_job_unit == 'h') {
        tm.tm_hour -= (int)conf->purge_job_n;
    } else {
        tm.tm_hour = 0;
        if (conf->purge_job_unit == 'd') {
            tm.tm_mday -= (int)conf->purge_job_n;
        } else {
            tm.tm_mday = 1;
            tm.tm_mon -= (int)conf->purge_job_n;
        }
    }
    tm.tm_isdst = -1;
    return mktime(&tm) - 1;
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
    case DK_PURGE:
        return set_purge(c, value);
    default:
        if (!strcasecmp(k->name, "AuthType")
            && !strcasecmp(value, "auth/munge"))
            return NULL; /* what Drover does */
        return k->why;
    }
}

static const char *set_dbd_row(void *c, const void *row, const char *value)
{
    return set_dbd_key(c, row, value);
}

static char ***dbd_notices(void *c, size_t **count)
{
    *count = &((struct dbd_conf *)c)->notice_count;
    return &((struct dbd_conf *)c)->notices;
}

static const struct conf_keytab dbd_table = {
    dbd_keys, DBD_KEY_COUNT, sizeof(dbd_keys[0]), set_dbd_row, dbd_notices,
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

/* CommunicationParameters= read by slurm.conf's rules (conf_comm_params.c)
 * into c->tls. */
static int dbd_comm_params(struct dbd_conf *c, drv_error_t *error)
{
    struct slurm_conf *sc;
    int rc;

    if (!c->comm_params)
        return 0;
    if (!(sc = calloc(1, sizeof(*sc))))
        return conf__enomem(error);
    sc->path = c->path;
    sc->comm_params = c->comm_params;
    if ((rc = conf__comm_params(sc, error)) == 0)
        c->tls = sc->tls;
    else
        conf_tls_clear(&sc->tls);
    free(sc);
    return rc;
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
    return dbd_comm_params(c, error);
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
    conf_tls_clear(&conf->tls);
    conf__notice_list_free(&conf->notices, &conf->notice_count);
    free(conf);
    errno = saved_errno;
}
