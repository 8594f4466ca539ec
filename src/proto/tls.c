/* SPDX-License-Identifier: Apache-2.0
 *
 * tls.c - the TLS engine on memory BIOs (tls.h)
 *
 * Each connection is an SSL object between two memory BIOs: 'rbio' holds
 * ciphertext from the peer until OpenSSL consumes it, 'wbio' the records
 * OpenSSL made for the peer until the owner takes them.  A memory BIO
 * never blocks, so SSL_write() takes a whole frame at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proto/tls.h"
#include "proto/tls_dl.h"

struct proto_tls_ctx {
    SSL_CTX *ssl_ctx;
    bool server;
};

struct proto_tls {
    SSL *ssl;
    BIO *rbio, *wbio; /* owned by 'ssl' */
    bool server;
    bool failed;
    char *pending;    /* plaintext written before the handshake ended */
    size_t pending_len;
};

static proto_tls_ctx_t *client_ctx; /* proto_tls_client_use() */

int proto_tls_load(drv_error_t *error)
{
    return tls_dl_load(error);
}

/* The reason OpenSSL queued last (cleared), or 'dflt'. */
static const char *ssl_reason(const char *dflt)
{
    unsigned long e = 0, last;
    const char *r;

    while ((last = tls_dl.ERR_get_error()) != 0)
        e = last;
    r = e ? tls_dl.ERR_reason_error_string(e) : NULL;
    return r ? r : dflt;
}

/* --- contexts ----------------------------------------------------------- */

static proto_tls_ctx_t *ctx_new(bool server, drv_error_t *error)
{
    proto_tls_ctx_t *ctx;

    if (tls_dl_load(error) < 0)
        return NULL;
    if (!(ctx = calloc(1, sizeof(*ctx)))) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        return NULL;
    }
    ctx->server = server;
    tls_dl.ERR_clear_error();
    ctx->ssl_ctx = tls_dl.SSL_CTX_new(server ? tls_dl.TLS_server_method()
                                             : tls_dl.TLS_client_method());
    if (!ctx->ssl_ctx) {
        free(ctx);
        errno = ENOMEM;
        errprintf(error, "TLS: cannot make a context: %s",
                  ssl_reason("out of memory"));
        return NULL;
    }
    /* TLS 1.2 at least (1.3 is negotiated where both have it); no
     * renegotiation; no session tickets (every RPC connection is a new
     * one, resumption is not used). */
    tls_dl.SSL_CTX_ctrl(ctx->ssl_ctx, SSL_CTRL_SET_MIN_PROTO_VERSION,
                        TLS1_2_VERSION, NULL);
    tls_dl.SSL_CTX_set_options(ctx->ssl_ctx, SSL_OP_NO_RENEGOTIATION);
    if (server)
        tls_dl.SSL_CTX_set_num_tickets(ctx->ssl_ctx, 0);
    return ctx;
}

proto_tls_ctx_t *proto_tls_server_ctx(const char *cert, const char *key,
                                      drv_error_t *error)
{
    proto_tls_ctx_t *ctx;
    const char *bad = NULL;

    if (!cert || !key) {
        errno = EINVAL;
        errprintf(error, "TLS: a server needs drover_tls_cert= and "
                  "drover_tls_key=");
        return NULL;
    }
    if (!(ctx = ctx_new(true, error)))
        return NULL;
    if (tls_dl.SSL_CTX_use_certificate_chain_file(ctx->ssl_ctx, cert) != 1)
        bad = cert;
    else if (tls_dl.SSL_CTX_use_PrivateKey_file(ctx->ssl_ctx, key,
                                                SSL_FILETYPE_PEM) != 1
             || tls_dl.SSL_CTX_check_private_key(ctx->ssl_ctx) != 1)
        bad = key;
    if (bad) {
        errprintf(error, "TLS: %s: %s", bad, ssl_reason("unusable"));
        proto_tls_ctx_destroy(ctx);
        errno = EINVAL;
        return NULL;
    }
    return ctx;
}

proto_tls_ctx_t *proto_tls_client_ctx(const char *ca, drv_error_t *error)
{
    proto_tls_ctx_t *ctx;

    if (!ca) {
        errno = EINVAL;
        errprintf(error, "TLS: a client needs drover_tls_ca=");
        return NULL;
    }
    if (!(ctx = ctx_new(false, error)))
        return NULL;
    tls_dl.SSL_CTX_set_verify(ctx->ssl_ctx, SSL_VERIFY_PEER, NULL);
    if (tls_dl.SSL_CTX_load_verify_locations(ctx->ssl_ctx, ca, NULL) != 1) {
        errprintf(error, "TLS: %s: %s", ca, ssl_reason("unusable"));
        proto_tls_ctx_destroy(ctx);
        errno = EINVAL;
        return NULL;
    }
    return ctx;
}

