/* SPDX-License-Identifier: Apache-2.0
 *
 * api.c - which slurmrestd API version a path asks for; its envelope
 */
#include <string.h>

#include "cmd/lib/json_out.h"
#include "cmd/lib/sacct_json.h"
#include "common/error.h"
#include "restd/api.h"

static const struct rest_api apis[] = {
    {"v0.0.38", 38},
    {"v0.0.39", 39},
    {"v0.0.40", 40},
};

const struct rest_api *rest_api_of(const char *path)
{
    const char *v = NULL;

    if (path && !strncmp(path, "/slurm/", 7))
        v = path + 7;
    else if (path && !strncmp(path, "/slurmdb/", 9))
        v = path + 9;
    for (size_t i = 1; v && i < sizeof(apis) / sizeof(apis[0]); i++) {
        size_t n = strlen(apis[i].version);
        if (!strncmp(v, apis[i].version, n) && (v[n] == '/' || !v[n]))
            return &apis[i];
    }
    return &apis[0];
}

json_t *rest_api_doc(const struct rest_api *api)
{
    json_t *doc = json_out_doc(), *plugin;
    char type[32], name[48], parser[32];

    if (api->minor == 38)
        return doc;
    plugin = json_object_get(json_object_get(doc, "meta"), "plugin");
    snprintf(type, sizeof(type), "openapi/%s", api->version);
    snprintf(name, sizeof(name), "Slurm OpenAPI %s", api->version);
    snprintf(parser, sizeof(parser), "data_parser/%s", api->version);
    json_object_set_new(plugin, "type", json_string(type));
    json_object_set_new(plugin, "name", json_string(name));
    json_object_set_new(plugin, "data_parser", json_string(parser));
    if (api->minor >= 40)
        json_object_set_new(plugin, "accounting_storage", json_string(""));
    json_object_set_new(json_object_get(doc, "meta"), "client",
                        json_pack("{s:s s:s s:s}", "source", "", "user", "",
                                  "group", ""));
    json_object_set_new(doc, "warnings", json_array());
    return doc;
}

json_t *rest_api_error(const struct rest_api *api, int errnum,
                       const char *text, const char *source)
{
    if (api->minor == 38)
        return json_pack("{s:s s:i}", "error", text, "errno", errnum);
    return json_pack("{s:s s:i s:s s:s}", "description", text,
                     "error_number", errnum, "error", drv_strerror(errnum),
                     "source", source ? source : "");
}

rest_convert_fn rest_api_convert(const struct rest_api *api,
                                 enum rest_rec kind)
{
    static const rest_convert_fn table[][4] = {
        {json_out_job, json_out_node, json_out_partition,
         json_out_reservation},
        {shape_job_v39, shape_node_v39, shape_partition_v39, shape_resv_v39},
        {shape_job_v40, shape_node_v40, shape_partition_v40, shape_resv_v40},
    };

    return table[api->minor - 38][kind];
}

json_t *rest_api_db_job(const struct rest_api *api, const json_t *job,
                        const struct sacct_ctx *ctx)
{
    json_t *o = sacct_json_job(job, ctx);

    if (api->minor > 38)
        shape_db_job(o, job, api->minor);
    return o;
}

json_t *rest_api_db_entity(const struct rest_api *api, json_t *v38,
                           const json_t *rec, enum rest_db_rec kind)
{
    return api->minor > 38 ? shape_db_entity(v38, rec, kind, api->minor)
                           : v38;
}
