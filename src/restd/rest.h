/* SPDX-License-Identifier: Apache-2.0
 *
 * rest.h - droverrestd's parts: one HTTP request, its route, its answer
 *
 * droverrestd translates HTTP into the controller's messages and back.  It
 * holds no cluster state and no key: a client's JWT travels on to the
 * controller as the request's credential (proto_auth_create_token), and
 * the controller checks it and authorizes the request exactly as it does
 * a command's (ctld/token.h).  So a REST client can do what its user can
 * do with the commands, no more.
 *
 * Threads: libmicrohttpd runs each connection on its own thread (there is
 * no shared mutable state to guard beyond the read-only configuration),
 * and a request's calls to the controller are synchronous on that thread.
 * docs/rest.md says why this daemon has no libuv loop.
 */
#ifndef DROVER_RESTD_REST_H
#define DROVER_RESTD_REST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "conf/conf.h"

/* Largest request body taken (bytes): a batch script with its
 * environment fits many times over. */
#define REST_BODY_MAX (4u << 20)
/* A request's path and query longer than this is not kept as a cache
 * key (cache.h); bytes. */
#define REST_URI_MAX 8192u

/* How the daemon reaches the controller. */
struct restd {
    const struct slurm_conf *conf;
    const char *ctld_host;    /* ControlAddr, else SlurmctldHost */
    uint16_t ctld_port;
    const char *dbd_host;     /* AccountingStorageHost, else the
                               * controller's */
    uint16_t dbd_port;        /* AccountingStoragePort; 0: no droverdbd */
    int timeout_ms;           /* MessageTimeout */
    bool unix_socket;         /* listening on a unix socket (auth/local) */
    struct rest_cache *cache; /* GET answers kept (cache.h); NULL: off */
    char *tls_cert, *tls_key; /* PEM texts (CommunicationParameters=
                               * drover_tls_*): HTTPS; NULL: HTTP */
};

/* One request and its answer. */
struct rest_req {
    const struct restd *rd;
    const char *method;       /* "GET", "POST", "DELETE" */
    const char *path;         /* without the query */
    void *conn;               /* struct MHD_Connection * (rest_query) */
    const char *token;        /* X-SLURM-USER-TOKEN or Bearer; NULL */
    const char *user_name;    /* X-SLURM-USER-NAME (the controller lets
                                 only root's and SlurmUser's tokens name
                                 another user); NULL */
    bool local;               /* the peer of a unix socket is this
                               * daemon's user: no token needed */
    const char *body;         /* request body, NUL-terminated; NULL */
    size_t body_len;
    /* The answer: a JSON document, or a text with its content type. */
    unsigned status;          /* HTTP status, 200 unless set */
    json_t *answer;
    char *text;
    const char *content_type;
    /* More response headers: name, value, ..., NULL (static); NULL for
     * none. */
    const char *const *headers;
};

/* A route: METHOD and a path whose "{x}" part (at most one segment,
 * perhaps followed by a fixed tail: "/job/{job_id}/steps") is handed to
 * 'fn' as 'arg'. */
struct rest_route {
    const char *method;
    const char *pattern;      /* "/slurm/v0.0.38/job/{job_id}" (and
                               * v0.0.39, v0.0.40: api.h) */
    void (*fn)(struct rest_req *r, const char *arg);
    bool auth;                /* needs a token */
    const char *summary;      /* for /openapi.json */
    const char *tag;
};

/* Every route, ending with a row whose method is NULL (routes.c). */
extern const struct rest_route rest_routes[];

/* Find the route of 'r' and run it, or answer 404/405/401.  Sets the
 * answer in 'r'. */
void rest_dispatch(struct rest_req *r);

/* Call the controller with message 'type' and 'body' (stolen) as the
 * request's user.  Returns 0 with *resp (caller decrefs; may be NULL to
 * drop it); or -1 after setting r's answer to an error document with the
 * HTTP status the failure deserves (rest_fail_errno), errno the
 * failure's code (EDRV_* or a system errno). */
int rest_call(struct rest_req *r, const char *type, json_t *body,
              json_t **resp);

/* rest_call() to droverdbd (404 when the cluster has none), and to any
 * 'host':'port'. */
