/* SPDX-License-Identifier: Apache-2.0
 *
 * api.h - the slurmrestd API versions droverrestd answers in, and their
 * shapes
 *
 * One set of handlers serves /slurm/v0.0.38, v0.0.39 and v0.0.40 (and
 * /slurmdb likewise); a request's version, read from its path, picks the
 * envelope and the record converters.  v0.0.38 is Slurm 22.05's shape
 * (the commands' --json, cmd/lib/json_out.c); v0.0.39 (Slurm 23.02) and
 * v0.0.40 (Slurm 23.11) are made from it by shapes.c, one function per
 * difference, shared where the two versions agree.  docs/rest.md lists
 * the differences.
 */
#ifndef DROVER_RESTD_API_H
#define DROVER_RESTD_API_H

#include <jansson.h>

struct sacct_ctx;

/* Records a handler converts. */
enum rest_rec { REST_JOB, REST_NODE, REST_PARTITION, REST_RESV };

struct rest_api {
    const char *version;  /* "v0.0.38" */
    int minor;            /* 38, 39 or 40 */
};

/* The API version of a request path: "/slurm/v0.0.39/..." and
 * "/slurmdb/v0.0.39/..." are v0.0.39 (and so for 40); every other path,
 * Drover's own included, is v0.0.38.  Never NULL; static. */
const struct rest_api *rest_api_of(const char *path);

/* A new empty answer {"meta","errors":[]} in 'api''s shape: v0.0.38's
 * meta (json_out_doc()); from v0.0.39 on, meta.plugin names the version
 * and its data_parser, meta.client and "warnings":[] are added, as
 * slurmrestd 23.02 does. */
json_t *rest_api_doc(const struct rest_api *api);

/* One entry of "errors" for error number 'errnum' and 'text': v0.0.38's
 * {"error","errno"}; from v0.0.39 on {"description","error_number",
 * "error","source"} (Slurm 23.02's openapi_error).  New reference. */
json_t *rest_api_error(const struct rest_api *api, int errnum,
                       const char *text, const char *source);

/* The converter of controller records of 'kind' (docs/protocol.md) into
 * 'api''s shape; each returns a new reference. */
typedef json_t *(*rest_convert_fn)(const json_t *rec);
rest_convert_fn rest_api_convert(const struct rest_api *api,
                                 enum rest_rec kind);

/* An accounting job (droverdbd's acct_job_query record) in 'api''s
 * /slurmdb shape: sacct --json's for v0.0.38.  New reference. */
json_t *rest_api_db_job(const struct rest_api *api, const json_t *job,
                        const struct sacct_ctx *ctx);

/* shapes.c: v0.0.39 and v0.0.40 records from the controller's. */
json_t *shape_job_v39(const json_t *rec);
json_t *shape_job_v40(const json_t *rec);
json_t *shape_node_v39(const json_t *rec);
json_t *shape_node_v40(const json_t *rec);
json_t *shape_partition_v39(const json_t *rec);
json_t *shape_partition_v40(const json_t *rec);
json_t *shape_resv_v39(const json_t *rec);
json_t *shape_resv_v40(const json_t *rec);
/* 'o', an accounting job in v0.0.38's shape, turned in place into
 * v0.0.39's (minor 39) or v0.0.40's (minor 40). */
void shape_db_job(json_t *o, int minor);

/* Slurm's {"set","infinite","number"} (v0.0.39's uint32_no_val and its
 * kin): 'set' false means "not set".  New reference. */
json_t *shape_no_val(int set, int infinite, json_int_t number);

/* The value of a v0.0.39 "no_val" request field: a plain number, or
 * {"set","infinite","number"}.  Returns 1 with *number (*infinite when
 * infinite), 0 when the object says "not set", -1 when 'v' is neither. */
int shape_no_val_read(const json_t *v, json_int_t *number, int *infinite);

#endif /* !DROVER_RESTD_API_H */
