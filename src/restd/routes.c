/* SPDX-License-Identifier: Apache-2.0
 *
 * routes.c - the paths droverrestd answers, and finding one
 */
#include <string.h>

#include <microhttpd.h>

#include "common/error.h"
#include "restd/rest.h"

#define V38 "/slurm/v0.0.38"
#define DB38 "/slurmdb/v0.0.38"
#define V39 "/slurm/v0.0.39"
#define DB39 "/slurmdb/v0.0.39"
#define V40 "/slurm/v0.0.40"
#define DB40 "/slurmdb/v0.0.40"
#define DV1 "/drover/v1"

/* The /slurm paths of slurmrestd version V ("/slurm/v0.0.38"), in
 * that version's shapes (api.h). */
#define SLURM_ROUTES(V)                                                      \
    {"GET", V "/ping", rest_ping, true, "ping the controller", "slurm"},     \
    {"GET", V "/diag", rest_diag, true, "the controller's statistics "       \
     "(sdiag)", "slurm"},                                                    \
    {"GET", V "/jobs", rest_jobs, true, "every job (squeue --json)",         \
     "slurm"},                                                               \
    {"GET", V "/job/{job_id}", rest_job_get_explained, true,                 \
     "one job (with Drover's pending_explain)", "slurm"},                    \
    {"DELETE", V "/job/{job_id}", rest_job_delete, true,                     \
     "cancel or signal a job (?signal=NAME)", "slurm"},                      \
    {"POST", V "/job/submit", rest_job_submit, true,                         \
     "submit a batch job: {\"script\",\"job\":{...}}", "slurm"},            \
    {"GET", V "/nodes", rest_nodes, true, "every node (sinfo --json)",       \
     "slurm"},                                                               \
    {"GET", V "/node/{node_name}", rest_node_get, true, "one node",          \
     "slurm"},                                                               \
    {"GET", V "/partitions", rest_partitions, true, "every partition",       \
     "slurm"},                                                               \
    {"GET", V "/partition/{partition_name}", rest_partition_get, true,       \
     "one partition", "slurm"},                                              \
    {"GET", V "/reservations", rest_reservations, true,                      \
     "every reservation (scontrol --json show reservation)", "slurm"},       \
    {"GET", V "/reservation/{reservation_name}", rest_reservation_get,       \
     true, "one reservation", "slurm"}

/* The /slurmdb jobs of version DB ("/slurmdb/v0.0.38"). */
#define SLURMDB_JOB_ROUTES(DB)                                               \
    {"GET", DB "/jobs", rest_db_jobs, true, "jobs in accounting (sacct "     \
     "--json): ?account= ?partition= ?state= ?job_name= ?start_time= "       \
     "?end_time=", "slurmdb"},                                               \
    {"GET", DB "/job/{job_id}", rest_db_job_get, true,                       \
     "one job in accounting", "slurmdb"}

/* The /slurmdb accounting tables of version DB (sacctmgr's). */
#define SLURMDB_TABLE_ROUTES(DB)                                             \
    {"GET", DB "/qos", rest_db_qos, true, "every QOS", "slurmdb"},           \
    {"GET", DB "/associations", rest_db_associations, true,                  \
     "every association", "slurmdb"},                                        \
    {"GET", DB "/accounts", rest_db_accounts, true, "every account",         \
     "slurmdb"},                                                             \
    {"GET", DB "/users", rest_db_users, true, "every user", "slurmdb"}

