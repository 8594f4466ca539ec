/* SPDX-License-Identifier: Apache-2.0
 *
 * test_stepio_tls.c - srun's and sattach's end of a node's I/O
 * connection (stepio.h: stepio_accept, stepio_conn_feed,
 * stepio_conn_send) against a real node end on loopback: with TLS on,
 * the command speaks first (ClientHello), verifies the node's
 * certificate against the CA and the address the node connects from,
 * and frames cross both ways inside TLS; a plain node, or one whose
 * certificate names another address, is refused; with TLS off the bytes
 * are the frames.  The certificates are made with the openssl command.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/lib/stepio.h"
#include "common/fdio.h"

#include "certs.h"

static char dir[] = "/tmp/drover-test-stepio-tls-XXXXXX";
static char path[4][160]; /* ca.pem, node.pem, node.key, far.pem */

/* CA "ca" signs node.pem (IP:127.0.0.1) and far.pem (IP:10.9.9.9, the
 * same key). */
static int make_certs(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path[0], sizeof(path[0]), "%s/ca.pem", dir);
    snprintf(path[1], sizeof(path[1]), "%s/node.pem", dir);
    snprintf(path[2], sizeof(path[2]), "%s/node.key", dir);
    snprintf(path[3], sizeof(path[3]), "%s/far.pem", dir);
    return certs_ca(dir, "ca")
                   || certs_issue(dir, "ca", "node", "node", "IP:127.0.0.1")
                   || certs_issue(dir, "ca", "far", "node", "IP:10.9.9.9")
               ? -1
               : 0;
}

static int remove_certs(void **state)
{
    (void)state;
    proto_tls_ctx_destroy(proto_tls_client_ctx_get());
    proto_tls_client_use(NULL);
    return certs_sh("rm -rf '%s'", dir) == 0 ? 0 : -1;
}

/* A listening socket on 127.0.0.1, a node connected to it (*node), and
 * the command's end accepted into *c.  Returns stepio_accept()'s. */
