/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_dbd.h - slurmdbd.conf, the accounting daemon's configuration
 *
 * Same line syntax as slurm.conf (conf_lexer.c).  The file holds the
 * database password, so droverdbd runs only from a file of mode 0600
 * owned by its own user (conf_dbd_check_file), as Slurm's slurmdbd.
 */
#ifndef DROVER_CONF_CONF_DBD_H
#define DROVER_CONF_CONF_DBD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/error.h"
#include "conf/conf_tls.h"

enum dbd_storage {
    DBD_STORAGE_SQLITE, /* accounting_storage/sqlite (Drover's default) */
    DBD_STORAGE_PGSQL,  /* accounting_storage/pgsql */
};

#define DBD_SQLITE_DEFAULT_LOC "/var/lib/drover/slurm_acct_db.sqlite"
#define DBD_PGSQL_DEFAULT_LOC "slurm_acct_db" /* Slurm's database name */

struct dbd_conf {
    char *path;            /* the file read */
    char *dbd_host;        /* DbdHost=, "localhost" */
    char *dbd_addr;        /* DbdAddr=, else DbdHost */
    uint16_t dbd_port;     /* DbdPort=, 6819 */
    enum dbd_storage storage; /* from StorageType= */
    char *storage_type;    /* StorageType=, "accounting_storage/sqlite" */
    char *storage_host;    /* StorageHost= (pgsql host or socket dir) */
    uint16_t storage_port; /* StoragePort=, 0: the server's default */
    char *storage_user;    /* StorageUser=, or NULL */
    char *storage_pass;    /* StoragePass=, or NULL */
    char *storage_loc;     /* StorageLoc=: sqlite file path, pgsql database;
                            * defaults: DBD_SQLITE_DEFAULT_LOC, and
                            * "slurm_acct_db" */
    char *purge_job_after; /* PurgeJobAfter= as written ("12months"), or NULL */
    uint32_t purge_job_n;  /* PurgeJobAfter='s count of units; 0: none */
    char purge_job_unit;   /* its unit: 'h' hours, 'd' days, 'm' months */
    char *slurm_user;      /* SlurmUser=, "root" */
    char *log_file;        /* LogFile=, or NULL (stderr) */
    char *pid_file;        /* PidFile=, or NULL */
    char *private_data;    /* PrivateData=, or NULL (Drover: "jobs") */
    char *debug_level;     /* DebugLevel=, "info" */
    char *auth_socket;     /* AuthInfo=socket=PATH, or NULL (munge default) */
    char *auth_alt_types;  /* AuthAltTypes= ("auth/jwt"), or NULL */
    char *auth_alt_params; /* AuthAltParameters= (jwt_key= required with
                            * auth/jwt), or NULL; conf_auth_jwt_from() */
    char *comm_params;     /* CommunicationParameters=, or NULL: read as
                            * slurm.conf's (drover_tls_* items; Slurm's
                            * accepted, no effect) */
    struct conf_tls tls;   /* its drover_tls_* items (drover_tls_rpc:
                            * droverdbd serves TLS) */
    /* "slurmdbd.conf:LINE: Key=value has no effect in Drover: why", one
     * per keyword given that Drover accepts and does not use, in file
     * order: droverdbd logs them at start. */
    char **notices;
    size_t notice_count;
};

/* The time before which PurgeJobAfter purges jobs, as Slurm's slurmdbd
 * computes it at 'now': the start of the current hour, day or month (local
 * time, by the unit) less the count of units, less one second.  Jobs
 * submitted at or before it that have ended are purged.  Returns the time,
 * or 0 when the conf purges nothing. */
time_t conf_dbd_purge_job_cutoff(const struct dbd_conf *conf, time_t now);

/* Where slurmdbd.conf is: $DROVER_DBD_CONF, else slurmdbd.conf in the
 * directory of $DROVER_CONF, else DROVER_SYSCONFDIR/slurmdbd.conf.
 * Caller frees.
 */
char *conf_dbd_default_path(void);

/* Read slurmdbd.conf at 'path' (NULL: conf_dbd_default_path()).  Unknown
 * keywords are logged as "path:line: unknown keyword".  Returns a new conf
 * (free with conf_dbd_destroy), or NULL with errno (EINVAL: a bad value,
 * e.g. StorageType=accounting_storage/mysql; open()'s errno; ENOMEM) and
 * 'error' naming file, line and keyword.
 */
struct dbd_conf *conf_dbd_load(const char *path, drv_error_t *error);

/* Parse text already read from 'path' (used in messages).  As above. */
struct dbd_conf *conf_dbd_parse(const char *path, const char *text,
                                drv_error_t *error);

/* Refuse a slurmdbd.conf that others may read or write, or that 'uid' does
 * not own.  Returns 0, or -1 with errno (EPERM, or stat()'s) and 'error'
 * saying which rule it breaks, to follow "slurmdbd.conf file PATH "
 * (Slurm's words: "should be 600 is 644 accessible for group or others").
 */
int conf_dbd_check_file(const char *path, uid_t uid, drv_error_t *error);

/* Is 'what' ("jobs", "usage"...) private under PrivateData=?  Without
 * PrivateData= Drover keeps jobs private; PrivateData=none makes nothing
 * private.
 */
bool conf_dbd_private(const struct dbd_conf *conf, const char *what);

/* NULL is a no-op; errno is preserved. */
void conf_dbd_destroy(struct dbd_conf *conf);

#endif /* !DROVER_CONF_CONF_DBD_H */
