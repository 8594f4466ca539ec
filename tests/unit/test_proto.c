/* SPDX-License-Identifier: Apache-2.0
 *
 * test_proto.c - RPC server and clients against a real munged, in-process
 *
 * main() starts a private munged (its own socket, key, pid, log and seed
 * files in a temporary directory).  Each test runs a real proto server and
 * the async client on one libuv loop; the sync client and raw-socket peers
 * (garbage, forged credentials) run in a thread while the loop turns, and
 * hand their results back for the main thread to assert on.
 * No munged means the test FAILS (TAP "Bail out!"); it never skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <munge.h>
#include <uv.h>

#include "common/error.h"
#include "common/log.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/frame.h"
#include "proto/jsonw.h"
#include "proto/msg.h"
#include "proto/server.h"

#define WAIT_MS 30000 /* longest any single wait in a test may take */

/* --- private munged ----------------------------------------------------- */

static char munge_dir[64];
static char munge_sock[128];
static pid_t munged_pid = -1;

static void path_in(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", munge_dir, name);
}

static void dump_munged_log(void)
{
    char path[128], line[512];
    FILE *fp;

    path_in(path, sizeof(path), "munged.log");
    if (!(fp = fopen(path, "r")))
        return;
    while (fgets(line, sizeof(line), fp))
        fprintf(stderr, "# munged.log: %s", line);
    fclose(fp);
}

