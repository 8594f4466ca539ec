/* SPDX-License-Identifier: Apache-2.0
 *
 * test_tls.c - the TLS engine (proto/tls.h): a client and a server
 * handshake over memory, bytes cross both ways, a server the CA does not
 * vouch for or that is not the host dialled is refused with a reason, and
 * bytes that are not TLS are refused.  The certificates are made at test
 * time with the openssl command in a temporary directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "proto/tls.h"

#include "certs.h"

static char dir[] = "/tmp/drover-test-tls-XXXXXX";
static char ca_pem[128], other_pem[128], cert_pem[128], key_pem[128];

/* CA "ca" signs the server's certificate (127.0.0.1 and localhost); CA
 * "other" signs nothing. */
static int make_certs(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(ca_pem, sizeof(ca_pem), "%s/ca.pem", dir);
    snprintf(other_pem, sizeof(other_pem), "%s/other.pem", dir);
    snprintf(cert_pem, sizeof(cert_pem), "%s/server.pem", dir);
    snprintf(key_pem, sizeof(key_pem), "%s/server.key", dir);
    return certs_ca(dir, "ca") || certs_ca(dir, "other")
                   || certs_issue(dir, "ca", "server", "server",
                                  "IP:127.0.0.1,DNS:localhost")
               ? -1
               : 0;
}

static int remove_certs(void **state)
{
    (void)state;
    return certs_sh("rm -rf '%s'", dir) == 0 ? 0 : -1;
}

/* Move what 'from' has for its peer into 'to'.  Returns 1 when something
 * moved, 0 when nothing, -1 when 'to' refused it (errno, 'error'). */
static int pass(proto_tls_t *from, proto_tls_t *to, drv_error_t *error)
{
    char *buf;
    ssize_t n = proto_tls_output(from, &buf);
    int rc;

    assert_true(n >= 0);
    if (n == 0)
        return 0;
    rc = proto_tls_feed(to, buf, (size_t)n, error);
    free(buf);
    return rc < 0 ? -1 : 1;
}

/* Pass records both ways until both are quiet.  Returns 0, or -1 with
 * *failed naming the side that refused. */
static int pump(proto_tls_t *c, proto_tls_t *s, drv_error_t *error,
                proto_tls_t **failed)
{
    int a, b;

    do {
        if ((a = pass(c, s, error)) < 0) {
            *failed = s;
            return -1;
        }
        if ((b = pass(s, c, error)) < 0) {
            *failed = c;
            return -1;
        }
    } while (a || b);
    return 0;
}

/* Read every decrypted byte 't' holds into a new buffer (*len bytes). */
static char *read_all(proto_tls_t *t, size_t *len)
{
    drv_error_t error = { { 0 } };
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    ssize_t n;

    *len = 0;
    while ((n = proto_tls_read(t, buf + *len, cap - *len, &error)) > 0) {
        *len += (size_t)n;
        if (*len == cap)
            assert_non_null(buf = realloc(buf, cap *= 2));
    }
    assert_int_equal(n, 0);
    return buf;
}

