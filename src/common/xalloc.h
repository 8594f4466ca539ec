/* SPDX-License-Identifier: Apache-2.0
 *
 * xalloc.h - allocation that aborts on failure, for daemon and command glue
 *
 * src/common, src/conf, src/proto and src/sched return ENOMEM instead; only
 * src/ctld, src/noded and src/cmd use these (flux's xzmalloc split).
 */
#ifndef DROVER_COMMON_XALLOC_H
#define DROVER_COMMON_XALLOC_H

#include <stddef.h>

/* calloc(1, size) that never returns NULL (logs file:line and aborts). */
#define xzalloc(size) xzalloc_at((size), __FILE__, __LINE__)
/* malloc(size) that never returns NULL: for memory the caller writes
 * whole (xzalloc() clears every byte first, touching every page). */
#define xmalloc(size) xrealloc_at(NULL, (size), __FILE__, __LINE__)
/* strdup(s) that never returns NULL; NULL in gives NULL out. */
#define xstrdup(s) xstrdup_at((s), __FILE__, __LINE__)
/* realloc(p, size) that never returns NULL. */
#define xrealloc(p, size) xrealloc_at((p), (size), __FILE__, __LINE__)
/* asprintf that never fails; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xzalloc_at(size_t size, const char *file, int line);
char *xstrdup_at(const char *s, const char *file, int line);
void *xrealloc_at(void *p, size_t size, const char *file, int line);

#define FREE_NULL(p)                                                           \
    do {                                                                       \
        free(p);                                                               \
        (p) = NULL;                                                            \
    } while (0)

#endif /* !DROVER_COMMON_XALLOC_H */