const struct rest_route rest_routes[] = {
    SLURM_ROUTES(V38),
    SLURMDB_JOB_ROUTES(DB38),
    SLURMDB_TABLE_ROUTES(DB38),
    /* Slurm 23.02's and 23.11's versions: the same paths, in their
     * shapes (docs/rest.md). */
    SLURM_ROUTES(V39),
    SLURMDB_JOB_ROUTES(DB39),
    SLURMDB_TABLE_ROUTES(DB39),
    SLURM_ROUTES(V40),
    SLURMDB_JOB_ROUTES(DB40),
    SLURMDB_TABLE_ROUTES(DB40),
    /* Drover's own paths: stable, and the same shapes as the commands'
     * --json (squeue, sinfo, scontrol show, sacct). */
    {"GET", DV1 "/jobs", rest_jobs, true, "squeue --json", "drover"},
    {"GET", DV1 "/job/{job_id}", rest_job_get, true,
     "scontrol --json show job ID", "drover"},
    {"DELETE", DV1 "/job/{job_id}", rest_job_delete, true,
     "scancel ID (?signal=NAME)", "drover"},
    {"POST", DV1 "/job/submit", rest_job_submit, true,
     "sbatch: {\"script\",\"job\":{...}}", "drover"},
    {"GET", DV1 "/nodes", rest_nodes, true, "scontrol --json show node",
     "drover"},
    {"GET", DV1 "/node/{node_name}", rest_node_get, true,
     "scontrol --json show node NAME", "drover"},
    {"GET", DV1 "/partitions", rest_partitions, true,
     "scontrol --json show partition", "drover"},
    {"GET", DV1 "/partition/{partition_name}", rest_partition_get, true,
     "scontrol --json show partition NAME", "drover"},
    {"GET", DV1 "/job/{job_id}/steps", rest_drover_job_steps, true,
     "a job's steps, finished ones too (the controller's step records "
     "and \"step\": \"ID.batch\")", "drover"},
    {"GET", DV1 "/job/{job_id}/usage", rest_drover_job_usage, true,
     "what a running job's steps use now on each node (sstat)", "drover"},
    {"GET", DV1 "/accounting/jobs", rest_db_jobs, true, "sacct --json",
     "drover"},
    {"GET", DV1 "/accounting/job/{job_id}", rest_db_job_get, true,
     "sacct --json -j ID", "drover"},
    {"GET", DV1 "/utilization", rest_drover_utilization, true,
     "the cluster's CPU and GPU seconds per hour from accounting "
     "(sreport cluster utilization, hour by hour): ?start= ?end= as "
     "sreport's (default: the last 24 hours)", "drover"},
    {"GET", "/metrics", rest_metrics, true,
     "Prometheus metrics of jobs, nodes and the scheduler", "drover"},
    {"GET", "/openapi.json", rest_openapi, false,
     "this document (OpenAPI 3)", "drover"},
    {"GET", "/openapi/v3", rest_openapi, false,
     "this document (OpenAPI 3), at slurmrestd's path", "drover"},
    {"GET", "/", rest_ui_index, false,
     "the dashboard (no token needed to load it; it asks for one)",
     "dashboard"},
    {"GET", "/ui/{file}", rest_ui_file, false,
     "the dashboard's files (HTML, ES modules, CSS, Chart.js)",
     "dashboard"},
    {NULL, NULL, NULL, false, NULL, NULL},
};

/* Is 'path' 'tail', with or without one '/' after it? */
static bool is_tail(const char *path, const char *tail)
{
    size_t n = strlen(tail);

    return !strncmp(path, tail, n)
           && (path[n] == '\0' || (path[n] == '/' && path[n + 1] == '\0'));
}

/* Does 'path' fit 'pattern'?  A "{x}" takes one non-empty segment,
 * stored in 'arg' (at most 'size' bytes); what follows "{x}" in the
 * pattern ("/steps") must follow it in the path. */
static bool match(const char *pattern, const char *path, char *arg,
                  size_t size)
{
    const char *brace = strchr(pattern, '{');
    size_t fixed = brace ? (size_t)(brace - pattern) : strlen(pattern);
    const char *rest, *close;

    if (strncmp(pattern, path, fixed))
        return false;
    rest = path + fixed;
    if (!brace)
        return is_tail(rest, "");
    close = strchr(brace, '}');
    size_t n = strcspn(rest, "/");
    if (n == 0 || n >= size || !is_tail(rest + n, close ? close + 1 : ""))
        return false;
    memcpy(arg, rest, n);
    arg[n] = '\0';
    return true;
}

void rest_dispatch(struct rest_req *r)
{
    char arg[256];
    bool path_known = false;

    for (const struct rest_route *rt = rest_routes; rt->method; rt++) {
        if (!match(rt->pattern, r->path, arg, sizeof(arg)))
            continue;
        path_known = true;
        if (strcmp(rt->method, r->method))
            continue;
        if (rt->auth && !r->token && !r->local)
            return rest_fail(r, MHD_HTTP_UNAUTHORIZED, EDRV_PROTOCOL_AUTH,
                             "authentication required: send "
                             "X-SLURM-USER-TOKEN (scontrol token) or "
                             "Authorization: Bearer");
        return rt->fn(r, arg);
    }
    if (path_known)
        return rest_fail(r, MHD_HTTP_METHOD_NOT_ALLOWED, EDRV_NOT_SUPPORTED,
                         "%s is not allowed on %s", r->method, r->path);
    rest_fail(r, MHD_HTTP_NOT_FOUND, EDRV_NOT_SUPPORTED,
              "no such path: %s", r->path);
}
