/* SPDX-License-Identifier: Apache-2.0
 *
 * main.c - droverrestd: Drover's REST API (slurmrestd's paths), Prometheus
 * metrics and OpenAPI document, over the controller's messages
 *
 *   droverrestd [-f slurm.conf] [-v...] [HOST]:PORT
 *
 * As slurmrestd, it stays in the foreground and listens where its argument
 * says (default 127.0.0.1:6820).  It needs no privilege and holds no key:
 * run it as an ordinary user (docs/rest.md).
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <microhttpd.h>

#include "proto/tls.h"
#include "cmd/lib/json_out.h"
#include "common/daemon.h"
#include "common/log.h"
#include "conf/conf.h"
#include "config.h"
#include "restd/cache.h"
#include "restd/http.h"
#include "restd/rest.h"

#define DEFAULT_LISTEN "127.0.0.1:6820"
/* Answer text kept at most (cache.h), bytes. */
#define REST_CACHE_MAX ((size_t)256 << 20)

static const char usage_text[] =
    "Usage: droverrestd [OPTIONS] [HOST]:PORT | unix:PATH\n"
    "  -f FILE   read slurm.conf from FILE (default: $DROVER_CONF,\n"
    "            $SLURM_CONF, then " DROVER_SYSCONFDIR "/slurm.conf)\n"
    "  -v        log more (repeat for more)\n"
    "  -V        print the version and exit\n"
    "  --openapi print the OpenAPI document and exit\n"
    "  --cache-ttl=MS  serve a GET answer again to the same token and\n"
    "            path for MS milliseconds (default 1000; 0: never), or\n"
    "            9 times as long as it took to make, up to 60 s\n"
    "  -h        print this help and exit\n"
    "Listens on HOST:PORT (default " DEFAULT_LISTEN "; HOST empty: every\n"
    "address).  Clients authenticate with a token from `scontrol token`\n"
    "(X-SLURM-USER-TOKEN or Authorization: Bearer).  On unix:PATH (mode\n"
    "0600) requests of this daemon's own user need no token.\n";

/* unix:PATH (slurmrestd's form): a socket only this user may connect to
 * (mode 0600); its peers are served as this daemon's user without a
 * token (auth/local).  Returns the listening socket. */
static int listen_unix(const char *path)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    int fd;

    if (strlen(path) >= sizeof(sun.sun_path))
        log_fatal("unix:%s: path too long", path);
    strcpy(sun.sun_path, path);
    (void)unlink(path);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0
        || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0
        || chmod(path, 0600) < 0 || listen(fd, 128) < 0)
        log_fatal("unix:%s: %s", path, strerror(errno));
    return fd;
}

/* "[HOST]:PORT" ("[::1]:80" for IPv6) into a socket address. */
static struct addrinfo *resolve(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE}, *ai = NULL;
    char host[256];
    int rc;

    if (!colon || !colon[1]) {
        fprintf(stderr, "droverrestd: %s: expected [HOST]:PORT\n", spec);
        exit(1);
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    if ((rc = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &ai))
        != 0) {
        fprintf(stderr, "droverrestd: %s: %s\n", spec, gai_strerror(rc));
        exit(1);
    }
    return ai;
}

/* The whole of PEM file 'path' (a certificate chain or a key), or NULL
 * with errno.  Caller frees. */
static char *read_pem(const char *path)
{
    FILE *f = fopen(path, "re");
    char *text = NULL;
    size_t len = 0;
    ssize_t n;

    if (!f)
        return NULL;
    n = getdelim(&text, &len, '\0', f);
    fclose(f);
    if (n <= 0) {
        free(text);
        errno = n < 0 ? errno : ENODATA;
        return NULL;
    }
    return text;
}

/* --cache-ttl's milliseconds, or exit(1) with a message. */
static unsigned parse_ttl(const char *arg)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(arg, &end, 10);
    if (!*arg || *end || errno || v > 3600000) {
        fprintf(stderr, "droverrestd: --cache-ttl=%s: not a number of "
                        "milliseconds from 0 to 3600000\n", arg);
        exit(1);
    }
    return (unsigned)v;
}

