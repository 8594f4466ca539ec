/* SPDX-License-Identifier: Apache-2.0
 *
 * histogram.c - a log-linear histogram (histogram.h)
 */
#include "common/histogram.h"

#define SUBS (1u << HISTOGRAM_SUB_BITS)

const uint64_t histogram_bounds_us[] = {
    100,    250,    500,     1000,    2500,    5000,     10000, 25000,
    50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000, 0,
};

static unsigned bucket_of(uint64_t v)
{
    unsigned msb, b;

    if (v < SUBS)
        return (unsigned)v;
    msb = 63u - (unsigned)__builtin_clzll(v);
    b = (msb - HISTOGRAM_SUB_BITS + 1) * SUBS
        + (unsigned)((v >> (msb - HISTOGRAM_SUB_BITS)) & (SUBS - 1));
    return b < HISTOGRAM_BUCKETS ? b : HISTOGRAM_BUCKETS - 1;
}

/* The largest value of bucket 'b'. */
static uint64_t bucket_top(unsigned b)
{
    unsigned msb, sub;

    if (b < SUBS)
        return b;
    msb = b / SUBS + HISTOGRAM_SUB_BITS - 1;
    sub = b % SUBS;
    return ((uint64_t)(SUBS + sub + 1) << (msb - HISTOGRAM_SUB_BITS)) - 1;
}

void histogram_add(struct histogram *h, uint64_t v)
{
    h->count++;
    h->total += v;
    if (v > h->max)
        h->max = v;
    h->buckets[bucket_of(v)]++;
}

uint64_t histogram_quantile(const struct histogram *h, double q)
{
    uint64_t rank, seen = 0;

    if (!h->count)
        return 0;
    rank = (uint64_t)(q * (double)h->count);
    if (rank >= h->count)
        rank = h->count - 1;
    for (unsigned b = 0; b < HISTOGRAM_BUCKETS; b++) {
        seen += h->buckets[b];
        if (seen > rank) {
            uint64_t top = bucket_top(b);
            return top < h->max ? top : h->max;
        }
    }
    return h->max;
}

uint64_t histogram_count_le(const struct histogram *h, uint64_t bound)
{
    uint64_t n = 0;

    if (h->count && h->max <= bound)
        return h->count;
    for (unsigned b = 0; b < HISTOGRAM_BUCKETS && bucket_top(b) <= bound;
         b++)
        n += h->buckets[b];
    return n;
}

json_t *histogram_le_json(const struct histogram *h)
{
    json_t *arr = json_array();

    for (const uint64_t *b = histogram_bounds_us; *b; b++)
        json_array_append_new(
            arr, json_pack("[I I]", (json_int_t)*b,
                           (json_int_t)histogram_count_le(h, *b)));
    return arr;
}