static int write_key(const char *path)
{
    unsigned char key[1024];
    int in, out;
    ssize_t n;

    if ((in = open("/dev/urandom", O_RDONLY)) < 0)
        return -1;
    n = read(in, key, sizeof(key));
    close(in);
    if (n != (ssize_t)sizeof(key))
        return -1;
    if ((out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0)
        return -1;
    n = write(out, key, sizeof(key));
    close(out);
    return n == (ssize_t)sizeof(key) ? 0 : -1;
}

static const char *find_munged(void)
{
    const char *env = getenv("MUNGED");
    static const char *const paths[] = { "/usr/sbin/munged",
                                         "/usr/local/sbin/munged",
                                         "/sbin/munged" };

    if (env && *env)
        return env;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        if (access(paths[i], X_OK) == 0)
            return paths[i];
    return NULL;
}

/* Start munged in the foreground as our child; it dies with us
 * (PR_SET_PDEATHSIG) even if a test crashes.  Ready means a credential can
 * be minted.  Returns 0, or -1 having printed why.
 */
static int munged_start(void)
{
    const char *munged = find_munged();
    char key[128], pidf[128], logf[128], seed[128];
    char a_sock[160], a_key[160], a_pid[160], a_log[160], a_seed[160];
    proto_auth_t *auth;
    int status;

    if (!munged) {
        printf("Bail out! munged not found (looked in /usr/sbin, "
               "/usr/local/sbin, /sbin, $MUNGED)\n");
        return -1;
    }
    snprintf(munge_dir, sizeof(munge_dir), "/tmp/drover-proto-XXXXXX");
    if (!mkdtemp(munge_dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    path_in(munge_sock, sizeof(munge_sock), "munge.sock");
    path_in(key, sizeof(key), "munge.key");
    path_in(pidf, sizeof(pidf), "munged.pid");
    path_in(logf, sizeof(logf), "munged.log");
    path_in(seed, sizeof(seed), "munged.seed");
    if (write_key(key) < 0) {
        printf("Bail out! cannot write %s: %s\n", key, strerror(errno));
        return -1;
    }
    snprintf(a_sock, sizeof(a_sock), "--socket=%s", munge_sock);
    snprintf(a_key, sizeof(a_key), "--key-file=%s", key);
    snprintf(a_pid, sizeof(a_pid), "--pid-file=%s", pidf);
    snprintf(a_log, sizeof(a_log), "--log-file=%s", logf);
    snprintf(a_seed, sizeof(a_seed), "--seed-file=%s", seed);
    fflush(stdout);
    fflush(stderr);
    if ((munged_pid = fork()) < 0) {
        printf("Bail out! fork: %s\n", strerror(errno));
        return -1;
    }
    if (munged_pid == 0) {
        /* --force: munged refuses root and loose directory modes without
         * it, and a test directory under /tmp is what it is.
         */
        int devnull = open("/dev/null", O_WRONLY);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        /* It logs to --log-file too; keep its stderr out of the TAP log. */
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        execl(munged, munged, "--foreground", "--force", a_sock, a_key, a_pid,
              a_log, a_seed, (char *)NULL);
        fprintf(stderr, "exec %s: %s\n", munged, strerror(errno));
        _exit(127);
    }
    if (!(auth = proto_auth_create(munge_sock, NULL))) {
        printf("Bail out! proto_auth_create: %s\n", strerror(errno));
        return -1;
    }
    for (int i = 0; i < 500; i++) { /* up to ~10 s */
        char *cred;
        if (waitpid(munged_pid, &status, WNOHANG) == munged_pid) {
            munged_pid = -1;
            dump_munged_log();
            printf("Bail out! %s exited with status %d before it was ready\n",
                   munged, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            proto_auth_destroy(auth);
            return -1;
        }
        if (access(munge_sock, F_OK) == 0
            && (cred = proto_auth_encode(auth, "ping", NULL, NULL))) {
            free(cred);
            proto_auth_destroy(auth);
            return 0;
        }
        usleep(20000);
    }
    proto_auth_destroy(auth);
    dump_munged_log();
    printf("Bail out! %s did not answer on %s within 10 s\n", munged,
           munge_sock);
    return -1;
}

static void munged_stop(void)
{
    const char *names[] = { "munge.sock", "munge.sock.lock", "munge.key",
                            "munged.pid", "munged.log", "munged.seed" };
    char path[128];

    if (munged_pid > 0) {
        kill(munged_pid, SIGTERM);
        waitpid(munged_pid, NULL, 0);
        munged_pid = -1;
    }
    if (!munge_dir[0])
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        path_in(path, sizeof(path), names[i]);
        unlink(path);
    }
    rmdir(munge_dir);
}

/* --- fixture: a server with test handlers on a loop --------------------- */

struct fx {
    uv_loop_t loop;
    proto_auth_t *auth;
    proto_server_t *server;
    uint16_t port;
    unsigned roles; /* what roles_of answers */
    proto_req_t *held;   /* "hold" requests wait here */
    uv_timer_t later_timer;
    proto_req_t *later_req;
    atomic_int handled;  /* handler calls (read by test threads) */
};

static unsigned test_roles_of(uid_t uid, gid_t gid, void *arg)
{
    struct fx *fx = arg;
    (void)uid;
    (void)gid;
    return fx->roles;
}

static void rpc_echo(proto_req_t *req, void *arg)
{
    struct fx *fx = arg;
    json_t *body = json_deep_copy(proto_req_body(req));

    fx->handled++;
    json_object_set_new(body, "uid", json_integer(proto_req_uid(req)));
    json_object_set_new(body, "peer", json_string(proto_req_peer(req)));
    proto_respond(req, body);
}

static void rpc_fail(proto_req_t *req, void *arg)
{
    ((struct fx *)arg)->handled++;
    proto_respond_error(req, EDRV_INVALID_JOB_ID, "job 77 not found");
}

static void rpc_fail_plain(proto_req_t *req, void *arg)
{
    ((struct fx *)arg)->handled++;
    proto_respond_error(req, EDRV_JOB_PENDING, NULL);
}

static void on_later(uv_timer_t *t)
{
    struct fx *fx = t->data;
    proto_req_t *req = fx->later_req;

    fx->later_req = NULL;
    proto_respond(req, json_pack("{s:b}", "later", 1));
}

/* Answers after 50 ms, from a timer: the handler returns first. */
static void rpc_later(proto_req_t *req, void *arg)
{
    struct fx *fx = arg;

    fx->handled++;
    fx->later_req = req;
    uv_timer_start(&fx->later_timer, on_later, 50, 0);
}

/* Answered only when the test says so. */
static void rpc_hold(proto_req_t *req, void *arg)
{
    struct fx *fx = arg;

    fx->handled++;
    fx->held = req;
}

static void rpc_admin(proto_req_t *req, void *arg)
{
    ((struct fx *)arg)->handled++;
    proto_respond(req, json_pack("{s:b}", "admin", 1));
}

static void rpc_bad_body(proto_req_t *req, void *arg)
{
    ((struct fx *)arg)->handled++;
    proto_respond(req, json_array());
}

/* Answers with 1 MiB, echoing "seq". */
static void rpc_big(proto_req_t *req, void *arg)
{
    static char pad[1 << 20];
    json_t *seq = json_object_get(proto_req_body(req), "seq");

    ((struct fx *)arg)->handled++;
    if (!pad[0])
        memset(pad, 'b', sizeof(pad));
    proto_respond(req, json_pack("{s:O s:s%}", "seq", seq, "pad", pad,
                                 sizeof(pad)));
}

/* Answers in parts (proto_respond_part_jsonw()): "items" 0..249 over
 * three frames, the first with "first", the last with "last"; with
 * "fail" in the body, an error after the first part. */
static void rpc_parts(proto_req_t *req, void *arg)
{
    bool fail = json_is_true(json_object_get(proto_req_body(req), "fail"));
    struct jsonw w;
    int item = 0;

    ((struct fx *)arg)->handled++;
    for (int part = 0; part < 3; part++) {
        jsonw_init(&w, PROTO_RESPOND_RESERVE);
        jsonw_obj_open(&w);
        if (part == 0) {
            jsonw_key(&w, "first");
            jsonw_int(&w, 1);
        }
        jsonw_key(&w, "items");
        jsonw_arr_open(&w);
        for (int end = part < 2 ? item + 100 : 250; item < end; item++)
            jsonw_int(&w, item);
        jsonw_arr_close(&w);
        if (part == 2) {
            jsonw_key(&w, "last");
            jsonw_bool(&w, true);
        }
        jsonw_obj_close(&w);
        if (part == 2) {
            proto_respond_jsonw(req, &w);
            return;
        }
        assert_int_equal(proto_respond_part_jsonw(req, &w), 0);
        if (fail) {
            proto_respond_error(req, EDRV_INVALID_JOB_ID, "gone half way");
            return;
        }
    }
}

static const struct proto_handler test_handlers[] = {
    { "echo", rpc_echo, PROTO_ROLE_USER },
    { "fail", rpc_fail, PROTO_ROLE_USER },
    { "fail_plain", rpc_fail_plain, PROTO_ROLE_USER },
    { "later", rpc_later, PROTO_ROLE_USER },
    { "hold", rpc_hold, PROTO_ROLE_USER },
    { "admin_only", rpc_admin, PROTO_ROLE_ADMIN },
    { "bad_body", rpc_bad_body, PROTO_ROLE_USER },
    { "big", rpc_big, PROTO_ROLE_USER },
    { "parts", rpc_parts, PROTO_ROLE_USER },
    PROTO_HANDLER_END,
};

static int fx_setup(void **state)
{
    struct fx *fx = calloc(1, sizeof(*fx));
    drv_error_t error = { { 0 } };

    if (!fx || uv_loop_init(&fx->loop) < 0)
        return -1;
    uv_timer_init(&fx->loop, &fx->later_timer);
    fx->later_timer.data = fx;
    fx->roles = PROTO_ROLE_USER;
    if (!(fx->auth = proto_auth_create(munge_sock, &error))
        || !(fx->server = proto_server_create(&fx->loop, fx->auth,
                                              test_roles_of, fx, &error))
        || proto_server_register(fx->server, test_handlers, fx, &error) < 0
        || proto_server_listen(fx->server, "127.0.0.1", 0, &error) < 0) {
        fprintf(stderr, "# fixture: %s\n", error.text);
        return -1;
    }
    fx->port = proto_server_port(fx->server);
    if (fx->port == 0)
        return -1;
    *state = fx;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *fx = *state;
    int rc;

    if (fx->held) {
        proto_respond(fx->held, NULL);
        fx->held = NULL;
    }
    proto_server_destroy(fx->server);
    uv_close((uv_handle_t *)&fx->later_timer, NULL);
    uv_run(&fx->loop, UV_RUN_DEFAULT);
    rc = uv_loop_close(&fx->loop); /* UV_EBUSY: a handle leaked */
    proto_auth_destroy(fx->auth);
    free(fx);
    if (rc != 0)
        fprintf(stderr, "# uv_loop_close: %s\n", uv_strerror(rc));
    return rc == 0 ? 0 : -1;
}

static void on_guard(uv_timer_t *t)
{
    *(int *)t->data = 1;
}

/* Turn the loop until *flag is set or WAIT_MS passes.  Returns 0, or -1
 * when time ran out.
 */
static int turn_until(struct fx *fx, atomic_int *flag)
{
    uv_timer_t guard;
    int expired = 0;

    uv_timer_init(&fx->loop, &guard);
    guard.data = &expired;
    uv_timer_start(&guard, on_guard, WAIT_MS, 0);
    while (!atomic_load(flag) && !expired)
        uv_run(&fx->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&guard, NULL);
    uv_run(&fx->loop, UV_RUN_NOWAIT);
    return expired ? -1 : 0;
}

/* Turn the loop until *flag is set; fail the test after WAIT_MS. */
static void run_until(struct fx *fx, atomic_int *flag)
{
    assert_int_equal(turn_until(fx, flag), 0);
}

/* --- async calls -------------------------------------------------------- */

struct result {
    atomic_int done;
    int calls;
    int errnum;
    char errstr[200];
    json_t *body;
};

static void on_call(int errnum, const char *errstr, json_t *body, void *arg)
{
    struct result *r = arg;

    r->calls++;
    r->errnum = errnum;
    snprintf(r->errstr, sizeof(r->errstr), "%s", errstr ? errstr : "(null)");
    r->body = json_incref(body);
    atomic_store(&r->done, 1);
}

static void call_async(struct fx *fx, const char *host, uint16_t port,
                       const char *type, json_t *body, int timeout_ms,
                       struct result *r)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(proto_call_async(&fx->loop, host, port, fx->auth, type,
                                      body, timeout_ms, on_call, r),
                     0);
    assert_int_equal(r->calls, 0); /* never from inside proto_call_async */
    run_until(fx, &r->done);
    assert_int_equal(r->calls, 1);
}

static void result_clear(struct result *r)
{
    json_decref(r->body);
    r->body = NULL;
}

/* --- threads: the sync client and raw sockets --------------------------- */

struct thread_job {
    void (*fn)(void *arg);
    void *arg;
    atomic_int done;
    uv_async_t wake;
};

static void *thread_main(void *p)
{
    struct thread_job *job = p;

    job->fn(job->arg);
    atomic_store(&job->done, 1);
    uv_async_send(&job->wake);
    return NULL;
}

static void on_wake(uv_async_t *a)
{
    (void)a;
}

/* Run fn(arg) in a thread while the loop turns; return when it is done. */
static void run_in_thread(struct fx *fx, void (*fn)(void *), void *arg)
{
    struct thread_job job = { .fn = fn, .arg = arg };
    pthread_t tid;

    int rc;

    uv_async_init(&fx->loop, &job.wake, on_wake);
    assert_int_equal(pthread_create(&tid, NULL, thread_main, &job), 0);
    rc = turn_until(fx, &job.done);
    /* Join before failing: 'job' lives on this stack.  Every thread body
     * gives up on its own (socket and client timeouts).
     */
    pthread_join(tid, NULL);
    uv_close((uv_handle_t *)&job.wake, NULL);
    uv_run(&fx->loop, UV_RUN_NOWAIT);
    assert_int_equal(rc, 0);
}

/* A sync call in a thread, with its own credential context. */
struct sync_job {
    const char *host;
    uint16_t port;
    const char *type;
    json_t *body;
    int timeout_ms;
    int rc;
    int errnum;
    drv_error_t error;
    json_t *resp;
};

static void sync_call_fn(void *arg)
{
    struct sync_job *j = arg;
    proto_auth_t *auth = proto_auth_create(munge_sock, NULL);

    errno = 0;
    j->rc = proto_call_sync(j->host, j->port, auth, j->type, j->body,
                            &j->resp, j->timeout_ms, &j->error);
    j->errnum = errno;
    proto_auth_destroy(auth);
}

/* A raw TCP peer: send bytes as they are, read up to 'want' frames, then
 * see whether the server closes.
 */
struct raw_job {
    uint16_t port;
    const char *data;
    size_t len;
    int shut_wr;
    int close_now; /* close right after sending, read nothing */
    int want;
    json_t *resp[4];
    int got;
    int eof;     /* the server closed the connection after the answers */
    int err;     /* errno of a local failure */
};

static void raw_fn(void *arg)
{
    struct raw_job *j = arg;
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_port = htons(j->port) };
    struct timeval tv = { .tv_sec = 5 };
    proto_decoder_t *d = proto_decoder_create();
    char buf[4096];
    int fd;

    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0
        || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
        j->err = errno;
        goto out;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (j->len > 0 && send(fd, j->data, j->len, MSG_NOSIGNAL) < 0) {
        j->err = errno;
        goto out;
    }
    if (j->shut_wr)
        shutdown(fd, SHUT_WR);
    if (j->close_now)
        goto out;
    for (;;) {
        json_t *msg;
        ssize_t n;
        while (j->got < j->want && (msg = proto_decoder_next(d, NULL)))
            j->resp[j->got++] = msg;
        if (j->got == j->want && j->want > 0) {
            /* All answers are in: only see whether the server closes. */
            struct timeval shortv = { .tv_usec = 300000 };
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &shortv, sizeof(shortv));
        }
        n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0) {
            j->eof = 1;
            break;
        }
        if (n < 0) {
            if (errno == ECONNRESET)
                j->eof = 1;
            else if (errno != EAGAIN)
                j->err = errno;
            break; /* EAGAIN: no close within the receive timeout */
        }
        proto_decoder_feed(d, buf, (size_t)n);
    }
    {
        json_t *msg;
        while (j->got < j->want && (msg = proto_decoder_next(d, NULL)))
            j->resp[j->got++] = msg;
    }
