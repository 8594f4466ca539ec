# SPDX-License-Identifier: Apache-2.0
"""SchedulerType=sched/builtin (issue 11): strict priority order, no
backfill: a small job that fits waits (Priority) behind a bigger one that
does not, where sched/backfill (the default) starts it at once."""
import pytest


def node(*extra):
    return {"nodes": 1, "gpus_per_node": 0,
            "up_args": ["--cpus-per-node=4"]
            + [f"--conf-extra={kv}" for kv in extra]}


def squeue(c, job):
    return c.run("squeue", "-h", "-j", job, "-o", "%t %r",
                 check=True).stdout.strip()


def blocked_small(c):
    """A 3-CPU blocker, then a 4-CPU job (waits) and a 1-CPU job."""
    blocker = c.sbatch("-n3", "-t", "10", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    big = c.sbatch("-n4", "-t", "10", "-o", "/dev/null", "--wrap", "true")
    small = c.sbatch("-n1", "-t", "1", "-o", "/dev/null", "--wrap",
                     "sleep 60")
    return blocker, big, small


@pytest.mark.parametrize("cluster", [node("SchedulerType=sched/builtin")],
                         indirect=True)
def test_builtin_starts_nothing_behind_a_waiting_job(cluster):
    c = cluster
    blocker, big, small = blocked_small(c)
    c.wait_until(lambda: squeue(c, small) == "PD Priority", 15,
                 "the small job to wait behind the big one")
    assert squeue(c, big) == "PD Resources"
    c.run("scancel", blocker, big, small, check=True)


@pytest.mark.parametrize("cluster", [node()], indirect=True)
def test_backfill_starts_the_small_job(cluster):
    c = cluster
    blocker, big, small = blocked_small(c)
    c.wait_job_state(small, "RUNNING", timeout=30)
    c.run("scancel", blocker, big, small, check=True)
