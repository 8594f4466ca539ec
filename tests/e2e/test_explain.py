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


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 4,
                                      "up_args": ["--cpus-per-node=4"]}],
                         indirect=True)
def test_pending_jobs_explained(cluster):
    c = cluster
    blocker = c.sbatch("-n4", "-t", "10", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    waiting = c.sbatch("-n2", "--gres=gpu:2", "-t", "5", "-o", "/dev/null",
                       "--wrap", "true")
    c.wait_until(lambda: "planned" in explain(c, waiting), 15,
                 "a planned start")
    assert re.fullmatch(rf"needs cpu=2,gres/gpu=2 on 1 node; planned {STAMP} "
                        r"on node01", explain(c, waiting)), explain(c, waiting)
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