out:
    if (fd >= 0)
        close(fd);
    proto_decoder_destroy(d);
}

static void raw_clear(struct raw_job *j)
{
    for (int i = 0; i < j->got; i++)
        json_decref(j->resp[i]);
    j->got = 0;
}

/* errnum and errstr of an error response */
static int resp_errnum(json_t *resp, const char **errstr)
{
    struct proto_msg m;
    int errnum;
    const char *s;

    if (errstr)
        *errstr = "";
    if (proto_msg_parse(resp, &m, NULL) < 0
        || strcmp(m.type, PROTO_TYPE_ERROR) != 0)
        return 0;
    proto_msg_error_parse(m.body, &errnum, &s);
    if (errstr)
        *errstr = s ? s : "";
    return errnum;
}

/* A frame for {"v":1,"type":type,"cred":cred,"body":body} (body stolen). */
static char *request_bytes(const char *type, const char *cred, json_t *body,
                           size_t *len)
{
    json_t *msg = proto_msg_request(type, cred, body);
    char *buf = NULL;

    assert_non_null(msg);
    assert_int_equal(proto_frame_encode(msg, &buf, len), 0);
    json_decref(msg);
    return buf;
}

/* A closed port: bind an ephemeral one and let it go. */
static uint16_t closed_port(void)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    socklen_t len = sizeof(sin);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    close(fd);
    return ntohs(sin.sin_port);
}

/* --- tests -------------------------------------------------------------- */

static void async_round_trip(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "echo", json_pack("{s:i}", "x", 42),
               5000, &r);
    assert_int_equal(r.errnum, 0);
    assert_string_equal(r.errstr, "");
    assert_non_null(r.body);
    assert_int_equal(json_integer_value(json_object_get(r.body, "x")), 42);
    /* uid comes from the credential */
    assert_int_equal(json_integer_value(json_object_get(r.body, "uid")),
                     getuid());
    assert_non_null(strstr(json_string_value(json_object_get(r.body, "peer")),
                           "127.0.0.1:"));
    result_clear(&r);
}

/* n echo calls {"i": i} at once, answered into r[i]. */
static void echo_calls(struct fx *fx, struct result *r, int n)
{
    memset(r, 0, (size_t)n * sizeof(*r));
    for (int i = 0; i < n; i++)
        assert_int_equal(proto_call_async(&fx->loop, "127.0.0.1", fx->port,
                                          fx->auth, "echo",
                                          json_pack("{s:i}", "i", i), 5000,
                                          on_call, &r[i]),
                         0);
}

/* Many calls at once: their credentials are minted off the loop one at a
 * time (proto_call_minting() counts those waiting, none minted before the
 * loop turns), and every call is answered with its own body. */
static void async_calls_mint_off_the_loop(void **state)
{
    struct fx *fx = *state;
    enum { N = 40 };
    struct result r[N];

    echo_calls(fx, r, N);
    assert_int_equal(proto_call_minting(), N);
    for (int i = 0; i < N; i++) {
        run_until(fx, &r[i].done);
        assert_int_equal(r[i].calls, 1);
        assert_int_equal(r[i].errnum, 0);
        assert_int_equal(json_integer_value(json_object_get(r[i].body, "i")),
                         i);
        result_clear(&r[i]);
    }
    assert_int_equal(proto_call_minting(), 0);
}

/* Calls cancelled while they wait for their credential are answered once,
 * ECANCELED, and freed once the credential under way is done. */
static void async_calls_cancelled_while_minting(void **state)
{
    struct fx *fx = *state;
    enum { N = 20 };
    struct result r[N];

    echo_calls(fx, r, N);
    proto_call_cancel_all();
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].calls, 1);
        assert_int_equal(r[i].errnum, ECANCELED);
    }
    /* the credential under way, then the timers' closes: each wakes it */
    for (int turns = 0; proto_call_count() > 0 && turns < 1000; turns++)
        uv_run(&fx->loop, UV_RUN_ONCE);
    assert_int_equal(proto_call_count(), 0);
    assert_int_equal(proto_call_minting(), 0);
}

/* A body sent as text (proto_call_async_text): the canonical dump of an
 * object passes the server's credential check and arrives whole; the
 * same object in another key order does not match its credential. */
static void async_text_body_round_trip(void **state)
{
    struct fx *fx = *state;
    json_t *body = json_pack("{s:i s:[s,s] s:{s:s}}", "x", 42, "list", "a",
                             "b\"q", "obj", "k", "v\u00e9");
    char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
    const char *unsorted = "{\"x\":42,\"list\":[\"a\"]}";
    unsigned char d1[PROTO_AUTH_DIGEST_LEN], d2[PROTO_AUTH_DIGEST_LEN];
    struct result r;

    assert_int_equal(proto_auth_digest("echo", body, d1), 0);
    assert_int_equal(proto_auth_digest_text("echo", text, strlen(text), d2),
                     0);
    assert_memory_equal(d1, d2, PROTO_AUTH_DIGEST_LEN);

    memset(&r, 0, sizeof(r));
    assert_int_equal(proto_call_async_text(&fx->loop, "127.0.0.1", fx->port,
                                           fx->auth, "echo", text,
                                           strlen(text), 5000, on_call, &r),
                     0);
    free(text); /* borrowed: copied into the frame */
    run_until(fx, &r.done);
    assert_int_equal(r.errnum, 0);
    assert_int_equal(json_integer_value(json_object_get(r.body, "x")), 42);
    assert_true(json_equal(json_object_get(r.body, "list"),
                           json_object_get(body, "list")));
    assert_true(json_equal(json_object_get(r.body, "obj"),
                           json_object_get(body, "obj")));
    result_clear(&r);

    memset(&r, 0, sizeof(r));
    assert_int_equal(proto_call_async_text(&fx->loop, "127.0.0.1", fx->port,
                                           fx->auth, "echo", unsorted,
                                           strlen(unsorted), 5000, on_call,
                                           &r),
                     0);
    run_until(fx, &r.done);
    assert_int_equal(r.errnum, EDRV_PROTOCOL_AUTH);
    result_clear(&r);

    errno = 0;
    assert_int_equal(proto_call_async_text(&fx->loop, "127.0.0.1", fx->port,
                                           fx->auth, "echo", NULL, 0, 5000,
                                           on_call, &r),
                     -1);
    assert_int_equal(errno, EINVAL);
    json_decref(body);
}

