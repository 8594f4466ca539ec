/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_predict.c - run-time predictions for planning (sim_opts.predict),
 * through the controller's own (src/sched/backfill.h): each user's last
 * two run times; the job is still killed at its estimate
 */
#include "sim/sim_private.h"

/* SWF user ids are small non-negative numbers (-1: unknown, one user). */
static uint32_t user_of(const struct sim *s, uint32_t j)
{
    return (uint32_t)s->t->jobs[j].user;
}

int64_t sim_predict(struct sim *s, uint32_t j)
{
    return sched_predict_limit(s->predict, user_of(s, j),
                               s->t->jobs[j].estimate);
}

int sim_predict_learn(struct sim *s, uint32_t j, int64_t ran)
{
    return sched_predict_learn(s->predict, user_of(s, j), ran);
}

void sim_predict_outrun(struct sim *s, int64_t now)
{
    for (size_t r = 0; r < s->nrun; r++) {
        struct sched_job *run = &s->run[r];
        run->time_limit_s = s->limit[run->id] = sched_predict_running(
            run->time_limit_s, s->t->jobs[run->id].estimate, run->start_time,
            now);
    }
}