void proto_tls_ctx_destroy(proto_tls_ctx_t *ctx)
{
    if (ctx) {
        int saved_errno = errno;
        tls_dl.SSL_CTX_free(ctx->ssl_ctx); /* SSL objects hold a reference */
        free(ctx);
        errno = saved_errno;
    }
}

void proto_tls_client_use(proto_tls_ctx_t *ctx)
{
    client_ctx = ctx;
}

proto_tls_ctx_t *proto_tls_client_ctx_get(void)
{
    return client_ctx;
}

int proto_tls_client_setup(bool rpc, const char *ca, drv_error_t *error)
{
    proto_tls_ctx_t *ctx;

    if (!rpc)
        return 0;
    if (!(ctx = proto_tls_client_ctx(ca, error)))
        return -1;
    proto_tls_ctx_destroy(client_ctx);
    proto_tls_client_use(ctx);
    return 0;
}

/* --- connections -------------------------------------------------------- */

/* The handshake or a record failed: 'ssl_err' from SSL_get_error(). */
static int tls_fail(proto_tls_t *t, int ssl_err, drv_error_t *error)
{
    long v = t->server ? X509_V_OK : tls_dl.SSL_get_verify_result(t->ssl);
    const char *reason = ssl_reason(NULL);

    t->failed = true;
    errno = EPROTO;
    if (v != X509_V_OK)
        return errprintf(error, "TLS: %s: %s",
                         reason ? reason : "certificate verify failed",
                         tls_dl.X509_verify_cert_error_string(v));
    if (reason)
        return errprintf(error, "TLS: %s", reason);
    if (ssl_err == SSL_ERROR_SYSCALL || ssl_err == SSL_ERROR_ZERO_RETURN)
        return errprintf(error, "TLS: the peer ended the session");
    return errprintf(error, "TLS: failed (SSL error %d)", ssl_err);
}

/* Encrypt plaintext kept for after the handshake. */
static int flush_pending(proto_tls_t *t, drv_error_t *error)
{
    int rc, e;

    if (t->pending_len == 0)
        return 0;
    rc = tls_dl.SSL_write(t->ssl, t->pending, (int)t->pending_len);
    if (rc <= 0) {
        e = tls_dl.SSL_get_error(t->ssl, rc);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
            return 0;
        return tls_fail(t, e, error);
    }
    free(t->pending);
    t->pending = NULL;
    t->pending_len = 0;
    return 0;
}

/* Move the handshake on; once done, send what waits. */
static int step(proto_tls_t *t, drv_error_t *error)
{
    int rc, e;

    if (!tls_dl.SSL_is_init_finished(t->ssl)) {
        if ((rc = tls_dl.SSL_do_handshake(t->ssl)) != 1) {
            e = tls_dl.SSL_get_error(t->ssl, rc);
            if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
                return 0;
            return tls_fail(t, e, error);
        }
    }
    return flush_pending(t, error);
}

static bool is_address(const char *host)
{
    unsigned char a[sizeof(struct in6_addr)];

    return inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1;
}

/* A client checks the server's certificate names 'peer'. */
static int expect_peer(proto_tls_t *t, const char *peer)
{
    if (is_address(peer))
        return tls_dl.X509_VERIFY_PARAM_set1_ip_asc(
                   tls_dl.SSL_get0_param(t->ssl), peer) == 1 ? 0 : -1;
    return tls_dl.SSL_set1_host(t->ssl, peer) == 1 ? 0 : -1;
}

proto_tls_t *proto_tls_create(proto_tls_ctx_t *ctx, const char *peer,
                              drv_error_t *error)
{
    proto_tls_t *t;

    if (!ctx || (!ctx->server && !peer)) {
        errno = EINVAL;
        errprintf(error, "TLS: no context, or a client without a peer");
        return NULL;
    }
    tls_dl.ERR_clear_error();
    if (!(t = calloc(1, sizeof(*t))) || !(t->ssl = tls_dl.SSL_new(ctx->ssl_ctx))
        || !(t->rbio = tls_dl.BIO_new(tls_dl.BIO_s_mem()))
        || !(t->wbio = tls_dl.BIO_new(tls_dl.BIO_s_mem())))
        goto nomem;
    tls_dl.SSL_set_bio(t->ssl, t->rbio, t->wbio);
    t->server = ctx->server;
    if (t->server) {
        tls_dl.SSL_set_accept_state(t->ssl);
        return t;
    }
    tls_dl.SSL_set_connect_state(t->ssl);
    if (expect_peer(t, peer) < 0) {
        errprintf(error, "TLS: cannot check the server's name against '%s'",
                  peer);
        proto_tls_destroy(t);
        errno = EINVAL;
        return NULL;
    }
    if (step(t, error) < 0) { /* the ClientHello */
        proto_tls_destroy(t);
        return NULL;
    }
    return t;
nomem:
    if (t && t->ssl && t->rbio && !t->wbio)
        tls_dl.BIO_free(t->rbio);
    proto_tls_destroy(t);
    errno = ENOMEM;
    errprintf(error, "out of memory");
    return NULL;
}