int rest_call_dbd(struct rest_req *r, const char *type, json_t *body,
                  json_t **resp);
int rest_call_to(struct rest_req *r, const char *host, uint16_t port,
                 const char *type, json_t *body, json_t **resp);

/* Answer with status and an errors document in the shape of the path's
 * API version (api.h): {"meta","errors":[{"error":text,"errno":errnum}]}
 * for v0.0.38 and Drover's paths; {"meta","errors":[{"description":text,
 * "error_number":errnum,"error","source"}],"warnings":[]} from v0.0.39
 * on, as slurmrestd 23.02. */
void rest_fail(struct rest_req *r, unsigned status, int errnum,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* rest_fail with the status an EDRV_ or errno number maps to: 401 for
 * authentication, 403 access, 404 unknown job/node/partition, 400 for
 * bad requests, 503 when the controller cannot be reached, 500 else. */
void rest_fail_errno(struct rest_req *r, int errnum, const char *text);

/* The value of query argument 'key', or NULL. */
const char *rest_query(const struct rest_req *r, const char *key);

/* Answer with 'doc' (stolen), status 200. */
void rest_answer(struct rest_req *r, json_t *doc);

/* Route handlers (slurm_v38.c, submit.c, metrics.c, openapi.c, ...). */
void rest_ping(struct rest_req *r, const char *arg);
void rest_diag(struct rest_req *r, const char *arg);
void rest_jobs(struct rest_req *r, const char *arg);
void rest_job_get(struct rest_req *r, const char *arg);
/* rest_job_get() plus Drover's "pending_explain" (why a pending job
 * waits, in words) when the controller has one: /slurm/v0.0.38/job/{id},
 * which the dashboard reads; /drover/v1/job/{id} stays scontrol's. */
void rest_job_get_explained(struct rest_req *r, const char *arg);
void rest_job_delete(struct rest_req *r, const char *arg);
void rest_job_submit(struct rest_req *r, const char *arg);
void rest_nodes(struct rest_req *r, const char *arg);
void rest_node_get(struct rest_req *r, const char *arg);
void rest_partitions(struct rest_req *r, const char *arg);
void rest_partition_get(struct rest_req *r, const char *arg);
void rest_metrics(struct rest_req *r, const char *arg);
void rest_reservations(struct rest_req *r, const char *arg);
void rest_drover_job_usage(struct rest_req *r, const char *arg);
void rest_reservation_get(struct rest_req *r, const char *arg);
void rest_db_jobs(struct rest_req *r, const char *arg);
void rest_db_job_get(struct rest_req *r, const char *arg);
void rest_db_qos(struct rest_req *r, const char *arg);
void rest_db_accounts(struct rest_req *r, const char *arg);
void rest_db_users(struct rest_req *r, const char *arg);
void rest_db_associations(struct rest_req *r, const char *arg);
void rest_openapi(struct rest_req *r, const char *arg);
/* The dashboard (web.c): / answers index.html, /ui/{file} an embedded
 * file (web.h); both need no token and send a Content-Security-Policy. */
void rest_ui_index(struct rest_req *r, const char *arg);
void rest_ui_file(struct rest_req *r, const char *arg);
/* Drover's own paths (drover_v1.c): a job's steps, from the
 * controller's step_info (docs/rest.md). */
void rest_drover_job_steps(struct rest_req *r, const char *arg);
/* GET /drover/v1/utilization[?start=&end=] (utilization.c): the
 * cluster's CPU and GPU seconds hour by hour from droverdbd's rollups,
 * through sreport's acct_usage_report (docs/rest.md). */
void rest_drover_utilization(struct rest_req *r, const char *arg);

/* The OpenAPI 3 document of rest_routes (new reference). */
json_t *rest_openapi_doc(void);

/* Turn a job description ({"script","job":{...}}: v0.0.38's keys, whose
 * numbers may be v0.0.39's {"set","infinite","number"}; from v0.0.40 the
 * script may be job.script) into a job_submit body.  Returns the body, or
 * NULL after rest_fail() (400 naming the key at fault). */
json_t *rest_submit_body(struct rest_req *r, const json_t *doc);

#endif /* !DROVER_RESTD_REST_H */