static void async_resolves_localhost_by_name(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "localhost", fx->port, "echo", NULL, 5000, &r);
    assert_int_equal(r.errnum, 0);
    assert_true(json_is_object(r.body));
    result_clear(&r);
}

static void async_error_response_carries_errnum_and_text(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "fail", NULL, 5000, &r);
    assert_int_equal(r.errnum, 2017);
    assert_int_equal(r.errnum, EDRV_INVALID_JOB_ID);
    assert_string_equal(r.errstr, "job 77 not found");
    assert_null(r.body);
}

static void async_error_without_text_gets_slurm_text(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "fail_plain", NULL, 5000, &r);
    assert_int_equal(r.errnum, EDRV_JOB_PENDING);
    assert_string_equal(r.errstr, "Job is pending execution");
}

static void deferred_response_from_a_timer(void **state)
{
    struct fx *fx = *state;
    struct result r;
    uint64_t t0;

    uv_update_time(&fx->loop);
    t0 = uv_now(&fx->loop);
    call_async(fx, "127.0.0.1", fx->port, "later", NULL, 5000, &r);
    assert_int_equal(r.errnum, 0);
    assert_true(json_is_true(json_object_get(r.body, "later")));
    assert_true(uv_now(&fx->loop) - t0 >= 45);
    result_clear(&r);
}

static void role_not_in_table_gets_access_denied(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "admin_only", NULL, 5000, &r);
    assert_int_equal(r.errnum, EDRV_ACCESS_DENIED);
    assert_non_null(strstr(r.errstr, "admin_only"));
    assert_int_equal(fx->handled, 0);

    fx->roles = PROTO_ROLE_USER | PROTO_ROLE_ADMIN;
    call_async(fx, "127.0.0.1", fx->port, "admin_only", NULL, 5000, &r);
    assert_int_equal(r.errnum, 0);
    assert_int_equal(fx->handled, 1);
    result_clear(&r);
}

static void no_roles_means_nothing_runs(void **state)
{
    struct fx *fx = *state;
    struct result r;

    fx->roles = 0;
    call_async(fx, "127.0.0.1", fx->port, "echo", NULL, 5000, &r);
    assert_int_equal(r.errnum, EDRV_ACCESS_DENIED);
    assert_int_equal(fx->handled, 0);
}

static void unknown_type_is_not_supported(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "no_such_rpc", NULL, 5000, &r);
    assert_int_equal(r.errnum, EDRV_NOT_SUPPORTED);
    assert_string_equal(r.errstr, "unknown message type 'no_such_rpc'");
}

static void handler_answering_a_non_object_gets_einval(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "bad_body", NULL, 5000, &r);
    assert_int_equal(r.errnum, EINVAL);
}

static void async_large_body_round_trip(void **state)
{
    struct fx *fx = *state;
    size_t big = 2 * 1024 * 1024;
    char *s = malloc(big + 1);
    struct result r;

    memset(s, 'q', big);
    s[big] = '\0';
    call_async(fx, "127.0.0.1", fx->port, "echo", json_pack("{s:s}", "d", s),
               10000, &r);
    assert_int_equal(r.errnum, 0);
    assert_int_equal(json_string_length(json_object_get(r.body, "d")), big);
    result_clear(&r);
    free(s);
}

static void async_connect_refused(void **state)
{
    struct fx *fx = *state;
    struct result r;
    uint16_t port = closed_port();
    char want[80];

    call_async(fx, "127.0.0.1", port, "echo", NULL, 5000, &r);
    assert_int_equal(r.errnum, ECONNREFUSED);
    snprintf(want, sizeof(want),
             "Unable to contact 127.0.0.1:%u: Connection refused",
             (unsigned)port);
    assert_string_equal(r.errstr, want);
    assert_null(r.body);
}

static void async_timeout_then_late_answer_is_dropped(void **state)
{
    struct fx *fx = *state;
    struct result r;

    call_async(fx, "127.0.0.1", fx->port, "hold", NULL, 150, &r);
    assert_int_equal(r.errnum, ETIMEDOUT);
    assert_non_null(strstr(r.errstr, "no answer to 'hold'"));
    assert_non_null(fx->held);
    /* The client is gone; answering now must just free the request. */
    assert_int_equal(proto_respond(fx->held, NULL), 0);
    fx->held = NULL;
    call_async(fx, "127.0.0.1", fx->port, "echo", NULL, 5000, &r);
    assert_int_equal(r.errnum, 0);
    result_clear(&r);
}

static void answer_after_server_destroy_just_frees(void **state)
{
    struct fx *fx = *state;
    struct result r;
    proto_req_t *req;

    memset(&r, 0, sizeof(r));
    assert_int_equal(proto_call_async(&fx->loop, "127.0.0.1", fx->port,
                                      fx->auth, "hold", NULL, 5000, on_call,
                                      &r),
                     0);
    while (!fx->held)
        uv_run(&fx->loop, UV_RUN_ONCE);
    req = fx->held;
    fx->held = NULL;
    proto_server_destroy(fx->server);
    fx->server = NULL;
    run_until(fx, &r.done);
    assert_int_equal(r.errnum, ECONNRESET); /* the server hung up */
    assert_int_equal(proto_respond(req, json_pack("{s:i}", "late", 1)), 0);
}

struct keepalive_job {
    uint16_t port;
    int rc[4];
    int errnum[4];
    drv_error_t error[4];
    json_t *resp[4];
};

static void keepalive_fn(void *arg)
{
    static const char *const types[] = { "echo", "fail", "echo", "later" };
    struct keepalive_job *p = arg;
    proto_auth_t *auth = proto_auth_create(munge_sock, NULL);
    proto_client_t *c = proto_client_connect("127.0.0.1", p->port, 5000,
                                             &p->error[0]);

    for (int i = 0; c && i < 4; i++) {
        errno = 0;
        p->rc[i] = proto_client_call(c, auth, types[i],
                                     json_pack("{s:i}", "i", i), &p->resp[i],
                                     &p->error[i]);
        p->errnum[i] = errno;
    }
    proto_client_destroy(c);
    proto_auth_destroy(auth);
}

static void sync_client_keeps_connection_across_calls(void **state)
{
    struct fx *fx = *state;
    struct keepalive_job res = { .port = fx->port, .rc = { -9, -9, -9, -9 } };

    run_in_thread(fx, keepalive_fn, &res);
    assert_int_equal(res.rc[0], 0);
    assert_int_equal(json_integer_value(json_object_get(res.resp[0], "i")), 0);
    assert_int_equal(res.rc[1], -1);
    assert_int_equal(res.errnum[1], EDRV_INVALID_JOB_ID);
    assert_string_equal(res.error[1].text, "job 77 not found");
    /* an error response leaves the connection usable */
    assert_int_equal(res.rc[2], 0);
    assert_int_equal(json_integer_value(json_object_get(res.resp[2], "i")), 2);
    assert_int_equal(res.rc[3], 0);
    assert_true(json_is_true(json_object_get(res.resp[3], "later")));
    /* one connection served all four: the peer string is the same */
    assert_string_equal(
        json_string_value(json_object_get(res.resp[0], "peer")),
        json_string_value(json_object_get(res.resp[2], "peer")));
    json_decref(res.resp[0]);
    json_decref(res.resp[2]);
    json_decref(res.resp[3]);
}

static void sync_one_shot_by_name(void **state)
{
    struct fx *fx = *state;
    struct sync_job j = { .host = "localhost", .port = fx->port,
                          .type = "echo",
                          .body = json_pack("{s:s}", "hello", "world"),
                          .timeout_ms = 5000 };

    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, 0);
    assert_string_equal(
        json_string_value(json_object_get(j.resp, "hello")), "world");
    json_decref(j.resp);
}

static void sync_large_body_round_trip(void **state)
{
    struct fx *fx = *state;
    size_t big = 2 * 1024 * 1024;
    char *s = malloc(big + 1);
    struct sync_job j = { .host = "127.0.0.1", .port = fx->port,
                          .type = "echo", .timeout_ms = 10000 };

    memset(s, 'z', big);
    s[big] = '\0';
    j.body = json_pack("{s:s}", "d", s);
    free(s);
    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, 0);
    assert_int_equal(json_string_length(json_object_get(j.resp, "d")), big);
    json_decref(j.resp);
}

