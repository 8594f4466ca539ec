/* SPDX-License-Identifier: Apache-2.0
 *
 * stepio.c - the client end of a step's I/O connections (stepio.h)
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/lib/rpc.h"
#include "cmd/lib/stepio.h"

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

int stepio_conn_feed(int fd, proto_decoder_t *dec, bool authed,
                     size_t *preauth_in)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof(buf));

    if (n < 0 && errno == EINTR)
        return 0;
    if (n > 0 && !authed && (*preauth_in += (size_t)n) > STEPIO_PREAUTH_MAX)
        return -1;
    if (n <= 0 || proto_decoder_feed(dec, buf, (size_t)n) < 0)
        return -1;
    return 1;
}
