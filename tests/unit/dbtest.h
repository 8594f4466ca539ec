/* SPDX-License-Identifier: Apache-2.0
 *
 * dbtest.h - a fresh accounting database for droverdbd's storage tests
 *
 * `test_x` runs on a new SQLite file; `test_x pgsql` on the PostgreSQL
 * server named by DROVER_TEST_PG_HOST/_PORT/_USER/_DB (tests/pg_private.sh
 * run starts a private one), with every table dropped first.  Either way
 * the schema is migrated to the latest version.  Header-only (each test is
 * one file): dbtest_setup/dbtest_teardown as cmocka fixtures, dbtest_main
 * to pick the backend from argv.
 */
#ifndef DROVER_TESTS_UNIT_DBTEST_H
#define DROVER_TESTS_UNIT_DBTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dbd/db.h"
#include "dbd/schema.h"

static struct db_target dbtest_target;
static char dbtest_sqlite[] = "/tmp/drover-test-db-XXXXXX";

/* Every table of every schema version, a table before those it refers
 * to.  A new table in schema.c gets a line here. */
static const char *const dbtest_tables[] = {
    "usage_hour", "usage_day", "usage_month", "usage_state",
    "cluster_usage_hour", "cluster_usage_day", "cluster_usage_month",
    "cluster_tres", "reservation", "assoc", "acct_user", "acct", "qos",
    "acct_meta",
    "step", "job", "cluster", "schema_version",
};

/* cmocka fixture: *state = an open database at the latest schema. */
__attribute__((unused)) static int dbtest_setup(void **state)
{
    drv_error_t error = {{0}};
    char sql[64];
    db_t *db;

    if (dbtest_target.backend == DB_SQLITE) {
        int fd = mkstemp(dbtest_sqlite);
        if (fd < 0)
            return -1;
        close(fd);
        dbtest_target.loc = dbtest_sqlite;
    }
    if (!(db = db_open(&dbtest_target, &error))) {
        fprintf(stderr, "db_open: %s\n", error.text);
        return -1;
    }
    for (size_t i = 0; i < sizeof(dbtest_tables) / sizeof(*dbtest_tables);
         i++) {
        snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s",
                 dbtest_tables[i]);
        if (db_exec(db, sql, NULL, 0, &error) < 0) {
            fprintf(stderr, "%s: %s\n", sql, error.text);
            db_close(db);
            return -1;
        }
    }
    if (schema_migrate(db, NULL, &error) < 0) {
        fprintf(stderr, "migrate: %s\n", error.text);
        db_close(db);
        return -1;
    }
    *state = db;
    return 0;
}

/* cmocka fixture: close, and remove the SQLite file (and its WAL). */
__attribute__((unused)) static int dbtest_teardown(void **state)
{
    db_close(*state);
    if (dbtest_target.backend == DB_SQLITE) {
        char path[64];
        unlink(dbtest_sqlite);
        snprintf(path, sizeof(path), "%s-wal", dbtest_sqlite);
        unlink(path);
        snprintf(path, sizeof(path), "%s-shm", dbtest_sqlite);
        unlink(path);
        strcpy(dbtest_sqlite + strlen(dbtest_sqlite) - 6, "XXXXXX");
    }
    return 0;
}

/* Run 'tests' on the backend argv[1] names ("pgsql", else SQLite), with
 * group fixtures 'setup'/'teardown' (may be NULL).  Without the
 * DROVER_TEST_PG_* settings the pgsql run is a TAP skip. */
__attribute__((unused)) static int
dbtest_main(int argc, char **argv, const struct CMUnitTest *tests, size_t n,
            CMFixtureFunction setup, CMFixtureFunction teardown)
{
    cmocka_set_message_output(CM_OUTPUT_TAP);
    if (argc > 1 && !strcmp(argv[1], "pgsql")) {
        const char *port = getenv("DROVER_TEST_PG_PORT");

        dbtest_target = (struct db_target){
            .backend = DB_PGSQL, .host = getenv("DROVER_TEST_PG_HOST"),
            .port = port ? (unsigned)atoi(port) : 0,
            .user = getenv("DROVER_TEST_PG_USER"),
            .loc = getenv("DROVER_TEST_PG_DB")};
        if (!dbtest_target.host || !dbtest_target.loc) {
            printf("1..0 # SKIP DROVER_TEST_PG_HOST and _DB not set (run "
                   "through tests/pg_private.sh run)\n");
            return 0;
        }
        return _cmocka_run_group_tests("pgsql", tests, n, setup, teardown);
    }
    dbtest_target.backend = DB_SQLITE;
    return _cmocka_run_group_tests("sqlite", tests, n, setup, teardown);
}

#endif /* !DROVER_TESTS_UNIT_DBTEST_H */
