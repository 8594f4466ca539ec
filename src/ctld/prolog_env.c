/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog_env.c - Prolog= and Epilog= environments (prolog_env.h)
 */
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/job_env.h"
#include "ctld/job_info.h"
#include "ctld/prolog_env.h"

/* The "NAME=value" strings of 'e' as a JSON array (freed). */
static json_t *to_json(struct job_env *e)
{
    json_t *env = json_array();

    for (size_t i = 0; i < e->n; i++) {
        json_array_append_new(env, json_string(e->v[i]));
        free(e->v[i]);
    }
    free(e->v);
    return env;
}

json_t *prolog_env_json(const struct ctld *ctld, const struct job *job,
                        uint32_t e)
{
    const struct sched_alloc *a = job->alloc;
    struct job_env env = {0};
    char *nodes;

    if ((!ctld->conf->prolog && !ctld->conf->epilog) || !a
        || e >= a->node_count)
        return NULL;
    job_env_add(&env, "SLURM_JOB_ID", "%u", job->id);
    job_env_add(&env, "SLURM_JOBID", "%u", job->id);
    job_env_add(&env, "SLURM_JOB_USER", "%s", job->user_name);
    job_env_add(&env, "SLURM_JOB_UID", "%u", (unsigned)job->uid);
    job_env_add(&env, "SLURM_JOB_GID", "%u", (unsigned)job->gid);
    job_env_add(&env, "SLURM_JOB_PARTITION", "%s", job->partition);
    if (job->account)
        job_env_add(&env, "SLURM_JOB_ACCOUNT", "%s", job->account);
    nodes = node_table_alloc_hostlist(ctld->nodes, a);
    job_env_add(&env, "SLURM_JOB_NODELIST", "%s", nodes);
    free(nodes);
    if (ctld->conf->cluster_name)
        job_env_add(&env, "SLURM_CLUSTER_NAME", "%s",
                    ctld->conf->cluster_name);
    if (job->req.features)
        job_env_add(&env, "SLURM_JOB_CONSTRAINTS", "%s", job->req.features);
    if (a->gpus[e] && bitmap_count(a->gpus[e])) {
        char *list = xstrdup(""); /* "0,1,2", as CUDA and Slurm write it */
        for (long b = bitmap_first_set(a->gpus[e], 0); b >= 0;
             b = bitmap_first_set(a->gpus[e], (size_t)b + 1)) {
            char *t = xasprintf("%s%s%ld", list, *list ? "," : "", b);
            free(list);
            list = t;
        }
        job_env_add(&env, "SLURM_JOB_GPUS", "%s", list);
        job_env_add(&env, "CUDA_VISIBLE_DEVICES", "%s", list);
        free(list);
    }
    if (job->mps_per_node && a->shards[e])
        job_env_add(&env, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "%u",
                    job_info_mps_percent(ctld, job, e));
    return to_json(&env);
}

int prolog_answer_timeout_ms(const struct slurm_conf *c)
{
    return c->prolog_epilog_timeout_s
               ? (int)(c->prolog_epilog_timeout_s + 2 * c->msg_timeout_s)
                     * 1000
               : 24 * 3600 * 1000;
}