/* An answer in parts reaches the caller joined: the arrays in order,
 * the other members of each part kept. */
static void sync_answer_in_parts_is_joined(void **state)
{
    struct fx *fx = *state;
    struct sync_job j = { .host = "127.0.0.1", .port = fx->port,
                          .type = "parts", .timeout_ms = 5000 };
    json_t *items;

    j.body = json_object();
    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, 0);
    assert_int_equal(json_integer_value(json_object_get(j.resp, "first")), 1);
    assert_true(json_is_true(json_object_get(j.resp, "last")));
    assert_null(json_object_get(j.resp, "more"));
    items = json_object_get(j.resp, "items");
    assert_int_equal(json_array_size(items), 250);
    for (size_t i = 0; i < 250; i++)
        assert_int_equal(json_integer_value(json_array_get(items, i)), i);
    json_decref(j.resp);
}

/* An error after a part ends the answer: the caller gets the error. */
static void sync_error_after_a_part_is_the_answer(void **state)
{
    struct fx *fx = *state;
    struct sync_job j = { .host = "127.0.0.1", .port = fx->port,
                          .type = "parts", .timeout_ms = 5000 };

    j.body = json_pack("{s:b}", "fail", 1);
    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, -1);
    assert_int_equal(j.errnum, EDRV_INVALID_JOB_ID);
    assert_string_equal(j.error.text, "gone half way");
    assert_null(j.resp);
}

static void sync_error_response_sets_errno_and_text(void **state)
{
    struct fx *fx = *state;
    struct sync_job j = { .host = "127.0.0.1", .port = fx->port,
                          .type = "fail", .timeout_ms = 5000 };

    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, -1);
    assert_int_equal(j.errnum, 2017);
    assert_string_equal(j.error.text, "job 77 not found");
    assert_null(j.resp);
}

static void sync_connect_refused(void **state)
{
    struct fx *fx = *state;
    struct sync_job j = { .host = "127.0.0.1", .port = closed_port(),
                          .type = "echo", .timeout_ms = 5000 };
    char want[80];

    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, -1);
    assert_int_equal(j.errnum, ECONNREFUSED);
    snprintf(want, sizeof(want),
             "Unable to contact 127.0.0.1:%u: Connection refused",
             (unsigned)j.port);
    assert_string_equal(j.error.text, want);
}

static void sync_timeout(void **state)
{
    struct fx *fx = *state;
    struct sync_job j = { .host = "127.0.0.1", .port = fx->port,
                          .type = "hold", .timeout_ms = 150 };

    run_in_thread(fx, sync_call_fn, &j);
    assert_int_equal(j.rc, -1);
    assert_int_equal(j.errnum, ETIMEDOUT);
    assert_non_null(strstr(j.error.text, "no answer to 'hold'"));
}

static void garbage_gets_malformed_and_server_serves_the_next(void **state)
{
    struct fx *fx = *state;
    struct raw_job j = { .port = fx->port, .data = "\xff\xff\xff\xffgarbage",
                         .len = 11, .want = 1 };
    struct result r;
    const char *errstr;

    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.err, 0);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], &errstr),
                     EDRV_PROTOCOL_MALFORMED);
    assert_non_null(strstr(errstr, "exceeds"));
    assert_true(j.eof); /* that connection is closed */
    raw_clear(&j);

    call_async(fx, "127.0.0.1", fx->port, "echo", NULL, 5000, &r);
    assert_int_equal(r.errnum, 0);
    result_clear(&r);
}

static void non_object_frame_gets_malformed_and_closed(void **state)
{
    struct fx *fx = *state;
    struct raw_job j = { .port = fx->port, .data = "\0\0\0\3[1]", .len = 7,
                         .want = 1 };

    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], NULL), EDRV_PROTOCOL_MALFORMED);
    assert_true(j.eof);
    raw_clear(&j);
}

static void truncated_frame_gets_malformed(void **state)
{
    struct fx *fx = *state;
    struct raw_job j = { .port = fx->port, .data = "\0\0\0\x40{\"v\":1",
                         .len = 10, .shut_wr = 1, .want = 1 };
    const char *errstr;

    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], &errstr),
                     EDRV_PROTOCOL_MALFORMED);
    assert_non_null(strstr(errstr, "inside a frame"));
    assert_true(j.eof);
    raw_clear(&j);
}

static void bad_envelope_is_answered_and_connection_kept(void **state)
{
    struct fx *fx = *state;
    const char *wrong_v = "{\"v\":2,\"type\":\"echo\"}";
    size_t l1 = strlen(wrong_v), l2;
    json_t *body = json_pack("{s:i}", "ok", 1);
    char *cred = proto_auth_encode(fx->auth, "echo", body, NULL);
    char *good = request_bytes("echo", cred, body, &l2);
    char *both = malloc(4 + l1 + l2);
    struct raw_job j = { .port = fx->port, .want = 2 };
    struct proto_msg m;
    const char *errstr;

    both[0] = both[1] = both[2] = 0;
    both[3] = (char)l1;
    memcpy(both + 4, wrong_v, l1);
    memcpy(both + 4 + l1, good, l2);
    j.data = both;
    j.len = 4 + l1 + l2;
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 2);
    assert_int_equal(resp_errnum(j.resp[0], &errstr),
                     EDRV_PROTOCOL_MALFORMED);
    assert_non_null(strstr(errstr, "version 2"));
    assert_int_equal(proto_msg_parse(j.resp[1], &m, NULL), 0);
    assert_string_equal(m.type, "echo");
    assert_false(j.eof);
    raw_clear(&j);
    free(both);
    free(good);
    free(cred);
}

/* A connection that never authenticated gets one answer to a request
 * without a valid credential, then is closed: the second request of the
 * stream is never read (no MUNGE decode, no log line per frame). */
static void missing_or_forged_cred_is_an_auth_error(void **state)
{
    struct fx *fx = *state;
    size_t l1, l2;
    char *none = request_bytes("echo", NULL, NULL, &l1);
    char *forged = request_bytes(
        "echo", "MUNGE:AwQFAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:", NULL, &l2);
    char *both = malloc(l1 + l2);
    struct raw_job j = { .port = fx->port, .want = 2 };
    struct raw_job k = { .port = fx->port, .want = 1 };
    const char *errstr;

    memcpy(both, none, l1);
    memcpy(both + l1, forged, l2);
    j.data = both;
    j.len = l1 + l2;
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], &errstr), EDRV_PROTOCOL_AUTH);
    assert_string_equal(errstr, "request carries no credential");
    assert_true(j.eof);
    k.data = forged;
    k.len = l2;
    run_in_thread(fx, raw_fn, &k);
    assert_int_equal(k.got, 1);
    assert_int_equal(resp_errnum(k.resp[0], &errstr), EDRV_PROTOCOL_AUTH);
    assert_non_null(strstr(errstr, "MUNGE decode failed"));
    assert_true(k.eof);
    assert_int_equal(fx->handled, 0);
    raw_clear(&j);
    raw_clear(&k);
    free(both);
    free(none);
    free(forged);
}

static void cred_for_another_message_is_an_auth_error(void **state)
{
    struct fx *fx = *state;
    json_t *body1 = json_pack("{s:i}", "job_id", 1);
    char *cred1 = proto_auth_encode(fx->auth, "echo", body1, NULL);
    char *cred2 = proto_auth_encode(fx->auth, "echo", body1, NULL);
    size_t l1, l2;
    /* the same credential glued to another body, and to another type */
    char *other_body = request_bytes("echo", cred1,
                                     json_pack("{s:i}", "job_id", 2), &l1);
    char *other_type = request_bytes("fail", cred2, json_incref(body1), &l2);
    struct raw_job j = { .port = fx->port, .want = 1 };
    struct raw_job k = { .port = fx->port, .want = 1 };
    const char *errstr;

    assert_non_null(cred1);
    j.data = other_body;
    j.len = l1;
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], &errstr), EDRV_PROTOCOL_AUTH);
    assert_string_equal(errstr, "credential was not issued for this message");
    assert_true(j.eof); /* never authenticated: answered once, closed */
    k.data = other_type;
    k.len = l2;
    run_in_thread(fx, raw_fn, &k);
    assert_int_equal(k.got, 1);
    assert_int_equal(resp_errnum(k.resp[0], &errstr), EDRV_PROTOCOL_AUTH);
    assert_int_equal(fx->handled, 0);
    raw_clear(&j);
    raw_clear(&k);
    free(other_body);
    free(other_type);
    free(cred1);
    free(cred2);
    json_decref(body1);
}

