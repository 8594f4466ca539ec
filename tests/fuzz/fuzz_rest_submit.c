/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_rest_submit.c - a REST job submission body (POST
 * /slurm/v0.0.38/job/submit, and v0.0.40's, which takes the script
 * inside the job and numbers as {"set","infinite","number"}) into the
 * controller's job_submit body
 *
 * Whatever the input, the answer is a body or a 400 naming the fault,
 * never both and never neither; a body always carries the script.
 */
#include "fuzz.h"

#include <jansson.h>

#include "restd/rest.h"

/* One submission of 'doc' as if POSTed to 'path'. */
static void submit_as(const json_t *doc, const char *path)
{
    struct rest_req r = {.method = "POST", .path = path};
    json_t *body = rest_submit_body(&r, doc);

    FUZZ_ASSERT((body != NULL) != (r.answer != NULL));
    if (body)
        FUZZ_ASSERT(json_is_string(json_object_get(body, "script")));
    else
        FUZZ_ASSERT(r.status == 400);
    json_decref(body);
    json_decref(r.answer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);

    if (!json_is_object(doc)) {
        json_decref(doc);
        return 0;
    }
    submit_as(doc, "/fuzz");
    submit_as(doc, "/slurm/v0.0.40/job/submit");
    json_decref(doc);
    return 0;
}
