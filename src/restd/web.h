/* SPDX-License-Identifier: Apache-2.0
 *
 * web.h - the dashboard's files, embedded in droverrestd at build time
 *
 * meson runs web_embed.py over src/restd/web/ and compiles the table it
 * writes (web_files.c), so the daemon serves the dashboard with nothing
 * installed beside it.  The files hold no data: every call the page makes
 * carries the user's token (docs/rest.md, "Dashboard").
 */
#ifndef DROVER_RESTD_WEB_H
#define DROVER_RESTD_WEB_H

#include <stddef.h>

/* One embedded file, served at /ui/'name'. */
struct web_file {
    const char *name;          /* "app.js": a plain name, no '/' */
    const char *content_type;  /* "text/javascript; charset=utf-8" */
    const unsigned char *data; /* 'len' bytes and a NUL (none inside) */
    size_t len;
};

/* Every file, ending with a row whose name is NULL (generated). */
extern const struct web_file web_files[];

/* The file named 'name', or NULL.  The answer is static. */
const struct web_file *web_file_find(const char *name);

#endif /* !DROVER_RESTD_WEB_H */