static void replayed_cred_is_an_auth_error(void **state)
{
    struct fx *fx = *state;
    json_t *body = json_pack("{s:i}", "n", 1);
    char *cred = proto_auth_encode(fx->auth, "echo", body, NULL);
    size_t len;
    char *once = request_bytes("echo", cred, body, &len);
    char *twice = malloc(2 * len);
    struct raw_job j = { .port = fx->port, .want = 2 };
    struct proto_msg m;
    const char *errstr;

    memcpy(twice, once, len);
    memcpy(twice + len, once, len);
    j.data = twice;
    j.len = 2 * len;
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 2);
    assert_int_equal(proto_msg_parse(j.resp[0], &m, NULL), 0);
    assert_string_equal(m.type, "echo");
    assert_int_equal(resp_errnum(j.resp[1], &errstr), EDRV_PROTOCOL_AUTH);
    assert_non_null(strstr(errstr, "eplayed"));
    assert_int_equal(fx->handled, 1);
    raw_clear(&j);
    free(twice);
    free(once);
    free(cred);
}

static void pipelined_requests_are_answered_in_order(void **state)
{
    struct fx *fx = *state;
    char *cred1 = proto_auth_encode(fx->auth, "later", NULL, NULL);
    char *cred2 = proto_auth_encode(fx->auth, "echo", NULL, NULL);
    size_t l1, l2;
    char *f1 = request_bytes("later", cred1, NULL, &l1);
    char *f2 = request_bytes("echo", cred2, NULL, &l2);
    char *both = malloc(l1 + l2);
    struct raw_job j = { .port = fx->port, .want = 2 };
    struct proto_msg m;

    memcpy(both, f1, l1);
    memcpy(both + l1, f2, l2);
    j.data = both;
    j.len = l1 + l2;
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 2);
    /* "later" answers 50 ms after "echo" could have: order still holds */
    assert_int_equal(proto_msg_parse(j.resp[0], &m, NULL), 0);
    assert_string_equal(m.type, "later");
    assert_int_equal(proto_msg_parse(j.resp[1], &m, NULL), 0);
    assert_string_equal(m.type, "echo");
    raw_clear(&j);
    free(both);
    free(f1);
    free(f2);
    free(cred1);
    free(cred2);
}

static void idle_connection_is_closed(void **state)
{
    struct fx *fx = *state;
    struct raw_job j = { .port = fx->port, .want = 0 };

    proto_server_set_idle_timeout(fx->server, 100);
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.err, 0);
    assert_true(j.eof); /* before the 5 s receive timeout */
}

static void on_pause(uv_timer_t *t)
{
    atomic_store((atomic_int *)t->data, 1);
}

/* Turn the loop for 'ms' milliseconds. */
static void run_for(struct fx *fx, unsigned ms)
{
    uv_timer_t t;
    atomic_int done = 0;

    uv_timer_init(&fx->loop, &t);
    t.data = &done;
    uv_timer_start(&t, on_pause, ms, 0);
    run_until(fx, &done);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&fx->loop, UV_RUN_NOWAIT);
}

static void answers_to_a_vanished_client_do_not_kill_the_server(void **state)
{
    struct fx *fx = *state;
    char *cred1 = proto_auth_encode(fx->auth, "later", NULL, NULL);
    char *cred2 = proto_auth_encode(fx->auth, "later", NULL, NULL);
    size_t l1, l2;
    char *f1 = request_bytes("later", cred1, NULL, &l1);
    char *f2 = request_bytes("later", cred2, NULL, &l2);
    char *both = malloc(l1 + l2);
    struct raw_job j = { .port = fx->port, .close_now = 1 };
    struct result r;

    memcpy(both, f1, l1);
    memcpy(both + l1, f2, l2);
    j.data = both;
    j.len = l1 + l2;
    run_in_thread(fx, raw_fn, &j);
    /* Both answers go to a closed socket: the second write meets the
     * peer's RST (EPIPE, and SIGPIPE unless the library ignores it).
     */
    run_for(fx, 250);
    assert_int_equal(fx->handled, 2);
    call_async(fx, "127.0.0.1", fx->port, "echo", NULL, 5000, &r);
    assert_int_equal(r.errnum, 0);
    result_clear(&r);
    free(both);
    free(f1);
    free(f2);
    free(cred1);
    free(cred2);
}

static void busy_connection_is_not_idle(void **state)
{
    struct fx *fx = *state;
    struct result r;

    proto_server_set_idle_timeout(fx->server, 50);
    call_async(fx, "127.0.0.1", fx->port, "hold", NULL, 400, &r);
    /* still open while the request is outstanding: a timeout, not a reset */
    assert_int_equal(r.errnum, ETIMEDOUT);
}

/* A client that asks for many large answers and does not read them. */
struct flood_job {
    uint16_t port;
    int count;
    atomic_int *handled;
    int handled_unread; /* requests the server had taken while we slept */
    int got;
    int in_order;
    int err;
};

static void flood_fn(void *arg)
{
    struct flood_job *j = arg;
    proto_auth_t *auth = proto_auth_create(munge_sock, NULL);
    proto_decoder_t *d = proto_decoder_create();
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_port = htons(j->port) };
    struct timeval tv = { .tv_sec = 5 };
    int small = 65536;
    char *buf = malloc(65536);
    int fd = -1;

    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    /* A small receive buffer keeps the kernel from absorbing the flood. */
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0
        || setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) < 0
        || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
        j->err = errno;
        goto done;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (int i = 0; i < j->count; i++) {
        json_t *body = json_pack("{s:i}", "seq", i);
        char *cred = proto_auth_encode(auth, "big", body, NULL);
        json_t *msg = proto_msg_request("big", cred, body);
        char *f;
        size_t n;

        proto_frame_encode(msg, &f, &n);
        if (send(fd, f, n, MSG_NOSIGNAL) != (ssize_t)n)
            j->err = errno;
        free(f);
        free(cred);
        json_decref(msg);
    }
    usleep(700000); /* the server's loop turns meanwhile */
    j->handled_unread = atomic_load(j->handled);
    j->in_order = 1;
    while (j->got < j->count) {
        json_t *msg;
        ssize_t n = recv(fd, buf, 65536, 0);

        if (n <= 0)
            break;
        proto_decoder_feed(d, buf, (size_t)n);
        while ((msg = proto_decoder_next(d, NULL))) {
            json_t *seq = json_object_get(json_object_get(msg, "body"), "seq");
            if (json_integer_value(seq) != j->got)
                j->in_order = 0;
            j->got++;
            json_decref(msg);
        }
    }
done:
    if (fd >= 0)
        close(fd);
    free(buf);
    proto_decoder_destroy(d);
    proto_auth_destroy(auth);
}

static void client_that_does_not_read_is_throttled(void **state)
{
    struct fx *fx = *state;
    struct flood_job j = { .port = fx->port, .count = 32,
                           .handled = &fx->handled };

    run_in_thread(fx, flood_fn, &j);
    assert_int_equal(j.err, 0);
    /* 32 MiB of answers: the server stops taking requests near 4 MiB
     * queued plus what the kernel holds (about 8 answers), and takes the
     * rest once the client reads.
     */
    assert_true(j.handled_unread <= j.count / 2);
    assert_int_equal(j.got, j.count);
    assert_true(j.in_order);
}

static void listen_on_a_taken_port_fails(void **state)
{
    struct fx *fx = *state;
    drv_error_t error = { { 0 } };
    char want[32];

    errno = 0;
    assert_int_equal(
        proto_server_listen(fx->server, "127.0.0.1", fx->port, &error), -1);
    assert_int_equal(errno, EADDRINUSE);
    snprintf(want, sizeof(want), "127.0.0.1:%u", (unsigned)fx->port);
    assert_non_null(strstr(error.text, want));
    /* the first listener is unharmed */
    assert_int_equal(proto_server_port(fx->server), fx->port);
}

