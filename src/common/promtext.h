/* SPDX-License-Identifier: Apache-2.0
 *
 * promtext.h - a text in Prometheus' exposition format, built up
 *
 * The text format 0.0.4 of Prometheus (prometheus.io/docs/instrumenting/
 * exposition_formats): "# HELP" and "# TYPE" lines, then one sample per
 * line.  droverrestd's /metrics (restd/metrics.c) and droverd's
 * (noded/metrics.c) write theirs with it.
 */
#ifndef DROVER_COMMON_PROMTEXT_H
#define DROVER_COMMON_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* A growing text: zero it to start; buf is NUL-terminated once anything
 * was put, owned by the caller (free()).  oom: a realloc failed, the
 * text is cut short and later puts do nothing. */
struct promtext {
    char *buf;
    size_t len, cap;
    bool oom;
};

/* Append printf(fmt, ...) to 't'. */
void promtext_put(struct promtext *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "# HELP name help" and "# TYPE name type" ('type': "gauge",
 * "counter", "histogram"). */
void promtext_header(struct promtext *t, const char *name, const char *type,
                     const char *help);

/* 's' as a label value with Prometheus' escapes (\\, \", \n), at most
 * 255 bytes of it, written into 'out'; returns 'out'.  NULL is "". */
const char *promtext_esc(const char *s, char out[512]);

#endif /* !DROVER_COMMON_PROMTEXT_H */
