/* SPDX-License-Identifier: Apache-2.0
 *
 * test_prog_run.c - MailProg and PrologSlurmctld runs from a real libuv
 * loop: argv and the environment given, more runs than run at once all
 * done in turn, a program that cannot start or hangs (killed at the
 * timeout) costs a log line, never the loop, and the completion callback
 * hears success or failure
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
#include "ctld/prog_run.h"

static char dir[] = "/tmp/drover-test-prog-run-XXXXXX";

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

static char **mail_args(const char *subject)
{
    char **a = xzalloc(4 * sizeof(*a));

    a[0] = xstrdup("-s");
    a[1] = xstrdup(subject);
    a[2] = xstrdup("bob");
    return a;
}

static void close_handle(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void run_until_idle(uv_loop_t *loop, struct prog_run *r)
{
    while (prog_run_busy(r))
        uv_run(loop, UV_RUN_ONCE);
}

static void delivers_every_mail_with_argv_and_env(void **state)
{
    uv_loop_t loop;
    char *body = xasprintf("echo \"$#|$1|$2|$3\" > %s/out.$BAR\n"
                           "/usr/bin/env | /bin/grep -v ^PWD= | /usr/bin/sort"
                           " >> %s/out.$BAR\n", dir, dir);
    char *prog = script("log.sh", body);
    struct prog_run *r;
    char want[256], got[256], *path;
    FILE *f;
    size_t n;

    (void)state;
    uv_loop_init(&loop);
    r = prog_run_create(&loop, "MailProg", prog, 0, 0, 10000,
                        MAIL_RUN_MAX_CHILDREN);
    for (int i = 0; i < MAIL_RUN_MAX_CHILDREN + 8; i++) {
        char bar[32];
        snprintf(bar, sizeof(bar), "BAR=%d", i);
        prog_run_start(r, "mail", mail_args("Slurm Job_id=1 Name=x Began"),
                       env_of("FOO=foo bar", bar), NULL, NULL);
    }
    assert_true(prog_run_busy(r) == MAIL_RUN_MAX_CHILDREN + 8);
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
    prog_run_destroy(r);
    uv_loop_close(&loop);
    unlink(prog);
    free(prog);
    free(body);
}

/* prog_run_start_as(): each run its own program (strigger's), the
 * runner's own never run; its one argument and an empty environment. */
static void start_as_runs_the_runs_own_program(void **state)
{
    uv_loop_t loop;
    char *body = xasprintf("echo \"$#|$1|$(/usr/bin/env | /bin/grep -cv "
                           "^PWD=)\" > %s/as.out\n", dir);
    char *prog = script("as.sh", body), *missing = xasprintf("%s/nope", dir);
    char *path = xasprintf("%s/as.out", dir), got[64];
    char **args = xzalloc(2 * sizeof(*args));
    struct prog_run *r;
    size_t n;
    FILE *f;

    (void)state;
    uv_loop_init(&loop);
    r = prog_run_create(&loop, "strigger", missing, 0, 0, 0, 4);
    args[0] = xstrdup("node[1-2]");
    prog_run_start_as(r, prog, getuid(), getgid(), "trigger 1", args,
                      xzalloc(sizeof(char *)));
    run_until_idle(&loop, r);
    assert_non_null(f = fopen(path, "r"));
    n = fread(got, 1, sizeof(got) - 1, f);
    got[n] = '\0';
    fclose(f);
    assert_string_equal(got, "1|node[1-2]|0\n");
    prog_run_destroy(r);
    uv_loop_close(&loop);
    unlink(path);
    unlink(prog);
    free(path);
    free(prog);
    free(missing);
    free(body);
}