static void register_refuses_a_type_twice(void **state)
{
    struct fx *fx = *state;
    static const struct proto_handler dup[] = {
        { "echo", rpc_echo, PROTO_ROLE_USER },
        PROTO_HANDLER_END,
    };
    drv_error_t error = { { 0 } };

    errno = 0;
    assert_int_equal(proto_server_register(fx->server, dup, fx, &error), -1);
    assert_int_equal(errno, EEXIST);
    assert_non_null(strstr(error.text, "'echo'"));
    assert_int_equal(proto_server_unregister(fx->server, dup), -1);
    assert_int_equal(errno, ENOENT);
}

/* --- limits before authentication ---------------------------------------- */

static void set_unauth(struct fx *fx, unsigned max_conns, unsigned timeout_ms,
                       uint32_t frame_max, size_t budget)
{
    struct proto_unauth_limits lim = { .max_conns = max_conns,
                                       .timeout_ms = timeout_ms,
                                       .frame_max = frame_max,
                                       .budget = budget };

    assert_int_equal(proto_server_set_unauth_limits(fx->server, &lim), 0);
}

static void unauth_limits_have_defaults_and_are_checked(void **state)
{
    struct fx *fx = *state;
    struct proto_unauth_limits lim;

    proto_server_get_unauth_limits(fx->server, &lim);
    assert_true(lim.max_conns >= 1
                && lim.max_conns <= PROTO_UNAUTH_MAX_CONNS);
    assert_int_equal(lim.timeout_ms, PROTO_UNAUTH_TIMEOUT_MS);
    assert_int_equal(lim.frame_max, PROTO_UNAUTH_FRAME_MAX);
    assert_int_equal(lim.budget, PROTO_UNAUTH_BUDGET);
    lim.frame_max = PROTO_FRAME_MAX + 1;
    errno = 0;
    assert_int_equal(proto_server_set_unauth_limits(fx->server, &lim), -1);
    assert_int_equal(errno, EINVAL);
    lim.frame_max = 100;
    lim.max_conns = 0;
    assert_int_equal(proto_server_set_unauth_limits(fx->server, &lim), -1);
    assert_int_equal(proto_server_last_drop(fx->server), 0);
}

/* Without a request it is closed after the unauthenticated timeout, long
 * before the idle timeout.
 */
static void unauthenticated_connection_is_closed_after_timeout(void **state)
{
    struct fx *fx = *state;
    struct raw_job j = { .port = fx->port, .want = 0 };

    proto_server_set_unauth_timeout(fx->server, 100);
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.err, 0);
    assert_true(j.eof); /* before the 5 s receive timeout */
    /* a timeout is not a drop */
    assert_int_equal(proto_server_last_drop(fx->server), 0);
}

/* A connection whose first request authenticated keeps its slot: a pause
 * longer than the unauthenticated timeout does not close it.
 */
struct pause_job {
    uint16_t port;
    int rc[2];
    json_t *resp[2];
};

static void pause_fn(void *arg)
{
    struct pause_job *p = arg;
    proto_auth_t *auth = proto_auth_create(munge_sock, NULL);
    proto_client_t *c = proto_client_connect("127.0.0.1", p->port, 5000,
                                             NULL);
    char big[4096];

    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    p->rc[0] = proto_client_call(c, auth, "echo", NULL, &p->resp[0], NULL);
    usleep(400 * 1000);
    /* larger than the first-frame limit: allowed once authenticated */
    p->rc[1] = proto_client_call(c, auth, "echo",
                                 json_pack("{s:s}", "d", big), &p->resp[1],
                                 NULL);
    proto_client_destroy(c);
    proto_auth_destroy(auth);
}

static void authenticated_connection_leaves_the_limits(void **state)
{
    struct fx *fx = *state;
    struct pause_job p = { .port = fx->port, .rc = { -9, -9 } };

    set_unauth(fx, 4, 100, 1024, PROTO_UNAUTH_BUDGET);
    run_in_thread(fx, pause_fn, &p);
    assert_int_equal(p.rc[0], 0);
    assert_int_equal(p.rc[1], 0);
    assert_string_equal(
        json_string_value(json_object_get(p.resp[0], "peer")),
        json_string_value(json_object_get(p.resp[1], "peer")));
    json_decref(p.resp[0]);
    json_decref(p.resp[1]);
}

/* A first frame announcing more than the limit is refused at its header,
 * without waiting for (or buffering) its payload.
 */
static void first_frame_over_the_limit_is_refused_at_once(void **state)
{
    struct fx *fx = *state;
    /* 1 MiB announced; only 5 bytes follow */
    struct raw_job j = { .port = fx->port, .data = "\0\x10\0\0{\"v\":",
                         .len = 9, .want = 1 };
    const char *errstr;

    set_unauth(fx, 4, 10000, 1024, PROTO_UNAUTH_BUDGET);
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], &errstr),
                     EDRV_PROTOCOL_MALFORMED);
    assert_non_null(strstr(errstr, "exceeds the 1024 byte limit"));
    assert_true(j.eof);
    raw_clear(&j);
}

/* Bytes buffered by unauthenticated connections beyond the free bytes of
 * each are bounded: the connection going over is answered EAGAIN and
 * closed, and the server notes the drop.
 */
static void unauthenticated_bytes_are_bounded(void **state)
{
    struct fx *fx = *state;
    size_t n = PROTO_UNAUTH_FREE_BYTES + 8192;
    char *data = malloc(n);
    struct raw_job j = { .port = fx->port, .want = 1 };
    const char *errstr;

    /* announces n - 4 bytes: within the frame limit, over the budget */
    data[0] = 0;
    data[1] = (char)((n - 4) >> 16);
    data[2] = (char)((n - 4) >> 8);
    data[3] = (char)(n - 4);
    memset(data + 4, ' ', n - 4);
    data[4] = '{';
    j.data = data;
    j.len = n - 1; /* one byte short: the frame never completes */
    set_unauth(fx, 4, 10000, 1024 * 1024, 4096);
    run_in_thread(fx, raw_fn, &j);
    assert_int_equal(j.got, 1);
    assert_int_equal(resp_errnum(j.resp[0], &errstr), EAGAIN);
    assert_non_null(strstr(errstr, "not authenticated"));
    assert_true(j.eof);
    assert_true(proto_server_last_drop(fx->server) != 0);
    raw_clear(&j);
    free(data);
}

/* Whether the server closed 'fd' (EOF or reset) within 'ms'. */
static int peer_closed(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char b;

    if (poll(&p, 1, ms) <= 0)
        return 0;
    return recv(fd, &b, 1, MSG_DONTWAIT) <= 0;
}

