/* SPDX-License-Identifier: Apache-2.0
 *
 * http.c - libmicrohttpd glue: gather a request, dispatch it, answer
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cmd/lib/json_out.h"
#include "common/error.h"
#include "common/log.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "restd/http.h"
#include "restd/api.h"
#include "restd/cache.h"
#include "restd/gzip.h"
#include "restd/rest.h"

/* A request being received: its body grows with each upload chunk. */
struct pending {
    char *uri;        /* the request's path and query, as sent */
    char *body;
    size_t len;
    bool too_big;
    bool seen;        /* on_request() has been called once */
};

const char *rest_query(const struct rest_req *r, const char *key)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
}

void rest_answer(struct rest_req *r, json_t *doc)
{
    json_decref(r->answer);
    r->answer = doc;
    if (!r->status)
        r->status = MHD_HTTP_OK;
}

void rest_fail(struct rest_req *r, unsigned status, int errnum,
               const char *fmt, ...)
{
    const struct rest_api *api = rest_api_of(r->path);
    json_t *doc = rest_api_doc(api);
    char text[512], source[300];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    snprintf(source, sizeof(source), "%s %s", r->method ? r->method : "",
             r->path ? r->path : "");
    json_array_append_new(json_object_get(doc, "errors"),
                          rest_api_error(api, errnum, text, source));
    json_decref(r->answer);
    r->answer = doc;
    r->status = status;
}

static unsigned status_of(int errnum)
{
    switch (errnum) {
    case EDRV_PROTOCOL_AUTH:
        return MHD_HTTP_UNAUTHORIZED;
    case EDRV_ACCESS_DENIED:
    case EPERM:
        return MHD_HTTP_FORBIDDEN;
    case EDRV_INVALID_JOB_ID:
    case EDRV_INVALID_NODE_NAME:
    case EDRV_INVALID_PARTITION_NAME:
    case EDRV_RESERVATION_INVALID:
        return MHD_HTTP_NOT_FOUND;
    case ECONNREFUSED:
    case ETIMEDOUT:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ECONNRESET:
    case EPIPE:
        return MHD_HTTP_SERVICE_UNAVAILABLE;
    case EDRV_CTLD_COMMUNICATIONS_BACKOFF: /* rl_enable, as slurmrestd */
        return MHD_HTTP_BAD_GATEWAY;
    case ENOMEM:
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    default:
        return MHD_HTTP_BAD_REQUEST;
    }
}

void rest_fail_errno(struct rest_req *r, int errnum, const char *text)
{
    rest_fail(r, status_of(errnum), errnum, "%s",
              text && *text ? text : drv_strerror(errnum));
}

/* One call as the request's user, or -1 with errno and 'error' set (the
 * request is not failed).  The connect waits TCPTimeout, the answer
 * MessageTimeout, as the commands' (cmd/lib/rpc.c); *connected (may be
 * NULL) says whether the request was sent.  'body' is stolen. */
static int call_once(struct rest_req *r, const char *host, uint16_t port,
                     const char *type, json_t *body, json_t **resp,
                     bool *connected, drv_error_t *error)
{
    const struct slurm_conf *c = r->rd->conf;
    proto_client_t *client;
    proto_auth_t *auth;
    json_t *out = NULL;
    int rc, errnum;

    if (connected)
        *connected = false;

    if (!r->token && r->local)
        auth = proto_auth_create(r->rd->conf->auth_socket, error);
    else
        auth = proto_auth_create_token(r->token, r->user_name, error);
    if (!auth) {
        json_decref(body);
        if (r->token)
            errprintf(error, "the token is not a JWT, or X-SLURM-USER-NAME "
                             "is not a user name");
        errno = EDRV_PROTOCOL_AUTH;
        return -1;
    }
    if (!(client = proto_client_connect(host, port,
                                        c->tcp_timeout_s
                                            ? (int)c->tcp_timeout_s * 1000
                                            : r->rd->timeout_ms,
                                        error))) {
        errnum = errno;
        json_decref(body);
        proto_auth_destroy(auth);
        errno = errnum;
        return -1;
    }
    proto_client_set_timeout(client, r->rd->timeout_ms);
    if (connected)
        *connected = true;
    rc = proto_client_call(client, auth, type, body, &out, error);
    errnum = errno;
    proto_client_destroy(client);
    proto_auth_destroy(auth);
    if (rc < 0) {
        errno = errnum;
        return -1;
    }
    if (resp)
        *resp = out;
    else
        json_decref(out);
    return 0;
}

