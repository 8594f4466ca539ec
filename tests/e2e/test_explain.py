# SPDX-License-Identifier: Apache-2.0
"""Why a pending job waits, in words (issue 11; Drover's PendingExplain):
squeue -O PendingExplain and scontrol -d show job's Explain= say what the
job needs and when and where the scheduler plans it, or what holds it."""
import re

import pytest

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def explain(c, job):
    return c.run("squeue", "-h", "-j", job, "-O", "PendingExplain:300",
                 check=True).stdout.strip()


def one_node(*extra):
    return {"nodes": 1, "gpus_per_node": 4,
            "up_args": ["--cpus-per-node=4"]
            + [f"--conf-extra={kv}" for kv in extra]}


@pytest.mark.parametrize(
    "cluster,planned",
    [(one_node("SchedulerParameters=drover_backfill=slurm"), True),
     (one_node(), False)],
    indirect=["cluster"])
def test_pending_jobs_explained(cluster, planned):
    """Under Slurm's backfill the waiting job has a planned start at once;
    under Drover's default it has none until it leads, and says why."""
    c = cluster
    blocker = c.sbatch("-n4", "-t", "10", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    waiting = c.sbatch("-n2", "--gres=gpu:2", "-t", "5", "-o", "/dev/null",
                       "--wrap", "true")
    want = (rf"needs cpu=2,gres/gpu=2 on 1 node; planned {STAMP} on node01"
            if planned else
            r"needs cpu=2,gres/gpu=2 on 1 node; no start planned yet \(under "
            r"the default backfill a job holds a reservation once it has "
            r"waited 10 times its planned time, a day at most; or every node "
            r"it may use is taken by jobs without a time limit, or down\)")
    c.wait_until(lambda: re.fullmatch(want, explain(c, waiting)), 15,
                 "the explanation")
    out = c.run("scontrol", "-d", "show", "job", waiting, check=True).stdout
    assert f"\n   Explain={explain(c, waiting)}\n" in out
    # without -d, scontrol prints Slurm's lines only
    assert "Explain=" not in c.run("scontrol", "show", "job", waiting,
                                   check=True).stdout
    held = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    assert explain(c, held) == "held by its user (scontrol release)"
    later = c.sbatch("--begin=now+1hour", "-o", "/dev/null", "--wrap", "true")
    assert re.fullmatch(rf"eligible from {STAMP}", explain(c, later))
    assert explain(c, blocker) == ""  # running: nothing to explain
    c.run("scancel", blocker, waiting, held, later, check=True)
