/* SPDX-License-Identifier: Apache-2.0
 *
 * stepio.c - the client end of a step's I/O connections (stepio.h)
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/lib/rpc.h"
#include "cmd/lib/stepio.h"
#include "common/fdio.h"

/* Our address on the way to the controller: the one it sees our requests
 * come from (a UDP connect() sends nothing).  INADDR_ANY when it cannot
 * be told. */
static struct in_addr address_toward_controller(const char *prog)
{
    const struct slurm_conf *c = cmd_conf(prog);
    const char *host = c->ctld_addr ? c->ctld_addr : c->ctld_host;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM};
    struct addrinfo *res = NULL;
    struct sockaddr_in me = {.sin_family = AF_INET};
    socklen_t len = sizeof(me);
    char port[8];
    int fd = -1;

    snprintf(port, sizeof(port), "%u", (unsigned)c->ctld_port);
    if (host && getaddrinfo(host, port, &hints, &res) == 0
        && (fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0
        && connect(fd, res->ai_addr, res->ai_addrlen) == 0
        && getsockname(fd, (struct sockaddr *)&me, &len) == 0) {
        close(fd);
        freeaddrinfo(res);
        return me.sin_addr;
    }
    if (fd >= 0)
        close(fd);
    if (res)
        freeaddrinfo(res);
    return (struct in_addr){.s_addr = htonl(INADDR_ANY)};
}

int stepio_listen(const char *prog, int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr = address_toward_controller(prog)};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
        || listen(fd, 128) < 0
        || getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
        fprintf(stderr, "%s: error: I/O socket: %s\n", prog, strerror(errno));
        exit(1);
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

void stepio_make_key(const char *prog, char *key)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[STEPIO_KEY_BYTES];

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        fprintf(stderr, "%s: error: getrandom: %s\n", prog, strerror(errno));
        exit(1);
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        key[2 * i] = hex[raw[i] >> 4];
        key[2 * i + 1] = hex[raw[i] & 15];
    }
    key[2 * STEPIO_KEY_BYTES] = '\0';
}

bool stepio_key_ok(const char *key, json_t *m)
{
    const char *got = json_string_value(json_object_get(m, "io_key"));
    unsigned char diff = 0;

    if (!got || strlen(got) != 2 * STEPIO_KEY_BYTES
        || strlen(key) != 2 * STEPIO_KEY_BYTES)
        return false;
    for (size_t i = 0; i < 2 * STEPIO_KEY_BYTES; i++)
        diff |= (unsigned char)(got[i] ^ key[i]);
    return diff == 0;
}

void stepio_print(FILE *f, int rank, bool label, bool *mid_line,
                  const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (label && !*mid_line)
            fprintf(f, "%d: ", rank);
        fputc(data[i], f);
        *mid_line = data[i] != '\n';
    }
    fflush(f);
}

/* Send what the TLS engine has for the node (handshake records, an
 * alert, encrypted frames).  Returns 0, or -1 with errno. */
static int tls_flush(struct stepio_conn *c)
{
    char *buf;
    ssize_t n;

    while ((n = proto_tls_output(c->tls, &buf)) > 0) {
        int rc = fd_write_all(c->fd, buf, (size_t)n);
        free(buf);
        if (rc < 0)
            return -1;
    }
    return n < 0 ? -1 : 0;
}

/* The numeric address of the peer of 'fd' into 'buf'. */
static int peer_addr(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);

    return getpeername(fd, (struct sockaddr *)&ss, &sl) < 0
                   || getnameinfo((struct sockaddr *)&ss, sl, buf,
                                  (socklen_t)len, NULL, 0, NI_NUMERICHOST)
                          != 0
               ? -1
               : 0;
}

int stepio_accept(const char *prog, int lfd, struct stepio_conn *c)
{
    proto_tls_ctx_t *ctx = proto_tls_client_ctx_get();
    drv_error_t error = {{0}};
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

    if (fd < 0)
        return -1;
    *c = (struct stepio_conn){.fd = fd, .dec = proto_decoder_create()};
    if (peer_addr(fd, c->addr, sizeof(c->addr)) < 0)
        snprintf(c->addr, sizeof(c->addr), "?");
    if (!ctx)
        return 0;
    /* The node's certificate must name the address its connection comes
     * from, as an RPC client's check is against the address it dialled:
     * TCP's handshake proves the peer answers at that address, and it is
     * known before any byte is read.  Its node name comes later, inside
     * the session, and a reverse lookup of the address is not to be
     * trusted; the per-step secret in its hello then says it is a node
     * of this step. */
    if (!(c->tls = proto_tls_create(ctx, c->addr, &error))
        || tls_flush(c) < 0) {
        fprintf(stderr, "%s: error: I/O connection from %s: %s\n", prog,
                c->addr, c->tls ? strerror(errno) : error.text);
        stepio_conn_close(c);
        return -1;
    }
    return 0;
}

/* Ciphertext 'buf' ('n' bytes) from the node: decrypted into c->dec.
 * Returns as stepio_conn_feed(). */
static int tls_take(const char *prog, struct stepio_conn *c, const char *buf,
                    size_t n)
{
    bool handshaking = !proto_tls_established(c->tls);
    drv_error_t error = {{0}};
    char plain[16384];
    ssize_t m;
    int fed = 0;

    if (proto_tls_feed(c->tls, buf, n, &error) < 0) {
        (void)tls_flush(c); /* OpenSSL's alert, if any */
        fprintf(stderr, "%s: error: I/O connection from %s: %s%s\n", prog,
                c->addr, error.text,
                handshaking ? proto_tls_hint_plain((unsigned char)buf[0])
                            : "");
        return -1;
    }
    while ((m = proto_tls_read(c->tls, plain, sizeof(plain), &error)) > 0) {
        if (proto_decoder_feed(c->dec, plain, (size_t)m) < 0)
            return -1;
        fed = 1;
    }
    if (m < 0 && errno != ECONNRESET) /* ECONNRESET: the node's close */
        fprintf(stderr, "%s: error: I/O connection from %s: %s\n", prog,
                c->addr, error.text);
    if (m < 0 || tls_flush(c) < 0)
        return -1;
    return fed;
}

int stepio_conn_feed(const char *prog, struct stepio_conn *c)
{
    char buf[65536];
    ssize_t n = read(c->fd, buf, sizeof(buf));

    if (n < 0 && errno == EINTR)
        return 0;
    if (n > 0 && !c->authed
        && (c->preauth_in += (size_t)n) > STEPIO_PREAUTH_MAX)
        return -1;
    if (n <= 0)
        return -1;
    if (c->tls)
        return tls_take(prog, c, buf, (size_t)n);
    return proto_decoder_feed(c->dec, buf, (size_t)n) < 0 ? -1 : 1;
}

int stepio_conn_send(struct stepio_conn *c, json_t *msg)
{
    drv_error_t error = {{0}};
    char *data;
    size_t len;
    int rc;

    if (c->fd < 0 || proto_frame_encode(msg, &data, &len) < 0)
        return -1;
    if (!c->tls)
        rc = fd_write_all(c->fd, data, len);
    else
        rc = proto_tls_write(c->tls, data, len, &error) < 0 ? -1
                                                             : tls_flush(c);
    free(data);
    return rc;
}

void stepio_conn_close(struct stepio_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    proto_decoder_destroy(c->dec);
    c->dec = NULL;
    proto_tls_destroy(c->tls);
    c->tls = NULL;
}
