# SPDX-License-Identifier: Apache-2.0
"""Drover's default backfill (SchedulerParameters drover_backfill=predict,
src/sched/backfill.h; issue 12), against Slurm's (drover_backfill=slurm),
on a real one-node cluster of 4 CPUs:

- backfill candidates go shortest time limit first, and a job that has
  not waited 10 times its planned time holds no reservation;
- a job is planned with its user's last two run times, not its limit;
- with drover_backfill=slurm, every waiting job in priority order holds a
  reservation and candidates keep priority order, as in Slurm.
"""
import pytest


def node(*extra):
    return {"nodes": 1, "gpus_per_node": 0,
            "up_args": ["--cpus-per-node=4"]
            + [f"--conf-extra={kv}" for kv in extra]}


def state(c, job):
    return c.run("squeue", "-h", "-j", job, "-o", "%t %r",
                 check=True).stdout.strip()


def shortest_or_first(c, other):
    """Two 2-CPU blockers of 10 minutes of user 'other'; a 4-CPU job
    (waits for both), then a 5-minute and a 2-minute 2-CPU job; one
    blocker goes, freeing 2 CPUs for one pass.  The blockers' user is not
    the others': a job that ends teaches the predictions its user's run
    time, and this user has none.  Returns (the 5-minute job, the 2-minute
    one, the jobs to cancel)."""
    hold = "sleep 300"
    r1 = c.sbatch("-n2", "-t", "10", "-o", "/dev/null", "--wrap", hold,
                  user=other)
    r2 = c.sbatch("-n2", "-t", "10", "-o", "/dev/null", "--wrap", hold,
                  user=other)
    c.wait_job_state(r1, "RUNNING", timeout=30)
    c.wait_job_state(r2, "RUNNING", timeout=30)
    big = c.sbatch("-n4", "-t", "10", "-o", "/dev/null", "--wrap", "true")
    five = c.sbatch("-n2", "-t", "5", "-o", "/dev/null", "--wrap", hold)
    two = c.sbatch("-n2", "-t", "2", "-o", "/dev/null", "--wrap", hold)
    c.wait_until(lambda: state(c, two).startswith("PD"), 15,
                 "the last job to be pending")
    c.run("scancel", r2, check=True)
    return five, two, [r1, r2, big, five, two]


@pytest.mark.parametrize("cluster", [node()], indirect=True)
def test_default_backfills_the_shortest_job_first(cluster, test_user):
    c = cluster
    five, two, jobs = shortest_or_first(c, test_user)
    c.wait_job_state(two, "RUNNING", timeout=30)
    assert state(c, five).startswith("PD"), state(c, five)
    c.run("scancel", *jobs, check=True)


@pytest.mark.parametrize("cluster",
                         [node("SchedulerParameters=drover_backfill=slurm")],
                         indirect=True)
def test_slurm_backfill_keeps_priority_order(cluster, test_user):
    c = cluster
    five, two, jobs = shortest_or_first(c, test_user)
    # The 4-CPU job holds a reservation at the blocker's end (10 min): the
    # 5-minute job, first in priority order, ends before it and starts.
    c.wait_job_state(five, "RUNNING", timeout=30)
    assert state(c, two).startswith("PD"), state(c, two)
    c.run("scancel", *jobs, check=True)


def predicted_backfill(c, user):
    """'user' runs two jobs of about a second with 20-minute limits; then a
    10-minute 2-CPU blocker, a 4-CPU job that leads (bf_max_job_test=1:
    the first job holds a reservation, at the blocker's end) and a
    20-minute 2-CPU job of 'user'.  Returns (that job, jobs to cancel)."""
    for _ in range(2):
        j = c.sbatch("-n1", "-t", "20", "-o", "/dev/null", "--wrap",
                     "sleep 1", user=user)
        c.wait_job_done(j, timeout=60)
    r = c.sbatch("-n2", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_job_state(r, "RUNNING", timeout=30)
    big = c.sbatch("-n4", "-t", "10", "-o", "/dev/null", "--wrap", "true")
    c.wait_until(lambda: state(c, big) == "PD Resources", 15,
                 "the 4-CPU job to wait")
    cand = c.sbatch("-n2", "-t", "20", "-o", "/dev/null", "--wrap",
                    "sleep 300", user=user)
    return cand, [r, big, cand]


@pytest.mark.parametrize("cluster",
                         [node("SchedulerParameters=bf_max_job_test=1")],
                         indirect=True)
def test_default_plans_with_the_users_run_times(cluster, test_user):
    c = cluster
    cand, jobs = predicted_backfill(c, test_user)
    # Planned for about a second (its user's history), the 20-minute job
    # ends long before the reservation 10 minutes ahead: it starts.
    c.wait_job_state(cand, "RUNNING", timeout=30)
    c.run("scancel", *jobs, check=True)


@pytest.mark.parametrize(
    "cluster",
    [node("SchedulerParameters=bf_max_job_test=1,drover_backfill=slurm")],
    indirect=True)
def test_slurm_backfill_plans_with_time_limits(cluster, test_user):
    c = cluster
    cand, jobs = predicted_backfill(c, test_user)
    # 20 minutes do not fit before the reservation 10 minutes ahead.
    c.wait_until(lambda: state(c, cand) == "PD Priority", 15,
                 "the 20-minute job to wait for Priority")
    c.run("scancel", *jobs, check=True)