static int connect_node(int *node, struct stepio_conn *c)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    int lfd = socket(AF_INET, SOCK_STREAM, 0), rc;

    assert_true(lfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(lfd, 1), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
    assert_true((*node = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
    assert_int_equal(connect(*node, (struct sockaddr *)&sa, sizeof(sa)), 0);
    rc = stepio_accept("test", lfd, c);
    close(lfd);
    return rc;
}

/* The node's TLS engine sends what it has. */
static void node_flush(int fd, proto_tls_t *t)
{
    char *buf;
    ssize_t n;

    while ((n = proto_tls_output(t, &buf)) > 0) {
        assert_int_equal(fd_write_all(fd, buf, (size_t)n), 0);
        free(buf);
    }
}

/* One read on the node's socket into its engine, and its answer out. */
static void node_take(int fd, proto_tls_t *t)
{
    drv_error_t error = {{0}};
    char buf[16384];
    ssize_t n = read(fd, buf, sizeof(buf));

    assert_true(n > 0);
    if (proto_tls_feed(t, buf, (size_t)n, &error) < 0)
        fail_msg("node: %s", error.text);
    node_flush(fd, t);
}

static json_t *hello(void)
{
    return json_pack("{s:s s:[i] s:i s:s}", "node", "n1", "ranks", 0,
                     "node_index", 0, "io_key", "ab");
}

/* The node (TLS server, certificate 'cert') and the command shake hands.
 * Returns the node's engine. */
static proto_tls_t *handshake(int node, struct stepio_conn *c,
                              proto_tls_ctx_t **sctx, const char *cert)
{
    drv_error_t error = {{0}};
    proto_tls_t *t;

    if (!(*sctx = proto_tls_server_ctx(cert, path[2], &error)))
        fail_msg("%s", error.text);
    assert_non_null(t = proto_tls_create(*sctx, NULL, &error));
    node_take(node, t);                          /* ClientHello */
    return t;
}

static void setup_client_ctx(void)
{
    drv_error_t error = {{0}};

    if (!proto_tls_client_ctx_get()
        && proto_tls_client_setup(true, path[0], &error) < 0)
        fail_msg("%s", error.text);
}

static void frames_cross_both_ways_inside_tls(void **state)
{
    struct stepio_conn c;
    proto_tls_ctx_t *sctx;
    proto_tls_t *t;
    drv_error_t error = {{0}};
    json_t *m = hello(), *got;
    char *data, plain[4096];
    size_t len;
    ssize_t n;
    int node;

    (void)state;
    setup_client_ctx();
    assert_int_equal(connect_node(&node, &c), 0);
    assert_non_null(c.tls);
    assert_string_equal(c.addr, "127.0.0.1");
    t = handshake(node, &c, &sctx, path[1]);
    assert_int_equal(stepio_conn_feed("test", &c), 0); /* records only */
    node_take(node, t);                                /* its Finished */
    assert_true(proto_tls_established(t));
    /* the node's hello, encrypted, reaches the decoder */
    assert_int_equal(proto_frame_encode(m, &data, &len), 0);
    assert_int_equal(proto_tls_write(t, data, len, &error), 0);
    free(data);
    node_flush(node, t);
    assert_int_equal(stepio_conn_feed("test", &c), 1);
    assert_non_null(got = proto_decoder_next(c.dec, NULL));
    assert_true(json_equal(got, m));
    json_decref(got);
    /* and a frame of ours reaches the node, in ciphertext */
    assert_int_equal(stepio_conn_send(&c, m), 0);
    node_take(node, t);
    assert_true((n = proto_tls_read(t, plain, sizeof(plain), &error)) > 4);
    assert_non_null(memmem(plain, (size_t)n, "\"io_key\"", 8));
    json_decref(m);
    proto_tls_destroy(t);
    proto_tls_ctx_destroy(sctx);
    stepio_conn_close(&c);
    close(node);
}

static void a_plain_node_is_refused(void **state)
{
    struct stepio_conn c;
    json_t *m = hello();
    char buf[4096], *data;
    size_t len;
    int node;

    (void)state;
    setup_client_ctx();
    assert_int_equal(connect_node(&node, &c), 0);
    assert_true(read(node, buf, sizeof(buf)) > 0); /* a ClientHello */
    assert_int_equal(buf[0], 0x16);
    assert_int_equal(proto_frame_encode(m, &data, &len), 0);
    assert_int_equal(fd_write_all(node, data, len), 0);
    free(data);
    assert_int_equal(stepio_conn_feed("test", &c), -1);
    json_decref(m);
    stepio_conn_close(&c);
    close(node);
}

static void a_certificate_for_another_address_is_refused(void **state)
{
    struct stepio_conn c;
    proto_tls_ctx_t *sctx;
    proto_tls_t *t;
    int node;

    (void)state;
    setup_client_ctx();
    assert_int_equal(connect_node(&node, &c), 0);
    t = handshake(node, &c, &sctx, path[3]);
    assert_int_equal(stepio_conn_feed("test", &c), -1);
    proto_tls_destroy(t);
    proto_tls_ctx_destroy(sctx);
    stepio_conn_close(&c);
    close(node);
}

static void without_tls_the_bytes_are_the_frames(void **state)
{
    struct stepio_conn c;
    json_t *m = hello(), *got;
    char buf[16], *data;
    size_t len;
    int node;

    (void)state;
    proto_tls_ctx_destroy(proto_tls_client_ctx_get());
    proto_tls_client_use(NULL);
    assert_int_equal(connect_node(&node, &c), 0);
    assert_null(c.tls);
    /* the command says nothing first */
    assert_int_equal(recv(node, buf, sizeof(buf), MSG_DONTWAIT), -1);
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
    assert_int_equal(proto_frame_encode(m, &data, &len), 0);
    assert_int_equal(fd_write_all(node, data, len), 0);
    assert_int_equal(stepio_conn_feed("test", &c), 1);
    assert_non_null(got = proto_decoder_next(c.dec, NULL));
    assert_true(json_equal(got, m));
    json_decref(got);
    /* ours go out as they are */
    assert_int_equal(stepio_conn_send(&c, m), 0);
    assert_int_equal(read(node, buf, 4), 4);
    assert_memory_equal(buf, data, 4);
    free(data);
    json_decref(m);
    stepio_conn_close(&c);
    close(node);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_cross_both_ways_inside_tls),
        cmocka_unit_test(a_plain_node_is_refused),
        cmocka_unit_test(a_certificate_for_another_address_is_refused),
        cmocka_unit_test(without_tls_the_bytes_are_the_frames),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, make_certs, remove_certs);
}
