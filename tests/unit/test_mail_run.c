/* SPDX-License-Identifier: Apache-2.0
 *
 * test_mail_run.c - MailProg runs from a real libuv loop: argv and the
 * environment given, more mails than run at once all delivered in turn, a
 * program that cannot start or hangs (killed at the timeout) costs a log
 * line, never the loop
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xalloc.h"
#include "ctld/mail_run.h"

static char dir[] = "/tmp/drover-test-mail-run-XXXXXX";

static char *script(const char *name, const char *body)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    chmod(path, 0755);
    return path;
}

static char **env_of(const char *a, const char *b)
{
    char **e = xzalloc(3 * sizeof(*e));

    e[0] = xstrdup(a);
    e[1] = xstrdup(b);
    return e;
}

static void close_handle(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void run_until_idle(uv_loop_t *loop, struct mail_run *r)
{
    while (mail_run_busy(r))
        uv_run(loop, UV_RUN_ONCE);
}

static void delivers_every_mail_with_argv_and_env(void **state)
{
    uv_loop_t loop;
    char *body = xasprintf("echo \"$#|$1|$2|$3\" > %s/out.$BAR\n"
                           "/usr/bin/env | /bin/grep -v ^PWD= | /usr/bin/sort"
                           " >> %s/out.$BAR\n", dir, dir);
    char *prog = script("log.sh", body);
    struct mail_run *r;
    char want[256], got[256], *path;
    FILE *f;
    size_t n;

    (void)state;
    uv_loop_init(&loop);
    r = mail_run_create(&loop, prog, 0, 0, 10000);
    for (int i = 0; i < MAIL_RUN_MAX_CHILDREN + 8; i++) {
        char bar[32];
        snprintf(bar, sizeof(bar), "BAR=%d", i);
        mail_run_send(r, "Slurm Job_id=1 Name=x Began", "bob",
                      env_of("FOO=foo bar", bar));
    }
    assert_true(mail_run_busy(r) == MAIL_RUN_MAX_CHILDREN + 8);
    run_until_idle(&loop, r);
    for (int i = 0; i < MAIL_RUN_MAX_CHILDREN + 8; i++) {
        path = xasprintf("%s/out.%d", dir, i);
        assert_non_null(f = fopen(path, "r"));
        n = fread(got, 1, sizeof(got) - 1, f);
        got[n] = '\0';
        fclose(f);
        snprintf(want, sizeof(want), "3|-s|Slurm Job_id=1 Name=x Began|bob\n"
                 "BAR=%d\nFOO=foo bar\n", i);
        assert_string_equal(got, want); /* only the environment given */
        unlink(path);
        free(path);
    }
    mail_run_destroy(r);
    uv_loop_close(&loop);
    unlink(prog);
    free(prog);
    free(body);
}

static void missing_or_hanging_program_is_only_logged(void **state)
{
    uv_loop_t loop;
    char *missing = xasprintf("%s/nope", dir);
    char *hang = script("hang.sh", "exec /bin/sleep 30\n");
    struct mail_run *r;
    uint64_t t0;

    (void)state;
    uv_loop_init(&loop);
    r = mail_run_create(&loop, missing, 0, 0, 10000);
    mail_run_send(r, "s", "bob", env_of("A=1", "B=2"));
    run_until_idle(&loop, r);
    mail_run_destroy(r);
    r = mail_run_create(&loop, hang, 0, 0, 200);
    t0 = uv_hrtime();
    mail_run_send(r, "s", "bob", env_of("A=1", "B=2"));
    run_until_idle(&loop, r);
    assert_true(uv_hrtime() - t0 < 5000000000ull); /* killed at 200 ms */
    mail_run_destroy(r);
    uv_run(&loop, UV_RUN_DEFAULT); /* the handles' close callbacks */
    assert_int_equal(uv_loop_close(&loop), 0);
    unlink(hang);
    free(hang);
    free(missing);
}

/* A runner destroyed with children still running: the loop closes their
 * handles (as droverctld's end does), the runner frees what is left. */
static void destroy_after_the_loop_closed_frees_running_children(void **state)
{
    uv_loop_t loop;
    char *hang = script("hang2.sh", "exec /bin/sleep 1\n");
    struct mail_run *r;

    (void)state;
    uv_loop_init(&loop);
    r = mail_run_create(&loop, hang, 0, 0, 10000);
    mail_run_send(r, "s", "bob", env_of("A=1", "B=2"));
    mail_run_send(r, "s", "bob", env_of("A=1", "B=2"));
    assert_int_equal(mail_run_busy(r), 2);
    uv_walk(&loop, close_handle, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    mail_run_destroy(r);
    assert_int_equal(uv_loop_close(&loop), 0);
    unlink(hang);
    free(hang);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delivers_every_mail_with_argv_and_env),
        cmocka_unit_test(missing_or_hanging_program_is_only_logged),
        cmocka_unit_test(destroy_after_the_loop_closed_frees_running_children),
    };
    int rc;

    cmocka_set_message_output(CM_OUTPUT_TAP);
    if (!mkdtemp(dir))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}