void proto_tls_destroy(proto_tls_t *t)
{
    if (t) {
        int saved_errno = errno;
        if (t->ssl)
            tls_dl.SSL_free(t->ssl); /* and its BIOs */
        free(t->pending);
        free(t);
        errno = saved_errno;
    }
}

int proto_tls_feed(proto_tls_t *t, const void *buf, size_t len,
                   drv_error_t *error)
{
    const char *p = buf;

    if (t->failed) {
        errno = EPROTO;
        return errprintf(error, "TLS: the session failed earlier");
    }
    tls_dl.ERR_clear_error();
    while (len > 0) {
        int chunk = len > INT_MAX ? INT_MAX : (int)len;
        int n = tls_dl.BIO_write(t->rbio, p, chunk);
        if (n <= 0) {
            errno = ENOMEM;
            return errprintf(error, "out of memory");
        }
        p += n;
        len -= (size_t)n;
    }
    return step(t, error);
}

ssize_t proto_tls_read(proto_tls_t *t, void *buf, size_t cap,
                       drv_error_t *error)
{
    int rc, e;

    if (t->failed) {
        errno = EPROTO;
        return errprintf(error, "TLS: the session failed earlier");
    }
    tls_dl.ERR_clear_error();
    rc = tls_dl.SSL_read(t->ssl, buf, cap > INT_MAX ? INT_MAX : (int)cap);
    if (rc > 0)
        return rc;
    e = tls_dl.SSL_get_error(t->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return 0;
    if (e == SSL_ERROR_ZERO_RETURN) {
        errno = ECONNRESET;
        return errprintf(error, "TLS: the peer closed the session");
    }
    return tls_fail(t, e, error);
}

int proto_tls_write(proto_tls_t *t, const void *buf, size_t len,
                    drv_error_t *error)
{
    char *more;

    if (t->failed) {
        errno = EPROTO;
        return errprintf(error, "TLS: the session failed earlier");
    }
    if (len == 0)
        return 0;
    tls_dl.ERR_clear_error();
    if (t->pending_len == 0 && len <= INT_MAX
        && tls_dl.SSL_is_init_finished(t->ssl)) {
        int rc = tls_dl.SSL_write(t->ssl, buf, (int)len), e;
        if (rc > 0)
            return 0; /* a memory BIO takes it all */
        e = tls_dl.SSL_get_error(t->ssl, rc);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
            return tls_fail(t, e, error);
    }
    if (len > INT_MAX - t->pending_len
        || !(more = realloc(t->pending, t->pending_len + len))) {
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    memcpy(more + t->pending_len, buf, len);
    t->pending = more;
    t->pending_len += len;
    return tls_dl.SSL_is_init_finished(t->ssl) ? flush_pending(t, error) : 0;
}

ssize_t proto_tls_output(proto_tls_t *t, char **buf)
{
    size_t n = tls_dl.BIO_ctrl_pending(t->wbio);
    int got;

    *buf = NULL;
    if (n == 0)
        return 0;
    if (n > INT_MAX)
        n = INT_MAX;
    if (!(*buf = malloc(n))) {
        errno = ENOMEM;
        return -1;
    }
    got = tls_dl.BIO_read(t->wbio, *buf, (int)n);
    if (got <= 0) {
        free(*buf);
        *buf = NULL;
        return 0;
    }
    return got;
}

bool proto_tls_established(const proto_tls_t *t)
{
    return tls_dl.SSL_is_init_finished(t->ssl) == 1;
}

static bool record_start(int first)
{
    return first == 0x16 || first == 0x15;
}

const char *proto_tls_hint_plain(int first)
{
    return first < 0 || record_start(first)
               ? "" : " (the server does not speak TLS: is "
                      "CommunicationParameters=drover_tls_rpc set in its "
                      "slurm.conf?)";
}

const char *proto_tls_hint_tls(int first)
{
    return record_start(first) ? " (the server speaks TLS: "
                                 "CommunicationParameters=drover_tls_rpc "
                                 "and drover_tls_ca= are needed here too)"
                               : "";
}
