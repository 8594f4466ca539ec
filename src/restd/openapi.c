/* SPDX-License-Identifier: Apache-2.0
 *
 * openapi.c - the OpenAPI 3 document of droverrestd's routes
 *
 * Made from the route table, so it cannot drift from what is served;
 * docs/openapi.json is a copy that a test compares with the served one.
 */
#include <ctype.h>
#include <string.h>

#include "config.h"
#include "restd/rest.h"

/* The "{x}" parameter of a path, or NULL. */
static json_t *path_params(const char *pattern)
{
    const char *b = strchr(pattern, '{');
    const char *e = b ? strchr(b, '}') : NULL;

    if (!b || !e)
        return json_array();
    return json_pack("[{s:s% s:s s:b s:{s:s}}]", "name", b + 1,
                     (size_t)(e - b - 1), "in", "path", "required", 1,
                     "schema", "type", "string");
}

static json_t *operation(const struct rest_route *rt)
{
    json_t *op = json_pack(
        "{s:s s:[s] s:o s:{s:{s:s s:{s:{s:{s:s}}}} s:{s:s} s:{s:s}}}",
        "summary", rt->summary, "tags", rt->tag, "parameters",
        path_params(rt->pattern), "responses", "200", "description",
        "success", "content", "application/json", "schema", "type",
        "object", "401", "description", "no valid token", "default",
        "description", "an error: {\"errors\":[{\"error\",\"errno\"}]}");

    if (!rt->auth)
        json_object_set_new(op, "security", json_array());
    return op;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

json_t *rest_openapi_doc(void)
{
    json_t *paths = json_object();

    for (const struct rest_route *rt = rest_routes; rt->method; rt++) {
        json_t *item = json_object_get(paths, rt->pattern);
        char method[16];

        if (!item) {
            item = json_object();
            json_object_set_new(paths, rt->pattern, item);
        }
        snprintf(method, sizeof(method), "%s", rt->method);
        lower(method);
        json_object_set_new(item, method, operation(rt));
    }
    return json_pack(
        "{s:s s:{s:s s:s s:s} s:o s:{s:{s:{s:s s:s s:s} s:{s:s s:s s:s}}}"
        " s:[{s:[]} {s:[]}]}",
        "openapi", "3.0.3", "info", "title", "Drover REST API", "version",
        DROVER_VERSION, "description",
        "droverrestd: Slurm's slurmrestd paths in their v0.0.38, v0.0.39 "
        "and v0.0.40 shapes; "
        "a token from `scontrol token` authenticates",
        "paths", paths, "components", "securitySchemes", "user_token",
        "type", "apiKey", "in", "header", "name", "X-SLURM-USER-TOKEN",
        "bearer", "type", "http", "scheme", "bearer", "bearerFormat", "JWT",
        "security", "user_token", "bearer");
}

void rest_openapi(struct rest_req *r, const char *arg)
{
    (void)arg;
    rest_answer(r, rest_openapi_doc());
}
