/* SPDX-License-Identifier: Apache-2.0
 *
 * test_notify.c - daemon_notify(): the sd_notify protocol without
 * libsystemd (common/daemon.h), checked on a datagram socket of our own
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/daemon.h"

/* A bound unix datagram socket standing in for systemd's. */
struct listener {
    int fd;
    char dir[64];
    char path[128];
};

/* Bind a datagram socket to 'name' ("/path" or "@abstract"). */
static int bind_dgram(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(name);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    assert_true(len < sizeof(sa.sun_path));
    memcpy(sa.sun_path, name, len);
    if (name[0] == '@')
        sa.sun_path[0] = '\0';
    else
        len++;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path)
                                      + len)),
                     0);
    return fd;
}

/* The next datagram on 'fd' as a string (the test fails if none waits). */
static void recv_text(int fd, char *buf, size_t size)
{
    ssize_t n = recv(fd, buf, size - 1, MSG_DONTWAIT);

    assert_true(n >= 0);
    buf[n] = '\0';
}

static int path_setup(void **state)
{
    struct listener *l = calloc(1, sizeof(*l));

    strcpy(l->dir, "/tmp/drover-notify-XXXXXX");
    assert_non_null(mkdtemp(l->dir));
    snprintf(l->path, sizeof(l->path), "%s/notify", l->dir);
    l->fd = bind_dgram(l->path);
    setenv("NOTIFY_SOCKET", l->path, 1);
    *state = l;
    return 0;
}

static int path_teardown(void **state)
{
    struct listener *l = *state;

    close(l->fd);
    unlink(l->path);
    rmdir(l->dir);
    unsetenv("NOTIFY_SOCKET");
    free(l);
    return 0;
}

/* READY=1 then STOPPING=1 arrive, each as one datagram, in order. */
static void path_socket_gets_each_state(void **state)
{
    struct listener *l = *state;
    char buf[64];

    assert_int_equal(daemon_notify("READY=1"), 1);
    assert_int_equal(daemon_notify("STOPPING=1"), 1);
    recv_text(l->fd, buf, sizeof(buf));
    assert_string_equal(buf, "READY=1");
    recv_text(l->fd, buf, sizeof(buf));
    assert_string_equal(buf, "STOPPING=1");
    /* the environment is left for the next call */
    assert_string_equal(getenv("NOTIFY_SOCKET"), l->path);
}

/* "@name" is Linux's abstract namespace (what systemd uses today). */
static void abstract_socket(void **state)
{
    char name[64], buf[64];
    int fd;

    (void)state;
    snprintf(name, sizeof(name), "@drover-test-notify-%d", (int)getpid());
    fd = bind_dgram(name);
    setenv("NOTIFY_SOCKET", name, 1);
    assert_int_equal(daemon_notify("READY=1"), 1);
    recv_text(fd, buf, sizeof(buf));
    assert_string_equal(buf, "READY=1");
    close(fd);
    unsetenv("NOTIFY_SOCKET");
}

/* Not under systemd: nothing to do, and no error. */
static void unset_or_empty_is_a_no_op(void **state)
{
    (void)state;
    unsetenv("NOTIFY_SOCKET");
    assert_int_equal(daemon_notify("READY=1"), 0);
    setenv("NOTIFY_SOCKET", "", 1);
    assert_int_equal(daemon_notify("READY=1"), 0);
    unsetenv("NOTIFY_SOCKET");
}

/* A relative or overlong name, or nobody listening: -1 and errno. */
static void bad_names_fail(void **state)
{
    char longname[200];

    (void)state;
    setenv("NOTIFY_SOCKET", "relative/sock", 1);
    errno = 0;
    assert_int_equal(daemon_notify("READY=1"), -1);
    assert_int_equal(errno, EINVAL);
    memset(longname, 'x', sizeof(longname) - 1);
    longname[0] = '/';
    longname[sizeof(longname) - 1] = '\0';
    setenv("NOTIFY_SOCKET", longname, 1);
    assert_int_equal(daemon_notify("READY=1"), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    setenv("NOTIFY_SOCKET", "/nonexistent/drover-notify", 1);
    assert_int_equal(daemon_notify("READY=1"), -1);
    unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(path_socket_gets_each_state,
                                        path_setup, path_teardown),
        cmocka_unit_test(abstract_socket),
        cmocka_unit_test(unset_or_empty_is_a_no_op),
        cmocka_unit_test(bad_names_fail),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