static void handshake_then_bytes_cross_both_ways(void **state)
{
    drv_error_t error = { { 0 } };
    proto_tls_ctx_t *cctx = proto_tls_client_ctx(ca_pem, &error);
    proto_tls_ctx_t *sctx = proto_tls_server_ctx(cert_pem, key_pem, &error);
    proto_tls_t *c, *s, *failed = NULL;
    size_t big_len = 3u << 20, len;
    char *big = malloc(big_len), *got;

    (void)state;
    assert_non_null(cctx);
    assert_non_null(sctx);
    assert_non_null(c = proto_tls_create(cctx, "127.0.0.1", &error));
    assert_non_null(s = proto_tls_create(sctx, NULL, &error));
    /* written before the handshake: kept until it is done */
    assert_int_equal(proto_tls_write(c, "hello", 5, &error), 0);
    assert_int_equal(pump(c, s, &error, &failed), 0);
    assert_true(proto_tls_established(c));
    assert_true(proto_tls_established(s));
    got = read_all(s, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(got, "hello", 5);
    free(got);
    /* a large answer, in many records */
    for (size_t i = 0; i < big_len; i++)
        big[i] = (char)(i * 7);
    assert_int_equal(proto_tls_write(s, big, big_len, &error), 0);
    assert_int_equal(pump(c, s, &error, &failed), 0);
    got = read_all(c, &len);
    assert_int_equal(len, big_len);
    assert_memory_equal(got, big, big_len);
    free(got);
    free(big);
    proto_tls_destroy(c);
    proto_tls_destroy(s);
    /* contexts may go before or after their connections */
    proto_tls_ctx_destroy(cctx);
    proto_tls_ctx_destroy(sctx);
}

static void a_name_in_the_certificate_is_accepted(void **state)
{
    drv_error_t error = { { 0 } };
    proto_tls_ctx_t *cctx = proto_tls_client_ctx(ca_pem, &error);
    proto_tls_ctx_t *sctx = proto_tls_server_ctx(cert_pem, key_pem, &error);
    proto_tls_t *c, *s, *failed = NULL;

    (void)state;
    c = proto_tls_create(cctx, "localhost", &error);
    s = proto_tls_create(sctx, NULL, &error);
    assert_int_equal(pump(c, s, &error, &failed), 0);
    assert_true(proto_tls_established(c));
    proto_tls_destroy(c);
    proto_tls_destroy(s);
    proto_tls_ctx_destroy(cctx);
    proto_tls_ctx_destroy(sctx);
}

/* A client dialling 'peer' with CA bundle 'ca' refuses the server. */
static void refused(const char *ca, const char *peer, const char *reason)
{
    drv_error_t error = { { 0 } };
    proto_tls_ctx_t *cctx = proto_tls_client_ctx(ca, &error);
    proto_tls_ctx_t *sctx = proto_tls_server_ctx(cert_pem, key_pem, &error);
    proto_tls_t *c, *s, *failed = NULL;

    assert_non_null(cctx);
    c = proto_tls_create(cctx, peer, &error);
    s = proto_tls_create(sctx, NULL, &error);
    assert_int_equal(proto_tls_write(c, "secret", 6, &error), 0);
    assert_int_equal(pump(c, s, &error, &failed), -1);
    assert_int_equal(errno, EPROTO);
    assert_ptr_equal(failed, c);
    assert_non_null(strstr(error.text, "certificate verify failed"));
    if (!strstr(error.text, reason))
        fail_msg("'%s' does not say '%s'", error.text, reason);
    assert_false(proto_tls_established(c));
    /* the client is done for */
    assert_int_equal(proto_tls_write(c, "x", 1, &error), -1);
    assert_int_equal(errno, EPROTO);
    proto_tls_destroy(c);
    proto_tls_destroy(s);
    proto_tls_ctx_destroy(cctx);
    proto_tls_ctx_destroy(sctx);
}

static void a_server_signed_by_another_ca_is_refused(void **state)
{
    (void)state;
    refused(other_pem, "127.0.0.1", "unable to get local issuer certificate");
}

static void a_server_that_is_not_the_host_dialled_is_refused(void **state)
{
    (void)state;
    refused(ca_pem, "10.1.2.3", "IP address mismatch");
    refused(ca_pem, "node7.example", "hostname mismatch");
}

static void a_plain_frame_is_refused_both_ways(void **state)
{
    static const char frame[] = "\0\0\0\x11{\"type\":\"ping\"}";
    drv_error_t error = { { 0 } };
    proto_tls_ctx_t *cctx = proto_tls_client_ctx(ca_pem, &error);
    proto_tls_ctx_t *sctx = proto_tls_server_ctx(cert_pem, key_pem, &error);
    proto_tls_t *c, *s;
    char *buf;

    (void)state;
    /* a plain client to a TLS server */
    s = proto_tls_create(sctx, NULL, &error);
    assert_int_equal(proto_tls_feed(s, frame, sizeof(frame) - 1, &error), -1);
    assert_int_equal(errno, EPROTO);
    assert_non_null(strstr(error.text, "TLS: "));
    assert_int_equal(proto_tls_read(s, &buf, 1, &error), -1);
    proto_tls_destroy(s);
    /* a TLS client to a plain server, which answers with a plain frame */
    c = proto_tls_create(cctx, "127.0.0.1", &error);
    assert_true(proto_tls_output(c, &buf) > 0); /* the ClientHello */
    assert_int_equal((unsigned char)buf[0], 0x16); /* a handshake record */
    free(buf);
    assert_int_equal(proto_tls_feed(c, frame, sizeof(frame) - 1, &error), -1);
    assert_int_equal(errno, EPROTO);
    assert_non_null(strstr(error.text, "TLS: "));
    proto_tls_destroy(c);
    proto_tls_ctx_destroy(cctx);
    proto_tls_ctx_destroy(sctx);
}

static void unusable_files_are_named(void **state)
{
    drv_error_t error = { { 0 } };

    (void)state;
    assert_null(proto_tls_client_ctx("/nonexistent/ca.pem", &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "/nonexistent/ca.pem"));
    /* a certificate with another's key */
    assert_null(proto_tls_server_ctx(cert_pem, ca_pem, &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, ca_pem));
    assert_null(proto_tls_server_ctx(NULL, key_pem, &error));
    assert_int_equal(errno, EINVAL);
}

static void client_setup_is_nothing_when_off(void **state)
{
    drv_error_t error = { { 0 } };

    (void)state;
    assert_int_equal(proto_tls_client_setup(false, NULL, &error), 0);
    assert_null(proto_tls_client_ctx_get());
    assert_int_equal(proto_tls_client_setup(true, ca_pem, &error), 0);
    assert_non_null(proto_tls_client_ctx_get());
    proto_tls_ctx_destroy(proto_tls_client_ctx_get());
    proto_tls_client_use(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handshake_then_bytes_cross_both_ways),
        cmocka_unit_test(a_name_in_the_certificate_is_accepted),
        cmocka_unit_test(a_server_signed_by_another_ca_is_refused),
        cmocka_unit_test(a_server_that_is_not_the_host_dialled_is_refused),
        cmocka_unit_test(a_plain_frame_is_refused_both_ways),
        cmocka_unit_test(unusable_files_are_named),
        cmocka_unit_test(client_setup_is_nothing_when_off),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, make_certs, remove_certs);
}