static void parse_args(int argc, char **argv, const char **conf_path,
                       const char **listen, int *verbose, unsigned *ttl_ms)
{
    static const struct option longopts[] = {
        {"openapi", no_argument, NULL, 'O'},
        {"cache-ttl", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    char *text;
    int c;

    while ((c = getopt_long(argc, argv, "f:vVh", longopts, NULL)) != -1) {
        switch (c) {
        case 'O': {
            json_t *doc = rest_openapi_doc();
            text = json_dumps(doc, JSON_INDENT(2));
            json_decref(doc);
            puts(text ? text : "");
            c = text ? 0 : 1;
            free(text);
            exit(c);
        }
        case 'f':
            *conf_path = optarg;
            break;
        case 'T':
            *ttl_ms = parse_ttl(optarg);
            break;
        case 'v':
            (*verbose)++;
            break;
        case 'V':
            daemon_print_version();
            exit(0);
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        default:
            fputs(usage_text, stderr);
            exit(1);
        }
    }
    if (optind < argc)
        *listen = argv[optind++];
    if (optind < argc) {
        fputs(usage_text, stderr);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *conf_path = NULL, *listen = DEFAULT_LISTEN;
    drv_error_t error = {{0}};
    struct slurm_conf *conf;
    struct MHD_Daemon *d;
    struct addrinfo *ai;
    struct restd rd;
    sigset_t set;
    int verbose = 0, sig = 0;
    unsigned ttl_ms = 1000;

    parse_args(argc, argv, &conf_path, &listen, &verbose, &ttl_ms);
    log_init("droverrestd", LOG_LEVEL_INFO + verbose);
    if (!(conf = conf_load(conf_path, &error))
        || proto_tls_client_setup(conf->tls.rpc, conf->tls.ca, &error) < 0)
        log_fatal("%s", error.text);
    rd = (struct restd){
        .conf = conf,
        .ctld_host = conf->ctld_addr ? conf->ctld_addr : conf->ctld_host,
        .ctld_port = conf->ctld_port,
        .dbd_host = conf->accounting_storage_host
                        ? conf->accounting_storage_host
                        : conf->ctld_addr ? conf->ctld_addr : conf->ctld_host,
        .dbd_port = conf->accounting_storage_type
                        && strstr(conf->accounting_storage_type, "slurmdbd")
                        ? conf->accounting_storage_port : 0,
        .timeout_ms = conf->msg_timeout_s ? (int)conf->msg_timeout_s * 1000
                                          : 10000,
    };
    if (ttl_ms && !(rd.cache = rest_cache_create(ttl_ms, REST_CACHE_MAX)))
        log_fatal("out of memory");
    if (conf->tls.cert
        && (!(rd.tls_cert = read_pem(conf->tls.cert))
            || !(rd.tls_key = read_pem(conf->tls.key))))
        log_fatal("CommunicationParameters=drover_tls_*: cannot read %s: %s",
                  rd.tls_cert ? conf->tls.key : conf->tls.cert,
                  strerror(errno));
    json_out_set_cluster(conf->cluster_name);
    signal(SIGPIPE, SIG_IGN);
    /* The server's threads inherit this mask: only main takes signals. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (!strncmp(listen, "unix:", 5)) {
        rd.unix_socket = true;
        if (!(d = http_start(&rd, NULL, listen_unix(listen + 5), &error)))
            log_fatal("%s: %s", listen, error.text);
    } else {
        ai = resolve(listen);
        if (!(d = http_start(&rd, ai->ai_addr, -1, &error)))
            log_fatal("%s: %s", listen, error.text);
        freeaddrinfo(ai);
    }
    log_info("listening on %s://%s (controller %s:%u)",
             rd.tls_cert && !rd.unix_socket ? "https" : "http", listen,
             rd.ctld_host, (unsigned)rd.ctld_port);
    daemon_notify("READY=1");
    while (sigwait(&set, &sig) != 0 || (sig != SIGINT && sig != SIGTERM))
        ;
    log_info("signal %d: stopping", sig);
    daemon_notify("STOPPING=1");
    MHD_stop_daemon(d);
    rest_cache_destroy(rd.cache);
    free(rd.tls_cert);
    free(rd.tls_key);
    if (rd.unix_socket)
        (void)unlink(listen + 5);
    conf_destroy(conf);
    return 0;
}
