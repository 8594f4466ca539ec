/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_dbd.c - slurmdbd.conf parsing and the file checks
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf_dbd.h"

static void keys_are_read(void **state)
{
    drv_error_t error = {{0}};
    struct dbd_conf *c = conf_dbd_parse(
        "/etc/slurm/slurmdbd.conf",
        "# comment\n"
        "DbdHost=dbd1\nDbdPort=7031\n"
        "StorageType=accounting_storage/pgsql\nStorageHost=db.example\n"
        "StoragePort=5433\nStorageUser=slurm\nStoragePass=\"s3 cret\"\n"
        "StorageLoc=acct\nPurgeJobAfter=12months\nSlurmUser=slurm\n"
        "DebugLevel=debug2\nPrivateData=usage,users\nNoSuchKey=1\n",
        &error);

    (void)state;
    assert_non_null(c);
    assert_string_equal(c->dbd_host, "dbd1");
    assert_string_equal(c->dbd_addr, "dbd1");
    assert_int_equal(c->dbd_port, 7031);
    assert_int_equal(c->storage, DBD_STORAGE_PGSQL);
    assert_string_equal(c->storage_host, "db.example");
    assert_int_equal(c->storage_port, 5433);
    assert_string_equal(c->storage_pass, "s3 cret");
    assert_string_equal(c->storage_loc, "acct");
    assert_string_equal(c->purge_job_after, "12months");
    assert_string_equal(c->debug_level, "debug2");
    assert_false(conf_dbd_private(c, "jobs"));
    assert_true(conf_dbd_private(c, "users"));
    conf_dbd_destroy(c);
}

/* PurgeJobAfter's forms and its cutoff, as Slurm's slurmdbd: the start
 * of the unit (local time) less N units, less a second. */
static void purge_job_after_forms_and_cutoff(void **state)
{
    static const struct {
        const char *value;
        uint32_t n;
        char unit;
    } ok[] = {{"12", 12, 'm'},      {"12months", 12, 'm'},
              {"1Month", 1, 'm'},   {"30days", 30, 'd'},
              {"1day", 1, 'd'},     {"720HOURS", 720, 'h'}};
    static const char *const bad[] = {"12weeks", "0", "-1days", "days",
                                      "1.5days"};
    drv_error_t error = {{0}};
    struct tm tm = {.tm_year = 126, .tm_mon = 10, .tm_mday = 28,
                    .tm_hour = 15, .tm_min = 37, .tm_sec = 12,
                    .tm_isdst = -1};
    time_t now = mktime(&tm), cut;
    struct dbd_conf *c;
    char text[64];

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        snprintf(text, sizeof(text), "PurgeJobAfter=%s\n", ok[i].value);
        assert_non_null(c = conf_dbd_parse("d.conf", text, &error));
        assert_int_equal(c->purge_job_n, ok[i].n);
        assert_int_equal(c->purge_job_unit, ok[i].unit);
        cut = conf_dbd_purge_job_cutoff(c, now);
        assert_non_null(localtime_r(&cut, &tm));
        /* one second before a unit's start */
        assert_int_equal(tm.tm_sec, 59);
        assert_int_equal(tm.tm_min, 59);
        if (ok[i].unit == 'h') /* 720 hours before 15:00 */
            assert_int_equal(now - cut, 720 * 3600 + 37 * 60 + 12 + 1);
        else
            assert_int_equal(tm.tm_hour, 23);
        if (ok[i].unit == 'm') /* Oct 31 2025 or Sep 30 2026 */
            assert_int_equal(tm.tm_mday, ok[i].n == 12 ? 31 : 30);
        conf_dbd_destroy(c);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(text, sizeof(text), "PurgeJobAfter=%s\n", bad[i]);
        assert_null(conf_dbd_parse("d.conf", text, &error));
        assert_non_null(strstr(error.text, "expected N[hours|days|months]"));
    }
    assert_non_null(c = conf_dbd_parse("d.conf", "", &error));
    assert_int_equal(conf_dbd_purge_job_cutoff(c, now), 0); /* no purge */
    conf_dbd_destroy(c);
}

