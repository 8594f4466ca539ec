/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_predict.c - run-time predictions for planning (sim_opts.predict):
 * each user's last two run times, as Tsafrir, Etsion and Feitelson's
 * "Backfilling Using System-Generated Predictions Rather than User
 * Runtime Estimates" (2007) propose; the job is still killed at its
 * estimate
 */
#include <errno.h>
#include <stdlib.h>

#include <uthash.h>

#include "sim/sim_private.h"

struct sim_user {
    int64_t user;
    int64_t last[2]; /* the two most recent run times, seconds */
    int n;           /* how many of them are known (0..2) */
    UT_hash_handle hh;
};

int64_t sim_predict(struct sim *s, uint32_t j)
{
    const struct swf_job *job = &s->t->jobs[j];
    struct sim_user *u = NULL;
    int64_t p;

    HASH_FIND(hh, s->users, &job->user, sizeof(job->user), u);
    if (!u || u->n == 0)
        return job->estimate;
    p = u->n == 1 ? u->last[0] : (u->last[0] + u->last[1] + 1) / 2;
    if (p < 1)
        p = 1;
    return p < job->estimate ? p : job->estimate;
}

int sim_predict_learn(struct sim *s, uint32_t j, int64_t ran)
{
    const struct swf_job *job = &s->t->jobs[j];
    struct sim_user *u = NULL;

    HASH_FIND(hh, s->users, &job->user, sizeof(job->user), u);
    if (!u) {
        if (!(u = calloc(1, sizeof(*u))))
            return -1;
        u->user = job->user;
        HASH_ADD(hh, s->users, user, sizeof(u->user), u);
    }
    u->last[1] = u->last[0];
    u->last[0] = ran;
    if (u->n < 2)
        u->n++;
    return 0;
}

void sim_predict_outrun(struct sim *s, int64_t now)
{
    for (size_t r = 0; r < s->nrun; r++) {
        struct sched_job *run = &s->run[r];
        int64_t est = s->t->jobs[run->id].estimate;
        if (run->time_limit_s < est && run->start_time + run->time_limit_s
                                           <= now)
            run->time_limit_s = s->limit[run->id] = est;
    }
}

void sim_predict_free(struct sim *s)
{
    struct sim_user *u, *tmp;

    HASH_ITER(hh, s->users, u, tmp) {
        HASH_DEL(s->users, u);
        free(u);
    }
}
