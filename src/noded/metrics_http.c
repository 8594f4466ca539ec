/* SPDX-License-Identifier: Apache-2.0
 *
 * metrics_http.c - droverd's HTTP listener for GET /metrics (metrics.h)
 *
 * libmicrohttpd with no thread of its own: its epoll descriptor
 * (MHD_USE_EPOLL, MHD_DAEMON_INFO_EPOLL_FD) is watched by a uv_poll and
 * MHD_run() is called from the loop when it is readable and when
 * MHD_get_timeout() says (a uv_timer: idle connections, and connections
 * MHD still has work for).  Why: the loop owns the steps and the cgroup
 * tree that a scrape reads; answering on the loop's thread needs no lock
 * and no copy of loop data, and a scrape reads a few small files per
 * job, which the loop does for registrations too.  An MHD thread that
 * asked the loop with a uv_async and waited would need a mutex, a
 * condition and a shutdown handshake for the same result.
 */
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/metrics.h"
#include "noded/noded.h"

#define CONNECTION_LIMIT 16     /* at once; more wait in the backlog */
#define PER_IP_LIMIT 8
#define IDLE_TIMEOUT_S 10
#define REQUEST_MEMORY 8192     /* headers and all: past it, 431 */

struct nd_metrics {
    struct noded *nd;
    struct MHD_Daemon *d;
    uv_poll_t poll;
    uv_timer_t timer;
    int open_handles;
};

static void run_mhd(struct nd_metrics *m);

static void timer_cb(uv_timer_t *h)
{
    run_mhd(h->data);
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    (void)status, (void)events;
    run_mhd(h->data);
}

/* Let MHD work, then wake again when it has a deadline (0: at once). */
static void run_mhd(struct nd_metrics *m)
{
    MHD_UNSIGNED_LONG_LONG ms;

    MHD_run(m->d);
    if (MHD_get_timeout(m->d, &ms) == MHD_YES)
        uv_timer_start(&m->timer, timer_cb, (uint64_t)ms, 0);
    else
        uv_timer_stop(&m->timer);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
                              char *text, size_t len, bool must_free)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, text, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    enum MHD_Result rc;

    if (!r) {
        if (must_free)
            free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            status == MHD_HTTP_OK
                                ? "text/plain; version=0.0.4; charset=utf-8"
                                : "text/plain; charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
    rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result error_text(struct MHD_Connection *c, unsigned status,
                                  const char *text)
{
    return answer(c, status, (char *)text, strlen(text), false);
}

/* Whether the request says it carries a body. */
static bool has_body(struct MHD_Connection *c)
{
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);

    return (cl && strcmp(cl, "0"))
           || MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                          MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/* Every request is answered at its first call, before any body is read
 * (MHD discards it and closes the connection). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    struct nd_metrics *m = cls;
    size_t len = 0;
    char *text;

    (void)version, (void)upload, (void)upload_size, (void)con_cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET))
        return error_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                          "only GET is served\n");
    if (strcmp(url, "/metrics"))
        return error_text(c, MHD_HTTP_NOT_FOUND, "only /metrics is here\n");
    if (has_body(c))
        return error_text(c, MHD_HTTP_BAD_REQUEST, "GET takes no body\n");
    if (!(text = metrics_render(m->nd, &len)))
        return error_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                          "out of memory\n");
    return answer(c, MHD_HTTP_OK, text, len, true);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char text[512];

    (void)cls;
    vsnprintf(text, sizeof(text), fmt, ap);
    text[strcspn(text, "\n")] = '\0';
    log_verbose("metrics http: %s", text);
}

/* HOST:PORT resolved (numeric or a name) into 'ss'. */
static int resolve(const char *host, uint16_t port,
                   struct sockaddr_storage *ss, drv_error_t *error)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai;
    char service[8];
    int rc;

    snprintf(service, sizeof(service), "%u", port);
    if ((rc = getaddrinfo(host, service, &hints, &ai)) != 0)
        return errprintf(error, "SlurmdParameters=drover_metrics: %s: %s",
                         host, gai_strerror(rc));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    return 0;
}

int metrics_start(struct noded *nd, drv_error_t *error)
{
    uint16_t port = conf_metrics_port(nd->conf, nd->node);
    const char *host = nd->conf->metrics.host;
    const union MHD_DaemonInfo *info;
    struct sockaddr_storage ss;
    struct nd_metrics *m;

    if (!nd->conf->metrics.enabled)
        return 0;
    if (!port)
        return errprintf(error, "SlurmdParameters=drover_metrics: node %s: "
                         "its Port= plus the offset is past 65535",
                         nd->node->name);
    if (resolve(host, port, &ss, error) < 0)
        return -1;
    m = xzalloc(sizeof(*m));
    m->nd = nd;
    m->d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_ERROR_LOG
            | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
        0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, &ss,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)PER_IP_LIMIT,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL, MHD_OPTION_END);
    if (!m->d || !(info = MHD_get_daemon_info(m->d,
                                              MHD_DAEMON_INFO_EPOLL_FD))) {
        if (m->d)
            MHD_stop_daemon(m->d);
        free(m);
        return errprintf(error, "SlurmdParameters=drover_metrics: cannot "
                         "listen on %s:%u (in use, or no such address)",
                         host, port);
    }
    uv_poll_init(nd->loop, &m->poll, info->epoll_fd);
    uv_timer_init(nd->loop, &m->timer);
    m->poll.data = m->timer.data = m;
    m->open_handles = 2;
    uv_poll_start(&m->poll, UV_READABLE, poll_cb);
    nd->metrics = m;
    log_info("metrics: http://%s:%u/metrics (unauthenticated: bind it to "
             "a management network)", host, port);
    return 0;
}

static void closed(uv_handle_t *h)
{
    struct nd_metrics *m = h->data;

    if (--m->open_handles == 0)
        free(m);
}

void metrics_stop(struct noded *nd)
{
    struct nd_metrics *m = nd->metrics;

    if (!m)
        return;
    nd->metrics = NULL;
    uv_close((uv_handle_t *)&m->poll, closed); /* before MHD closes the fd */
    uv_close((uv_handle_t *)&m->timer, closed);
    MHD_stop_daemon(m->d);
}