static int call_failed(struct rest_req *r, const char *type,
                       const drv_error_t *error, int errnum)
{
    log_verbose("%s %s: %s: %s", r->method, r->path, type, error->text);
    rest_fail_errno(r, errnum, error->text);
    errno = errnum;
    return -1;
}

int rest_call(struct rest_req *r, const char *type, json_t *body,
              json_t **resp)
{
    const struct slurm_conf *c = r->rd->conf;
    drv_error_t error = {{0}};
    int errnum = 0;

    /* Each SlurmctldHost in turn until one that is not standing by (a Raft
     * follower, ctld/ha.h) or unreachable answers. */
    for (size_t i = 0; i <= c->ctld_backup_count; i++) {
        const char *host = i ? conf_ctld_addr(c, i) : r->rd->ctld_host;
        bool connected;

        memset(&error, 0, sizeof(error));
        if (call_once(r, host, r->rd->ctld_port, type, json_incref(body),
                      resp, &connected, &error)
            == 0) {
            json_decref(body);
            return 0;
        }
        /* The next one when this one was never reached, or stands by;
         * a request that was sent is not sent again. */
        errnum = errno;
        if ((connected || !proto_errnum_try_next(errnum))
            && errnum != EDRV_IN_STANDBY_MODE)
            break;
    }
    json_decref(body);
    return call_failed(r, type, &error, errnum);
}

int rest_call_dbd(struct rest_req *r, const char *type, json_t *body,
                  json_t **resp)
{
    if (!r->rd->dbd_port) {
        json_decref(body);
        rest_fail(r, MHD_HTTP_NOT_FOUND, EDRV_NOT_SUPPORTED,
                  "no accounting daemon (AccountingStorageType=%s)",
                  r->rd->conf->accounting_storage_type
                      ? r->rd->conf->accounting_storage_type
                      : "accounting_storage/none");
        return -1;
    }
    return rest_call_to(r, r->rd->dbd_host, r->rd->dbd_port, type, body,
                        resp);
}

int rest_call_to(struct rest_req *r, const char *host, uint16_t port,
                 const char *type, json_t *body, json_t **resp)
{
    drv_error_t error = {{0}};

    if (call_once(r, host, port, type, body, resp, NULL, &error) < 0)
        return call_failed(r, type, &error, errno);
    return 0;
}

/* The token: X-SLURM-USER-TOKEN (slurmrestd's) or Authorization: Bearer. */
static const char *find_token(struct MHD_Connection *c)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                "X-SLURM-USER-TOKEN");
    if (v && *v)
        return v;
    v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (v && !strncasecmp(v, "Bearer ", 7)) {
        v += 7;
        while (*v == ' ')
            v++;
        return *v ? v : NULL;
    }
    return NULL;
}

/* The answer's text (a new string) and content type. */
static char *answer_text(struct rest_req *r, const char **type)
{
    char *text = r->text;

    *type = r->content_type;
    r->text = NULL;
    if (!text) {
        /* compact: a job record is a quarter smaller than indented,
         * and every poller gets every record (docs/compatibility.md) */
        text = r->answer ? json_dumps(r->answer, JSON_COMPACT
                                                     | JSON_PRESERVE_ORDER)
                         : strdup("");
        *type = "application/json";
        if (text && r->answer) {
            size_t n = strlen(text);
            char *t = realloc(text, n + 2);
            if (t) {
                text = t;
                memcpy(text + n, "\n", 2);
            }
        }
    }
    return text;
}

