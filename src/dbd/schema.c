/* SPDX-License-Identifier: Apache-2.0
 *
 * schema.c - versioned schema: ordered migrations, applied at start
 *
 * Migration steps are plain SQL that both backends run; the token "@PK@"
 * stands for the backend's auto-increment primary key (db_pk_type()).  To
 * change the schema, append a migration: never edit one that has shipped.
 * Later versions (associations, QOS, usage rollups) go after version 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "dbd/assoc_store.h"
#include "dbd/schema.h"
#include "dbd/usage_store.h"

struct migration {
    int version;
    const char *what;
    const char *const *steps; /* NULL-terminated */
};

/* Version 1: clusters, jobs, steps (docs/protocol.md, "Accounting job
 * record").  Column names avoid SQL keywords (user, group, partition).
 */
static const char *const v1_steps[] = {
    "CREATE TABLE cluster ("
    " id @PK@,"
    " name TEXT NOT NULL UNIQUE,"
    " created BIGINT NOT NULL)",
    "CREATE TABLE job ("
    " id @PK@,"
    " cluster_id BIGINT NOT NULL REFERENCES cluster(id),"
    " job_id BIGINT NOT NULL,"
    " array_job_id BIGINT NOT NULL DEFAULT 0,"
    " array_task_id BIGINT NOT NULL DEFAULT -1,"
    " submit_time BIGINT NOT NULL DEFAULT 0,"
    " eligible_time BIGINT NOT NULL DEFAULT 0,"
    " start_time BIGINT NOT NULL DEFAULT 0,"
    " end_time BIGINT NOT NULL DEFAULT 0,"
    " name TEXT NOT NULL DEFAULT '',"
    " uid BIGINT NOT NULL DEFAULT 0,"
    " user_name TEXT NOT NULL DEFAULT '',"
    " gid BIGINT NOT NULL DEFAULT 0,"
    " group_name TEXT NOT NULL DEFAULT '',"
    " account TEXT NOT NULL DEFAULT '',"
    " qos TEXT NOT NULL DEFAULT '',"
    " part_name TEXT NOT NULL DEFAULT '',"
    " state TEXT NOT NULL DEFAULT '',"
    " cancelled_by BIGINT,"
    " exit_status BIGINT NOT NULL DEFAULT 0,"
    " derived_exit_status BIGINT NOT NULL DEFAULT 0,"
    " nodes TEXT NOT NULL DEFAULT '',"
    " nnodes BIGINT NOT NULL DEFAULT 0,"
    " ncpus BIGINT NOT NULL DEFAULT 0,"
    " req_cpus BIGINT NOT NULL DEFAULT 0,"
    " req_mem_mib BIGINT NOT NULL DEFAULT 0,"
    " req_mem_per_cpu BIGINT NOT NULL DEFAULT 0,"
    " time_limit_min BIGINT NOT NULL DEFAULT -1,"
    " priority BIGINT NOT NULL DEFAULT 0,"
    " reason TEXT NOT NULL DEFAULT '',"
    " work_dir TEXT NOT NULL DEFAULT '',"
    " comment TEXT NOT NULL DEFAULT '',"
    " constraints TEXT NOT NULL DEFAULT '',"
    " req_tres TEXT NOT NULL DEFAULT '',"
    " alloc_tres TEXT NOT NULL DEFAULT '',"
    " UNIQUE (cluster_id, job_id, submit_time))",
    "CREATE INDEX job_end ON job (end_time)",
    "CREATE INDEX job_eligible ON job (eligible_time)",
    "CREATE INDEX job_uid ON job (uid)",
    "CREATE INDEX job_array ON job (array_job_id)",
    "CREATE TABLE step ("
    " id @PK@,"
    " job_ref BIGINT NOT NULL REFERENCES job(id),"
    " step_id BIGINT NOT NULL,"
    " name TEXT NOT NULL DEFAULT '',"
    " state TEXT NOT NULL DEFAULT '',"
    " exit_status BIGINT NOT NULL DEFAULT 0,"
    " start_time BIGINT NOT NULL DEFAULT 0,"
    " end_time BIGINT NOT NULL DEFAULT 0,"
    " nodes TEXT NOT NULL DEFAULT '',"
    " nnodes BIGINT NOT NULL DEFAULT 0,"
    " ntasks BIGINT NOT NULL DEFAULT 0,"
    " ncpus BIGINT NOT NULL DEFAULT 0,"
    " alloc_tres TEXT NOT NULL DEFAULT '',"
    " max_rss_kib BIGINT NOT NULL DEFAULT -1,"
    " max_rss_node TEXT NOT NULL DEFAULT '',"
    " max_rss_task BIGINT NOT NULL DEFAULT -1,"
    " user_cpu_us BIGINT NOT NULL DEFAULT 0,"
    " sys_cpu_us BIGINT NOT NULL DEFAULT 0,"
    " UNIQUE (job_ref, step_id))",
    NULL,
};

