/* SPDX-License-Identifier: Apache-2.0
 *
 * purge.c - PurgeJobAfter: old jobs leave the database
 *
 * As Slurm's slurmdbd: at start and at the beginning of each hour, day or
 * month (PurgeJobAfter's unit), the jobs submitted before the cutoff
 * (conf_dbd_purge_job_cutoff()) that have ended are deleted with their
 * steps.  Usage rolled up from them stays: a rollup runs first, in the
 * same work item, so no ended job leaves before it is counted.
 */
#include <time.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "dbd/dbd.h"
#include "dbd/jobs_store.h"
#include "dbd/usage_store.h"

/* Write lane. */
static int do_purge(struct dbd *dbd, struct dbd_work *w)
{
    time_t now = time(NULL);
    time_t cutoff = conf_dbd_purge_job_cutoff(dbd->conf, now);
    int64_t purged = 0;
    char stamp[32];

    if (!cutoff)
        return 0;
    if (usage_rollup(w->db, now, &w->error) < 0
        || jobs_store_purge(w->db, cutoff, &purged, &w->error) < 0) {
        w->errnum = EDRV_ACCT_STORAGE;
        log_error("PurgeJobAfter=%s: %s", dbd->conf->purge_job_after,
                  w->error.text);
        return -1;
    }
    if (purged)
        log_info("PurgeJobAfter=%s: purged %lld jobs submitted before %s",
                 dbd->conf->purge_job_after, (long long)purged,
                 timefmt_stamp(cutoff + 1, 0, stamp, sizeof(stamp)));
    return 0;
}

void dbd_purge_check(struct dbd *dbd)
{
    time_t cutoff = conf_dbd_purge_job_cutoff(dbd->conf, time(NULL));

    if (!cutoff || cutoff == dbd->purged_before)
        return;
    dbd->purged_before = cutoff;
    dbd_work_submit(dbd, NULL, do_purge, -1);
}