/* Queue the 'len' bytes at 'text' (taken) as the answer: 'status', its
 * content 'type', gzip-encoded or not ('gz'), the 'headers' (name, value,
 * ..., NULL) and, for a kept answer, its age.  Every answer varies with
 * Accept-Encoding (gzip.h). */
static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status,
                                 char *text, size_t len, const char *type,
                                 bool gz, const char *const *headers,
                                 int age_s)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;
    char age[16];

    if (!text)
        return MHD_NO;
    resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    if (gz)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING,
                                "gzip");
    for (const char *const *h = headers; h && h[0] && h[1]; h += 2)
        MHD_add_response_header(resp, h[0], h[1]);
    if (age_s >= 0) {
        snprintf(age, sizeof(age), "%d", age_s);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_AGE, age);
    }
    ret = MHD_queue_response(c, status ? status : MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* On a unix socket: is the peer this daemon's own user (auth/local, as
 * slurmrestd's)?  Such a request may go without a token: it is sent
 * with this daemon's MUNGE credential, which is the same user's. */
static bool peer_is_self(const struct restd *rd, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci;
    struct ucred cred;
    socklen_t len = sizeof(cred);

    if (!rd->unix_socket
        || !(ci = MHD_get_connection_info(c,
                                          MHD_CONNECTION_INFO_CONNECTION_FD))
        || getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)
               < 0)
        return false;
    return cred.uid == geteuid();
}

/* The cache key of a GET (cache.h): the credential exactly (the token,
 * the user it asks to act as; or this daemon's own user on its unix
 * socket), then the path and query as sent, and whether the answer is
 * gzip-encoded ('gz').  NULL when the request is not to be shared: not a
 * GET, or with no credential (it gets 401). */
static char *cache_key(const struct rest_req *r, const struct pending *p,
                       bool gz)
{
    char *key;

    if (!r->rd->cache || strcmp(r->method, "GET") || !p->uri
        || (!r->token && !r->local))
        return NULL;
    if (asprintf(&key, "%s\x1f%s\x1f%s%s", r->token ? r->token : "\x1flocal",
                 r->user_name ? r->user_name : "", p->uri,
                 gz ? "\x1fgzip" : "") < 0)
        return NULL;
    return key;
}

/* Is a kept answer gzip-encoded (maybe_gzip())?  Its magic bytes
 * 1f 8b; a JSON text never starts so. */
static bool is_gzip(const char *text, size_t len)
{
    return len >= 2 && (unsigned char)text[0] == 0x1f
           && (unsigned char)text[1] == 0x8b;
}

/* 'text' (taken; *len bytes) gzip-encoded when it is worth it: a client
 * that takes gzip, a whole answer, REST_GZIP_MIN bytes or more.  Sets
 * *gz to whether it now is. */
static char *maybe_gzip(char *text, size_t *len, bool accepts,
                        const struct rest_req *r, bool *gz)
{
    size_t zlen;
    char *z;

    *gz = false;
    if (!accepts || !text || r->status != MHD_HTTP_OK || r->headers
        || *len < REST_GZIP_MIN || !(z = rest_gzip(text, *len, &zlen)))
        return text;
    free(text);
    *len = zlen;
    *gz = true;
    return z;
}

/* Run the request once its whole body is in; a GET answered a moment
 * ago with the same credential is answered again (cache.h). */