static void missing_or_hanging_program_is_only_logged(void **state)
{
    uv_loop_t loop;
    char *missing = xasprintf("%s/nope", dir);
    char *hang = script("hang.sh", "exec /bin/sleep 30\n");
    struct prog_run *r;
    uint64_t t0;

    (void)state;
    uv_loop_init(&loop);
    r = prog_run_create(&loop, "MailProg", missing, 0, 0, 10000,
                        MAIL_RUN_MAX_CHILDREN);
    prog_run_start(r, "mail", mail_args("s"), env_of("A=1", "B=2"), NULL,
                   NULL);
    run_until_idle(&loop, r);
    prog_run_destroy(r);
    r = prog_run_create(&loop, "MailProg", hang, 0, 0, 200,
                        MAIL_RUN_MAX_CHILDREN);
    t0 = uv_hrtime();
    prog_run_start(r, "mail", mail_args("s"), env_of("A=1", "B=2"), NULL,
                   NULL);
    run_until_idle(&loop, r);
    assert_true(uv_hrtime() - t0 < 5000000000ull); /* killed at 200 ms */
    prog_run_destroy(r);
    uv_run(&loop, UV_RUN_DEFAULT); /* the handles' close callbacks */
    assert_int_equal(uv_loop_close(&loop), 0);
    unlink(hang);
    free(hang);
    free(missing);
}

static void count_done(void *arg, bool ok)
{
    int *n = arg;

    n[ok ? 0 : 1]++;
}

/* The callback hears each run's end: exit 0 is success; an exit code, a
 * program that cannot start and one killed at the timeout are failures.
 * No arguments and no timeout (0) are allowed. */
static void done_callback_tells_success_and_failure(void **state)
{
    uv_loop_t loop;
    char *ok = script("ok.sh", "[ $# = 0 ] && exit 0\nexit 9\n");
    char *bad = script("bad.sh", "exit 3\n");
    char *hang = script("hang3.sh", "exec /bin/sleep 30\n");
    char *missing = xasprintf("%s/nope", dir);
    const char *progs[] = {ok, bad, missing};
    int n[2];

    (void)state;
    uv_loop_init(&loop);
    for (int i = 0; i < 3; i++) {
        struct prog_run *r = prog_run_create(&loop, "PrologSlurmctld",
                                             progs[i], 0, 0, 0, 4);
        n[0] = n[1] = 0;
        prog_run_start(r, "JobId=1", NULL, env_of("A=1", "B=2"), count_done,
                       n);
        assert_int_equal(n[0] + n[1], 0); /* never from inside the call */
        while (n[0] + n[1] == 0)
            uv_run(&loop, UV_RUN_ONCE);
        assert_int_equal(n[0], i == 0);
        assert_int_equal(n[1], i != 0);
        prog_run_destroy(r);
    }
    {
        struct prog_run *r = prog_run_create(&loop, "PrologSlurmctld", hang,
                                             0, 0, 200, 4);
        n[0] = n[1] = 0;
        prog_run_start(r, "JobId=2", NULL, env_of("A=1", "B=2"), count_done,
                       n);
        while (n[0] + n[1] == 0)
            uv_run(&loop, UV_RUN_ONCE);
        assert_int_equal(n[1], 1);
        prog_run_destroy(r);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    unlink(ok);
    unlink(bad);
    unlink(hang);
    free(ok);
    free(bad);
    free(hang);
    free(missing);
}

/* A runner destroyed with children still running: the loop closes their
 * handles (as droverctld's end does), the runner frees what is left. */
static void destroy_after_the_loop_closed_frees_running_children(void **state)
{
    uv_loop_t loop;
    char *hang = script("hang2.sh", "exec /bin/sleep 1\n");
    struct prog_run *r;

    (void)state;
    uv_loop_init(&loop);
    r = prog_run_create(&loop, "MailProg", hang, 0, 0, 10000,
                        MAIL_RUN_MAX_CHILDREN);
    prog_run_start(r, "mail", mail_args("s"), env_of("A=1", "B=2"), NULL,
                   NULL);
    prog_run_start(r, "mail", mail_args("s"), env_of("A=1", "B=2"), NULL,
                   NULL);
    assert_int_equal(prog_run_busy(r), 2);
    uv_walk(&loop, close_handle, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    prog_run_destroy(r);
    assert_int_equal(uv_loop_close(&loop), 0);
    unlink(hang);
    free(hang);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delivers_every_mail_with_argv_and_env),
        cmocka_unit_test(start_as_runs_the_runs_own_program),
        cmocka_unit_test(missing_or_hanging_program_is_only_logged),
        cmocka_unit_test(destroy_after_the_loop_closed_frees_running_children),
        cmocka_unit_test(done_callback_tells_success_and_failure),
    };
    int rc;

    cmocka_set_message_output(CM_OUTPUT_TAP);
    if (!mkdtemp(dir))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}
