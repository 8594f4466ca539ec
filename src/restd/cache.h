/* SPDX-License-Identifier: Apache-2.0
 *
 * cache.h - GET answers shared between identical requests for a moment
 *
 * Dashboards and portals poll the same paths with the same token every
 * second or two; each answer lists every job the controller holds, and on
 * a small machine 100 such pollers cost more CPU than the jobs they
 * watch (bench/rest_load.py, bench/README.md).  droverrestd therefore
 * keeps each successful GET answer for a short time (droverrestd
 * --cache-ttl, default 1000 ms) and serves it again to the same request:
 * the same credential (the token string, exactly, with the same
 * X-SLURM-USER-NAME; or this daemon's own user on its unix socket) and
 * the same path and query.  A token is never matched by its claims, which
 * droverrestd does not verify: only the very token the controller
 * accepted gets the answer made for it.  Identical requests that arrive
 * while one is being answered wait for that one instead of asking the
 * controller again; once an answer is past its time, the first request
 * renews it and the others meanwhile get the last one (its Age tells),
 * so a hundred pollers do not all wait together every TTL.  An answer
 * that took T to make is kept for 9 T when that is longer than the TTL
 * (at most 60 s): renewing it then takes at most a tenth of the time,
 * however many jobs it lists (bench/README.md: a /jobs answer of 4,000
 * jobs took 0.4-0.5 s to make, and renewing it every second took half a
 * core).  Any POST, PUT or DELETE through droverrestd empties
 * the cache, so a client sees its own changes at once; changes made
 * elsewhere (sbatch, scancel) show within the TTL.
 *
 * Thread-safe: libmicrohttpd answers each connection on its own thread.
 */
#ifndef DROVER_RESTD_CACHE_H
#define DROVER_RESTD_CACHE_H

#include <stdbool.h>
#include <stddef.h>

struct rest_cache;

/* A cache keeping answers 'ttl_ms' milliseconds (or 9 times as long as
 * one took to make, up to 60 s, when that is longer), at most 'max_bytes' of
 * answer text in all (an answer that does not fit is not kept).  NULL
 * with errno ENOMEM.  Free with rest_cache_destroy(). */
struct rest_cache *rest_cache_create(unsigned ttl_ms, size_t max_bytes);

/* NULL is a no-op.  No thread may be using the cache. */
void rest_cache_destroy(struct rest_cache *c);

/* The answer kept for 'key' (any NUL-terminated text): a new copy of its
 * bytes (caller frees; a NUL follows them), with *len set to their
 * count, *type to its content type (a static string) and *age_ms to its
 * age.  If another thread is answering the
 * same key, waits for it (at most the controller's MessageTimeout,
 * 'wait_ms').  Otherwise returns NULL and the caller now answers 'key':
 * it must then call rest_cache_put() or rest_cache_abandon() for it. */
char *rest_cache_get(struct rest_cache *c, const char *key, size_t *len,
                     const char **type, unsigned *age_ms, unsigned wait_ms);

/* Keep the 'len' bytes at 'text' (copied; gzip data too) of content type
 * 'type' (static) as the answer of 'key', which this thread was
 * answering, and wake those waiting. */
void rest_cache_put(struct rest_cache *c, const char *key, const char *text,
                    size_t len, const char *type);

/* This thread's answer to 'key' is not to be kept (an error): wake those
 * waiting, who then answer it themselves. */
void rest_cache_abandon(struct rest_cache *c, const char *key);

/* Forget every answer kept (a write went through droverrestd). */
void rest_cache_clear(struct rest_cache *c);

#endif /* !DROVER_RESTD_CACHE_H */