static enum MHD_Result handle(const struct restd *rd,
                              struct MHD_Connection *c, const char *url,
                              const char *method, struct pending *p)
{
    struct rest_req r = {
        .rd = rd, .method = method, .path = url, .conn = c,
        .token = find_token(c),
        .user_name = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 "X-SLURM-USER-NAME"),
        .body = p->body, .body_len = p->len,
        .local = peer_is_self(rd, c),
    };
    bool accepts = rest_accepts_gzip(MHD_lookup_connection_value(
             c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING)),
         gz;
    const char *type;
    unsigned age_ms;
    char *key, *text;
    size_t len;
    enum MHD_Result ret;

    if (r.user_name && !*r.user_name)
        r.user_name = NULL;
    key = cache_key(&r, p, accepts);
    if (key && (text = rest_cache_get(rd->cache, key, &len, &type, &age_ms,
                                      (unsigned)rd->timeout_ms))) {
        free(key);
        log_debug("%s %s -> kept answer, %u ms old", method, url, age_ms);
        return send_text(c, MHD_HTTP_OK, text, len, type,
                         accepts && is_gzip(text, len), NULL,
                         (int)(age_ms / 1000));
    }
    if (p->too_big)
        rest_fail(&r, MHD_HTTP_CONTENT_TOO_LARGE, E2BIG,
                  "request body over %u bytes", REST_BODY_MAX);
    else
        rest_dispatch(&r);
    log_debug("%s %s -> %u", method, url, r.status);
    text = answer_text(&r, &type);
    len = text ? strlen(text) : 0;
    text = maybe_gzip(text, &len, accepts, &r, &gz);
    if (key && text && r.status == MHD_HTTP_OK && !r.headers)
        rest_cache_put(rd->cache, key, text, len, type);
    else if (key)
        rest_cache_abandon(rd->cache, key);
    else if (rd->cache && strcmp(method, "GET") && strcmp(method, "HEAD"))
        rest_cache_clear(rd->cache); /* a write: show it at once */
    free(key);
    ret = send_text(c, r.status, text, len, type, gz, r.headers, -1);
    json_decref(r.answer);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    struct pending *p = *con_cls;

    (void)version;
    if (!p || !p->seen) {
        if (!p && !(p = calloc(1, sizeof(*p))))
            return MHD_NO;
        p->seen = true;
        *con_cls = p;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!p->too_big && p->len + *upload_size <= REST_BODY_MAX) {
            char *b = realloc(p->body, p->len + *upload_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + p->len, upload, *upload_size);
            p->len += *upload_size;
            b[p->len] = '\0';
            p->body = b;
        } else {
            p->too_big = true;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    return handle(cls, c, url, method, p);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct pending *p = *con_cls;

    (void)cls, (void)c, (void)toe;
    if (p) {
        free(p->uri);
        free(p->body);
        free(p);
        *con_cls = NULL;
    }
}

/* At a request's start, libmicrohttpd's URI logger: keep the path and
 * query as sent (the cache key).  What it returns is the request's
 * con_cls. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct pending *p = calloc(1, sizeof(*p));

    (void)cls, (void)c;
    if (p && uri && strlen(uri) <= REST_URI_MAX)
        p->uri = strdup(uri);
    return p;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char text[512];

    (void)cls;
    vsnprintf(text, sizeof(text), fmt, ap);
    text[strcspn(text, "\n")] = '\0';
    log_verbose("http: %s", text);
}

struct MHD_Daemon *http_start(const struct restd *rd,
                              const struct sockaddr *addr, int listen_fd,
                              drv_error_t *error)
{
    struct MHD_OptionItem ops[] = {
        addr ? (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0,
                                       (void *)addr}
             : (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, listen_fd,
                                       NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, NULL},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, HTTP_CONNECTION_LIMIT, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_TIMEOUT_S, NULL},
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, NULL},
        {MHD_OPTION_LISTENING_ADDRESS_REUSE, addr ? 1 : 0, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, rd->tls_cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, rd->tls_key},
        {MHD_OPTION_END, 0, NULL},
    };
    bool https = rd->tls_cert && addr;
    struct MHD_Daemon *d;

    if (https && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
        return errprintf(error, "this libmicrohttpd has no TLS"), NULL;
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD
                             | MHD_USE_THREAD_PER_CONNECTION
                             | MHD_USE_ERROR_LOG | (https ? MHD_USE_TLS : 0),
                         0, NULL, NULL, on_request, (void *)rd,
                         MHD_OPTION_ARRAY, ops, MHD_OPTION_ARRAY,
                         https ? tls : tls + 2, MHD_OPTION_END);
    if (!d)
        errprintf(error, "cannot listen for HTTP: %s", strerror(errno));
    return d;
}