static void defaults_are_sqlite_and_private_jobs(void **state)
{
    drv_error_t error = {{0}};
    struct dbd_conf *c = conf_dbd_parse("slurmdbd.conf", "", &error);

    (void)state;
    assert_non_null(c);
    assert_int_equal(c->storage, DBD_STORAGE_SQLITE);
    assert_string_equal(c->storage_loc, DBD_SQLITE_DEFAULT_LOC);
    assert_int_equal(c->dbd_port, 6819);
    assert_string_equal(c->slurm_user, "root");
    assert_true(conf_dbd_private(c, "jobs"));
    conf_dbd_destroy(c);
}

static void mysql_is_refused_with_a_reason(void **state)
{
    drv_error_t error = {{0}};

    (void)state;
    errno = 0;
    assert_null(conf_dbd_parse("d.conf",
                               "StorageType=accounting_storage/mysql\n",
                               &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "d.conf:1: StorageType="));
    assert_non_null(strstr(error.text, "accounting_storage/pgsql"));
}

static void a_bad_port_names_file_line_and_key(void **state)
{
    drv_error_t error = {{0}};

    (void)state;
    assert_null(conf_dbd_parse("d.conf", "\nDbdPort=abc\n", &error));
    assert_string_equal(error.text, "d.conf:2: DbdPort=abc: not a port number");
}

static void file_must_be_0600_and_ours(void **state)
{
    char path[] = "/tmp/drover-test-conf-dbd-XXXXXX";
    drv_error_t error = {{0}};
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(conf_dbd_check_file(path, geteuid(), &error), 0);
    assert_int_equal(chmod(path, 0640), 0);
    errno = 0;
    assert_int_equal(conf_dbd_check_file(path, geteuid(), &error), -1);
    assert_int_equal(errno, EPERM);
    assert_string_equal(error.text,
                        "should be 600 is 640 accessible for group or others");
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(conf_dbd_check_file(path, geteuid() + 1, &error), -1);
    assert_non_null(strstr(error.text, "not by uid"));
    unlink(path);
}

static void path_comes_from_the_environment(void **state)
{
    char *p;

    (void)state;
    setenv("DROVER_DBD_CONF", "/x/dbd.conf", 1);
    assert_string_equal(p = conf_dbd_default_path(), "/x/dbd.conf");
    free(p);
    unsetenv("DROVER_DBD_CONF");
    setenv("DROVER_CONF", "/y/etc/slurm.conf", 1);
    assert_string_equal(p = conf_dbd_default_path(), "/y/etc/slurmdbd.conf");
    free(p);
    unsetenv("DROVER_CONF");
}

/* CommunicationParameters= in slurmdbd.conf: slurm.conf's TLS items. */
static void comm_params_turn_on_tls(void **state)
{
    drv_error_t error = { { 0 } };
    struct dbd_conf *c;

    (void)state;
    assert_non_null(c = conf_dbd_parse("d.conf", "", &error));
    assert_false(c->tls.rpc);
    conf_dbd_destroy(c);
    assert_non_null(c = conf_dbd_parse(
        "d.conf", "CommunicationParameters=drover_tls_rpc,"
        "drover_tls_cert=/c.pem,drover_tls_key=/k.pem,drover_tls_ca=/ca.pem\n",
        &error));
    assert_true(c->tls.rpc);
    assert_string_equal(c->tls.cert, "/c.pem");
    assert_string_equal(c->tls.ca, "/ca.pem");
    conf_dbd_destroy(c);
    assert_null(conf_dbd_parse("d.conf", "CommunicationParameters="
                               "drover_tls_rpc\n", &error));
    assert_non_null(strstr(error.text, "d.conf: drover_tls_rpc needs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_are_read),
        cmocka_unit_test(purge_job_after_forms_and_cutoff),
        cmocka_unit_test(defaults_are_sqlite_and_private_jobs),
        cmocka_unit_test(mysql_is_refused_with_a_reason),
        cmocka_unit_test(a_bad_port_names_file_line_and_key),
        cmocka_unit_test(file_must_be_0600_and_ours),
        cmocka_unit_test(path_comes_from_the_environment),
        cmocka_unit_test(comm_params_turn_on_tls),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
