/* SPDX-License-Identifier: Apache-2.0
 *
 * web.c - serve the dashboard: / and /ui/<file>, without a token
 *
 * The pages are static and hold no data; the data calls they make carry
 * the user's token like any client's.  Every file goes out with a
 * Content-Security-Policy that lets the page load scripts, styles and
 * data from this server only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "common/error.h"
#include "restd/rest.h"
#include "restd/web.h"

/* What every dashboard file is sent with. */
static const char *const ui_headers[] = {
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options", "nosniff",
    "Referrer-Policy", "no-referrer",
    "Cache-Control", "no-cache",
    NULL,
};

const struct web_file *web_file_find(const char *name)
{
    for (const struct web_file *f = web_files; f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

/* Answer with the file 'name' or 404. */
static void serve(struct rest_req *r, const char *name)
{
    const struct web_file *f = web_file_find(name);
    char *copy;

    if (!f)
        return rest_fail(r, MHD_HTTP_NOT_FOUND, EDRV_NOT_SUPPORTED,
                         "no such file: /ui/%s", name);
    if (!(copy = malloc(f->len + 1)))
        return rest_fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR, ENOMEM,
                         "out of memory");
    memcpy(copy, f->data, f->len + 1);
    free(r->text);
    r->text = copy;
    r->content_type = f->content_type;
    r->headers = ui_headers;
    r->status = MHD_HTTP_OK;
}

void rest_ui_index(struct rest_req *r, const char *arg)
{
    (void)arg;
    serve(r, "index.html");
}

void rest_ui_file(struct rest_req *r, const char *arg)
{
    serve(r, arg);
}
