/* SPDX-License-Identifier: Apache-2.0
 *
 * pass_keys.h - what a scheduling pass learnt of the requests it has seen
 * (pass.c and pass_keys.c only)
 *
 * Usage only grows during a pass, so what the pass found of one job's
 * request and time limit (it does not fit now, it finds no start, it
 * cannot start before some time) holds for every later job whose request
 * and limit are the same or larger in every way: a key records it, and
 * passes it on to the larger keys of its class.
 */
#ifndef DROVER_SCHED_PASS_KEYS_H
#define DROVER_SCHED_PASS_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

#define KEY_NEVER 0x1  /* can never run */
#define KEY_BUSY 0x2   /* does not fit now */
#define KEY_WINDOW 0x4 /* fits now, not for its limit past reservations */
#define KEY_NOPLAN 0x8 /* no reservation within the window */

/* One request and time limit seen in the pass. */
struct key {
    const struct sched_request *req;
    int64_t limit;
    int64_t hint;   /* no reservation for it begins earlier than this */
    uint32_t next;  /* in its hash bucket */
    uint32_t cnext; /* the next key of its class; UINT32_MAX: none */
    uint32_t cls;   /* its class; UINT32_MAX: in none */
    uint32_t flags; /* KEY_*: learnt of this very request and limit */
    uint32_t inh;   /* KEY_BUSY, _WINDOW, _NOPLAN: learnt of a smaller key
                     * of its class (KEY_BUSY: it does not fit now either,
                     * unless it can never run: the caller tells which) */
};

/* Keys whose requests differ at most in the sizes key_le() compares. */
struct key_class {
    const struct sched_request *rep;
    uint32_t head; /* its first key */
    uint32_t next; /* in its hash bucket */
};

struct keytab {
    uint32_t *kbucket, *cbucket;
    size_t kmask, cmask;
    struct key *keys;
    struct key_class *cls;
    uint32_t nkeys, ncls;
};

/* Room for 'max_keys' keys.  0, or -1 with errno=ENOMEM (keytab_destroy()
 * cleans up either way).
 */
int keytab_init(struct keytab *t, size_t max_keys);

void keytab_destroy(struct keytab *t);

/* The key of job's request and limit, made if new (with what its smaller
 * keys learnt); NULL for requests left out: none, or with gpus_total,
 * whose choice of nodes is not exact (more usage might, rarely, let them
 * fit).  A new key must fit in the room keytab_init() was given.
 */
struct key *keytab_get(struct keytab *t, const struct sched_job *job);

/* 'k' learnt 'flags' (KEY_*): recorded, and passed on to the larger keys
 * of its class.
 */
void keytab_learn(struct keytab *t, struct key *k, uint32_t flags);

/* 'k' found a start at 'hint': no later job of it, or of a larger key of
 * its class, starts earlier.
 */
void keytab_hint(struct keytab *t, struct key *k, int64_t hint);

#endif /* !DROVER_SCHED_PASS_KEYS_H */