/* Suspended jobs: seconds suspended, and when the suspension under way
 * began (sacct's Suspended; Elapsed leaves it out). */
static const char *const v4_suspended[] = {
    "ALTER TABLE job ADD COLUMN suspended_s BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE job ADD COLUMN suspend_time BIGINT NOT NULL DEFAULT 0",
    NULL,
};

/* An array's record of the tasks not yet split off (Slurm's meta
 * record): those tasks, as sacct's JobID N_[2-9%2] shows them. */
static const char *const v7_array_task_str[] = {
    "ALTER TABLE job ADD COLUMN array_task_str TEXT NOT NULL DEFAULT ''",
    NULL,
};

static const struct migration migrations[] = {
    {1, "clusters, jobs and steps", v1_steps},
    {2, "associations, QOS and users", assoc_schema_v2},
    {3, "usage rollups and cluster capacity", usage_schema_v3},
    {4, "time suspended", v4_suspended},
    {5, "planned time", usage_schema_v5},
    {6, "reservations and planned down time", usage_schema_v6},
    {7, "pending array tasks", v7_array_task_str},
};

#define MIGRATION_COUNT (sizeof(migrations) / sizeof(migrations[0]))

int schema_latest(void)
{
    return migrations[MIGRATION_COUNT - 1].version;
}

/* 'sql' with "@PK@" replaced by the backend's key type.  Caller frees. */
static char *expand_tokens(db_t *db, const char *sql)
{
    const char *tok = strstr(sql, "@PK@");
    char *out = xstrdup(sql), *next;

    while (tok) {
        size_t at = (size_t)(tok - sql);
        next = xasprintf("%.*s%s%s", (int)at, sql, db_pk_type(db), tok + 4);
        free(out);
        out = next;
        sql = out;
        tok = strstr(sql, "@PK@");
    }
    return out;
}

static int current_version(db_t *db, int *version, drv_error_t *error)
{
    int64_t v = 0;

    if (db_exec(db, "CREATE TABLE IF NOT EXISTS schema_version ("
                    " version BIGINT NOT NULL PRIMARY KEY,"
                    " applied BIGINT NOT NULL)",
                NULL, 0, error)
            < 0
        || db_query_int(db, "SELECT COALESCE(MAX(version), 0) "
                            "FROM schema_version",
                        NULL, 0, &v, error)
               < 0)
        return -1;
    *version = (int)v;
    return 0;
}

static int apply(db_t *db, const struct migration *m, drv_error_t *error)
{
    drv_error_t why = {{0}};
    struct db_param p[] = {DB_INT(m->version), DB_INT(time(NULL))};

    if (db_begin(db, &why) < 0)
        goto fail;
    for (const char *const *s = m->steps; *s; s++) {
        char *sql = expand_tokens(db, *s);
        int rc = db_exec(db, sql, NULL, 0, &why);
        free(sql);
        if (rc < 0)
            goto fail;
    }
    if (db_exec(db, "INSERT INTO schema_version (version, applied) "
                    "VALUES (?, ?)", p, 2, &why) < 0
        || db_commit(db, &why) < 0)
        goto fail;
    log_info("accounting schema migrated to version %d (%s)", m->version,
             m->what);
    return 0;
fail:
    db_rollback(db);
    return errprintf(error, "schema migration to version %d (%s): %s",
                     m->version, m->what, why.text);
}

int schema_migrate(db_t *db, int *version, drv_error_t *error)
{
    int v;

    if (current_version(db, &v, error) < 0)
        return -1;
    if (v > schema_latest()) {
        errno = EPROTO;
        return errprintf(error, "the accounting database has schema version "
                         "%d, newer than this droverdbd's %d", v,
                         schema_latest());
    }
    for (size_t i = 0; i < MIGRATION_COUNT; i++) {
        if (migrations[i].version > v) {
            if (apply(db, &migrations[i], error) < 0)
                return -1;
            v = migrations[i].version;
        }
    }
    if (version)
        *version = v;
    return 0;
}
