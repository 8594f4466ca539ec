# SPDX-License-Identifier: Apache-2.0
"""sstat (issue 13): what running steps use now, gathered by the
controller from the job's nodes (their step cgroups' processes in /proc),
with Slurm's options, fields and layout."""
import os
import re

import pytest
from cluster import require

# Each task holds ~40 MB in a shell variable and spins.
SCRIPT = """#!/bin/bash
srun -N2 -n2 bash -c 'x=$(head -c 40000000 /dev/zero | tr "\\0" a); \
while :; do :; done'
"""


def size_kib(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG])", text)
    assert m, text
    return float(m.group(1)) * {"K": 1, "M": 1024, "G": 1 << 20}[m.group(2)]


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sstat_reports_a_running_step(cluster, test_user, tmp_path):
    c = cluster
    require(os.geteuid() == 0, "sstat reads the step cgroups: needs root")
    job = c.sbatch("-N2", input=SCRIPT, user=test_user)
    c.wait_job_state(job, ("RUNNING",))

    def step_row():
        r = c.run("sstat", "-j", job, "-P", "-n", "-o",
                  "JobID,NTasks,MaxRSS,MaxRSSNode,AveCPU,Nodelist",
                  user=test_user)
        rows = [line.split("|") for line in r.stdout.splitlines()]
        if rows and rows[0][0] == f"{job}.0" and \
                size_kib(rows[0][2]) > 40 * 1024:
            return rows
        return None
    (row,) = c.wait_until(step_row, timeout=30, what="step 0's usage")
    assert row[1] == "2"    # two tasks (however many processes they run)
    assert row[3] in ("node01", "node02")
    assert sorted(row[5].split(",")) == ["node01", "node02"]
    assert re.fullmatch(r"\d\d:\d\d(\.\d{3}|:\d\d)", row[4]), row[4]

    # -a: the batch step too; .batch alone; the default layout's header.
    r = c.run("sstat", "-a", "-j", job, "-P", "-o", "JobID", check=True,
              user=test_user)
    assert set(r.stdout.split()[1:]) == {f"{job}.0", f"{job}.batch"}
    r = c.run("sstat", "-j", f"{job}.batch", "-o", "JobID,NTasks",
              check=True, user=test_user)
    lines = r.stdout.splitlines()
    assert lines[0] == "JobID          NTasks "
    assert lines[2].startswith(f"{job}.batch ")
    r = c.run("sstat", "-i", "-j", job, "-p", "-n", check=True)
    ((jid, nodes, pids, _),) = [l.split("|") for l in r.stdout.splitlines()]
    # Every process of the step's tasks: two bash, and while a task's
    # pipeline still runs, its head and tr too.
    assert jid == f"{job}.0" and len(pids.split(",")) >= 2

    # The same figures over REST (Drover's /drover/v1/job/{id}/usage).
    import json
    import urllib.request
    tok = c.run("scontrol", "token", user=test_user,
                check=True).stdout.strip().split("=", 1)[1]
    addr = (c.dir / "etc" / "restd.addr").read_text().strip()
    req = urllib.request.Request(
        f"http://{addr}/drover/v1/job/{job}/usage",
        headers={"X-SLURM-USER-TOKEN": tok})

    def usage():
        """Step 0 on each node, once node01's task holds its 40 MB (the
        wait above saw the larger of the two tasks)."""
        with urllib.request.urlopen(req, timeout=30) as resp:
            doc = json.loads(resp.read())
        steps = {(n["node"], s["step"]): s for n in doc["nodes"]
                 for s in n["steps"]}
        one = steps.get(("node01", "0"))
        return steps if one and one["max_rss_kib"] > 40000 else None
    steps = c.wait_until(usage, timeout=30, what="node01's task's 40 MB")
    assert steps[("node02", "0")]["processes"] >= 1

    # Another user may not look; an unknown field is refused.
    r = c.run("sstat", "-j", job, user="druser2")
    assert r.returncode == 1 and "Access/permission denied" in r.stderr
    r = c.run("sstat", "-j", job, "-o", "JobID,Colour")
    assert r.returncode == 1
    assert 'Invalid field requested: "Colour"' in r.stderr
    c.run("scancel", job, check=True)
    # Once it ended it uses nothing: an answer with no nodes, not an error
    # (the dashboard asks while a job ends under it).
    def usage_now():
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.status == 200  # never an error status
            return json.loads(resp.read())["nodes"]
    c.wait_until(lambda: usage_now() == [], what=f"job {job} to end")


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sstat_needs_a_running_job(cluster):
    c = cluster
    job = c.sbatch("-H", "--wrap", "true")
    r = c.run("sstat", "-j", job)
    assert r.returncode == 1
    assert f"couldn't get steps for job {job}: Job is not running" in r.stderr
    r = c.run("sstat")
    assert r.returncode == 1
    assert "You didn't give me any jobs to stat." in r.stderr
    r = c.run("sstat", "--usage", check=True)
    assert r.stdout == "Usage: sstat [options] -j <job(.stepid)>\n" \
        "\tUse --help for help\n"
    c.run("scancel", job, check=True)


def test_sstat_help_is_slurms(tmp_path):
    """--help byte for byte as Slurm 22.05's (golden help-sstat), kept in
    the test so it runs where the goldens are not."""
    from pathlib import Path
    import subprocess
    from cluster import binary
    r = subprocess.run([str(binary("sstat")), "--help"], capture_output=True,
                       text=True, check=True)
    golden = Path("/work/shared/slurm-golden/help-sstat/stdout")
    if golden.exists():
        assert r.stdout == golden.read_text()
    assert r.stdout.startswith("sstat [<OPTION>] -j <job(.stepid)>")
    assert "     -V, --version: Print version." in r.stdout
