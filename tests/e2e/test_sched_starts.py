# SPDX-License-Identifier: Apache-2.0
"""How many jobs one scheduling pass starts: SchedulerParameters
bf_max_job_start caps it (as Slurm's); the jobs after the last one started
are taken by the next pass, none is lost or left waiting."""
import re

import pytest


def cycles(c):
    out = c.run("sdiag", check=True).stdout
    main = out.split("Main schedule statistics", 1)[1]
    return int(re.search(r"Total cycles:\s+(\d+)", main).group(1))


@pytest.mark.parametrize("cluster", [{
    "nodes": 2, "gpus_per_node": 0,
    "up_args": ["--cpus-per-node=4",
                "--conf-extra=SchedulerParameters=bf_max_job_start=1"]}],
    indirect=True)
def test_one_start_a_pass_starts_every_job_in_turn(cluster):
    c = cluster
    before = cycles(c)
    job = c.sbatch("--array=1-8", "-n1", "-t", "5", "-o", "/dev/null",
                   "--wrap", "sleep 120")
    c.wait_until(lambda: c.run("squeue", "-h", "-r", "-j", job, "-t", "R",
                               "-o", "%i", check=True).stdout.count("\n")
                 == 8, 60, "all 8 tasks to run")
    # one start a pass: at least one pass for each of the 8 tasks
    assert cycles(c) - before >= 8
    c.run("scancel", job, check=True)

