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

/* The accounting tables of /slurmdb (sacctmgr's). */
enum rest_db_rec { REST_DB_QOS, REST_DB_ASSOC, REST_DB_USER,
                   REST_DB_ACCOUNT };

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
 * v0.0.39's (minor 39) or v0.0.40's (minor 40); 'rec' is droverdbd's
 * record it was made from (v0.0.40's exit codes come from its wait
 * statuses, which v0.0.38's shape does not keep). */
void shape_db_job(json_t *o, const json_t *rec, int minor);

/* 'v38', a QOS, association, user or account ('kind') in v0.0.38's
 * /slurmdb shape (slurmdb_v38.c) made from droverdbd's record 'rec'
 * (acct_assoc_list's; borrowed: limits v0.0.38 does not show come from
 * it), in 'api''s shape: itself for v0.0.38;
 * from v0.0.39 on, limits as {"set","infinite","number"} (a v0.0.38 null
 * limit is infinite, a key Drover does not keep is "not set") under
 * Slurm 23.02's paths (an association's max.jobs.active, max.jobs.total,
 * max.jobs.per.count, ...), the TRES lists Drover does not keep as [],
 * a user's administrator_level as an array; v0.0.40 also a QOS's
 * priority as a no_val object (shapes_db.c, docs/rest.md).  Steals 'v38';
 * returns a new reference. */
json_t *rest_api_db_entity(const struct rest_api *api, json_t *v38,
                           const json_t *rec, enum rest_db_rec kind);

/* shapes_db.c: rest_api_db_entity() for v0.0.39 (minor 39) and v0.0.40
 * (minor 40).  Steals 'v38'. */
json_t *shape_db_entity(json_t *v38, const json_t *rec,
                        enum rest_db_rec kind, int minor);

/* Slurm's {"set","infinite","number"} (v0.0.39's uint32_no_val and its
 * kin): 'set' false means "not set".  New reference. */
json_t *shape_no_val(int set, int infinite, json_int_t number);

/* 'v' (borrowed), v0.0.38's number (integer or real) or null, as a
 * no_val object: a number is set; null is infinite when 'null_infinite'
 * (a limit that is not set is unlimited), else "not set".  New
 * reference. */
json_t *shape_no_val_of(const json_t *v, int null_infinite);

/* o[k1][k2]...[kn] for 'path' "k1.k2...kn" (keys under 64 bytes), or
 * NULL when a step is missing.  Borrowed. */
json_t *shape_get(const json_t *o, const char *path);

/* Set o[k1][k2]...[kn] = 'v' (stolen) for 'path' "k1.k2...kn", making
 * the objects on the way (replacing a step that is not an object). */
void shape_put(json_t *o, json_t *v, const char *path);

/* The value of a v0.0.39 "no_val" request field: a plain number, or
 * {"set","infinite","number"}.  Returns 1 with *number (*infinite when
 * infinite), 0 when the object says "not set", -1 when 'v' is neither. */
int shape_no_val_read(const json_t *v, json_int_t *number, int *infinite);

#endif /* !DROVER_RESTD_API_H */