static int raw_connect(uint16_t port)
{
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_port = htons(port) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Cap of 2: a new connection closes the oldest silent unauthenticated one,
 * never one that sent something while a silent one is there, and a real
 * client always gets in.
 */
struct cap_job {
    uint16_t port;
    int a_evicted;      /* A (silent, oldest) closed for C */
    int b_kept, c_kept; /* B (sent a byte) and C open then */
    int d_rc;           /* D, a real client, was served */
    int c_evicted;      /* C (silent) closed for D, not B */
    int b_kept_later;
};

static void cap_fn(void *arg)
{
    struct cap_job *p = arg;
    proto_auth_t *auth = proto_auth_create(munge_sock, NULL);
    json_t *resp = NULL;
    int a, b, c;

    a = raw_connect(p->port);
    usleep(50 * 1000);
    b = raw_connect(p->port);
    send(b, "\0", 1, MSG_NOSIGNAL); /* the start of a length header */
    usleep(50 * 1000);
    c = raw_connect(p->port);
    p->a_evicted = peer_closed(a, 2000);
    p->b_kept = !peer_closed(b, 100);
    p->c_kept = !peer_closed(c, 100);
    p->d_rc = proto_call_sync("127.0.0.1", p->port, auth, "echo", NULL,
                              &resp, 5000, NULL);
    p->c_evicted = peer_closed(c, 2000);
    p->b_kept_later = !peer_closed(b, 100);
    json_decref(resp);
    close(a);
    close(b);
    close(c);
    proto_auth_destroy(auth);
}

static void unauthenticated_cap_evicts_the_oldest_silent_connection(
    void **state)
{
    struct fx *fx = *state;
    struct cap_job p = { .port = fx->port, .d_rc = -9 };

    set_unauth(fx, 2, 20000, PROTO_UNAUTH_FRAME_MAX, PROTO_UNAUTH_BUDGET);
    run_in_thread(fx, cap_fn, &p);
    assert_true(p.a_evicted);
    assert_true(p.b_kept);
    assert_true(p.c_kept);
    assert_int_equal(p.d_rc, 0);
    assert_true(p.c_evicted);
    assert_true(p.b_kept_later);
    assert_true(proto_server_last_drop(fx->server) != 0);
}

static void auth_digest_binds_type_and_body(void **state)
{
    json_t *a = json_pack("{s:i s:i}", "x", 1, "y", 2);
    json_t *b = json_pack("{s:i s:i}", "y", 2, "x", 1); /* same, reordered */
    json_t *c = json_pack("{s:i s:i}", "x", 1, "y", 3);
    unsigned char da[PROTO_AUTH_DIGEST_LEN], db[PROTO_AUTH_DIGEST_LEN];
    unsigned char dc[PROTO_AUTH_DIGEST_LEN], dt[PROTO_AUTH_DIGEST_LEN];

    (void)state;
    assert_int_equal(proto_auth_digest("t", a, da), 0);
    assert_int_equal(proto_auth_digest("t", b, db), 0);
    assert_int_equal(proto_auth_digest("t", c, dc), 0);
    assert_int_equal(proto_auth_digest("u", a, dt), 0);
    assert_memory_equal(da, db, sizeof(da));
    assert_memory_not_equal(da, dc, sizeof(da));
    assert_memory_not_equal(da, dt, sizeof(da));
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

/* Hex of a digest, for comparing with a written-down vector. */
static void digest_hex(const unsigned char *d, char out[65])
{
    for (size_t i = 0; i < PROTO_AUTH_DIGEST_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The digest is plain SHA-256 of "type\0" + compact sorted body, as
 * docs/protocol.md says (vectors from Python: hashlib.sha256(
 * b'ping\0{}') and hashlib.sha256(b't\0{"x":1,"y":2}')).
 */
static void auth_digest_is_sha256_of_type_nul_body(void **state)
{
    json_t *body = json_pack("{s:i s:i}", "y", 2, "x", 1);
    unsigned char d[PROTO_AUTH_DIGEST_LEN];
    char hex[65];

    (void)state;
    assert_int_equal(proto_auth_digest("ping", NULL, d), 0);
    digest_hex(d, hex);
    assert_string_equal(hex, "2c831df594c5af4eaa2c5cf87cf0045b"
                             "0e2b9c33357617f8b0723254c3479fe7");
    assert_int_equal(proto_auth_digest("t", body, d), 0);
    digest_hex(d, hex);
    assert_string_equal(hex, "dccc898cf182a1ccdc4947cf731ec679"
                             "cb3d36535d9d0ce68e6d618637a1cf7b");
    errno = 0;
    assert_int_equal(proto_auth_digest(NULL, body, d), -1);
    assert_int_equal(errno, EINVAL);
    json_decref(body);
}

/* A credential whose payload is the retired FNV-1a "drv1:" digest (or
 * anything but "drv2:") is refused, even for the right message.
 */
static void auth_refuses_old_payload_version(void **state)
{
    char *cred = NULL;
    drv_error_t error = { { 0 } };
    munge_ctx_t ctx = munge_ctx_create();
    proto_auth_t *auth = proto_auth_create(munge_sock, NULL);
    const char *old = "drv1:0123456789abcdef";

    (void)state;
    assert_non_null(ctx);
    assert_int_equal(munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_sock),
                     EMUNGE_SUCCESS);
    assert_int_equal(munge_encode(&cred, ctx, old, (int)strlen(old)),
                     EMUNGE_SUCCESS);
    errno = 0;
    assert_int_equal(proto_auth_decode(auth, cred, "ping", NULL, NULL, NULL,
                                       NULL, &error),
                     -1);
    assert_int_equal(errno, EDRV_PROTOCOL_AUTH);
    assert_non_null(strstr(error.text, "drv2"));
    free(cred);
    munge_ctx_destroy(ctx);
    proto_auth_destroy(auth);
}

static void auth_errors_name_munge_reason(void **state)
{
    proto_auth_t *bad = proto_auth_create("/nonexistent/munge.sock", NULL);
    drv_error_t error = { { 0 } };
    uid_t uid;
    gid_t gid;

    (void)state;
    assert_non_null(bad);
    errno = 0;
    assert_null(proto_auth_encode(bad, "t", NULL, &error));
    assert_int_equal(errno, EDRV_PROTOCOL_AUTH);
    assert_non_null(strstr(error.text, "MUNGE encode failed"));
    proto_auth_destroy(bad);

    bad = proto_auth_create(munge_sock, NULL);
    errno = 0;
    assert_int_equal(proto_auth_decode(bad, "not a credential", "t", NULL,
                                       &uid, &gid, NULL, &error),
                     -1);
    assert_int_equal(errno, EDRV_PROTOCOL_AUTH);
    proto_auth_destroy(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
        T(async_round_trip),
        T(async_calls_mint_off_the_loop),
        T(async_calls_cancelled_while_minting),
        T(async_text_body_round_trip),
        T(async_resolves_localhost_by_name),
        T(async_error_response_carries_errnum_and_text),
        T(async_error_without_text_gets_slurm_text),
        T(deferred_response_from_a_timer),
        T(role_not_in_table_gets_access_denied),
        T(no_roles_means_nothing_runs),
        T(unknown_type_is_not_supported),
        T(handler_answering_a_non_object_gets_einval),
        T(async_large_body_round_trip),
        T(async_connect_refused),
        T(async_timeout_then_late_answer_is_dropped),
        T(answer_after_server_destroy_just_frees),
        T(sync_client_keeps_connection_across_calls),
        T(sync_one_shot_by_name),
        T(sync_large_body_round_trip),
        T(sync_answer_in_parts_is_joined),
        T(sync_error_after_a_part_is_the_answer),
        T(sync_error_response_sets_errno_and_text),
        T(sync_connect_refused),
        T(sync_timeout),
        T(garbage_gets_malformed_and_server_serves_the_next),
        T(non_object_frame_gets_malformed_and_closed),
        T(truncated_frame_gets_malformed),
        T(bad_envelope_is_answered_and_connection_kept),
        T(missing_or_forged_cred_is_an_auth_error),
        T(cred_for_another_message_is_an_auth_error),
        T(replayed_cred_is_an_auth_error),
        T(pipelined_requests_are_answered_in_order),
        T(idle_connection_is_closed),
        T(answers_to_a_vanished_client_do_not_kill_the_server),
        T(busy_connection_is_not_idle),
        T(client_that_does_not_read_is_throttled),
        T(listen_on_a_taken_port_fails),
        T(register_refuses_a_type_twice),
        T(unauth_limits_have_defaults_and_are_checked),
        T(unauthenticated_connection_is_closed_after_timeout),
        T(authenticated_connection_leaves_the_limits),
        T(first_frame_over_the_limit_is_refused_at_once),
        T(unauthenticated_bytes_are_bounded),
        T(unauthenticated_cap_evicts_the_oldest_silent_connection),
#undef T
        cmocka_unit_test(auth_digest_binds_type_and_body),
        cmocka_unit_test(auth_digest_is_sha256_of_type_nul_body),
        cmocka_unit_test(auth_refuses_old_payload_version),
        cmocka_unit_test(auth_errors_name_munge_reason),
    };
    int rc;

    /* Server-side rejections are logged; keep the TAP stream readable. */
    log_init("test_proto", LOG_LEVEL_QUIET);
    /* SIGPIPE is deliberately left at its default: the library must cope. */
    if (munged_start() < 0) {
        munged_stop();
        return 1;
    }
    cmocka_set_message_output(CM_OUTPUT_TAP);
    if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='sync_*' */
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    munged_stop();
    return rc;
}
