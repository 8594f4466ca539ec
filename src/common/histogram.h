/* SPDX-License-Identifier: Apache-2.0
 *
 * histogram.h - a log-linear histogram of durations (or any counts)
 *
 * Values under 8 are exact; above, each power of two is split in 8, so a
 * bucket is at most 1/8 of its values wide, up to 2^40.  Adding is O(1)
 * and the memory fixed (HISTOGRAM_BUCKETS counters): cheap enough for
 * every request and every scheduling pass.  Quantiles and Prometheus'
 * cumulative "le" counts are read from the buckets.
 */
#ifndef DROVER_COMMON_HISTOGRAM_H
#define DROVER_COMMON_HISTOGRAM_H

#include <stdint.h>

#include <jansson.h>

#define HISTOGRAM_SUB_BITS 3
#define HISTOGRAM_BUCKETS ((40 - HISTOGRAM_SUB_BITS + 1) \
                           * (1u << HISTOGRAM_SUB_BITS))

struct histogram {
    uint64_t count, total, max;
    uint32_t buckets[HISTOGRAM_BUCKETS];
};

/* Count one value 'v' (values over 2^40 go to the last bucket). */
void histogram_add(struct histogram *h, uint64_t v);

/* The q-quantile (0..1): the upper bound of the bucket holding it, at
 * most the largest value seen; 0 when empty. */
uint64_t histogram_quantile(const struct histogram *h, double q);

/* How many values are at most 'bound', counting a bucket only when all
 * of it is (so at most 1/8 low near 'bound'). */
uint64_t histogram_count_le(const struct histogram *h, uint64_t bound);

/* Prometheus buckets for durations in microseconds, 100 us to 10 s
 * (Prometheus' default bounds, finer below 5 ms); ends with 0. */
extern const uint64_t histogram_bounds_us[];

/* [[bound, cumulative count], ...] at histogram_bounds_us (new
 * reference): what a Prometheus histogram's _bucket series need; the
 * +Inf bucket is h->count. */
json_t *histogram_le_json(const struct histogram *h);

#endif /* !DROVER_COMMON_HISTOGRAM_H */
