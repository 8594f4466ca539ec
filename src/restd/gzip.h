/* SPDX-License-Identifier: Apache-2.0
 *
 * gzip.h - answers compressed for the clients that ask (Accept-Encoding)
 *
 * A /jobs answer lists every job the controller holds: a poller asking
 * once a second moves megabytes a second, and on a small machine that
 * copying is most of what 100 pollers cost (bench/README.md, "REST
 * pollers").  Clients that say they take gzip (browsers, python-requests,
 * curl --compressed) get it, at zlib's fastest level; others get the
 * answer as it is.
 */
#ifndef DROVER_RESTD_GZIP_H
#define DROVER_RESTD_GZIP_H

#include <stdbool.h>
#include <stddef.h>

/* Answers shorter than this (bytes) are sent as they are. */
#define REST_GZIP_MIN 1024

/* Does an Accept-Encoding value ('value', NULL: no header) take gzip?
 * True for a "gzip", "x-gzip" or "*" coding whose q is not 0 (RFC 9110
 * 12.5.3; names and q compared case-blind). */
bool rest_accepts_gzip(const char *value);

/* The 'len' bytes at 'data' as one gzip member (RFC 1952), zlib level 1.
 * Returns a malloc'd buffer (caller frees) and sets *out_len, or returns
 * NULL (out of memory, or zlib failed). */
char *rest_gzip(const char *data, size_t len, size_t *out_len);

#endif /* !DROVER_RESTD_GZIP_H */
