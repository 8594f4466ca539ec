# SPDX-License-Identifier: Apache-2.0
"""slurmdbd.conf's PurgeJobAfter (issue 13: was stored and not used):
droverdbd deletes the jobs submitted before the cutoff that have ended,
with their steps, at start and at each new unit, as Slurm's slurmdbd; jobs
inside the window stay, and so does the usage already counted from the
purged ones."""
import re
import signal
import sqlite3
import time

import pytest

DAY = 86400


def sacct_ids(c):
    out = c.run("sacct", "-n", "-X", "-P", "-a", "-o", "JobID",
                "-S", "2000-01-01", check=True).stdout
    return sorted(out.split())


@pytest.mark.parametrize("cluster", [{
    "nodes": 1, "gpus_per_node": 0,
    "up_args": ["--dbd-conf-extra=PurgeJobAfter=2days"]}], indirect=True)
def test_purge_job_after_deletes_old_ended_jobs_only(cluster, tmp_path):
    c = cluster
    old = c.sbatch("-o", "/dev/null", "--wrap", "srun true", cwd=tmp_path)
    new = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
    for job in (old, new):
        c.wait_job_done(job, timeout=60)
    c.wait_until(lambda: sacct_ids(c) == sorted([old, new]), 30,
                 "both jobs in sacct")
    steps = c.run("sacct", "-n", "-P", "-j", old, "-o", "JobID",
                  check=True).stdout.split()
    assert f"{old}.0" in steps, steps
    c.kill("droverdbd", signal.SIGTERM)
    c.wait_until(lambda: c.pid("droverdbd") is None, 30, "droverdbd gone")
    # Make the first job 10 days old: submitted, started and ended then.
    db = sqlite3.connect(c.dir / "state" / "acct.sqlite")
    with db:
        db.execute("UPDATE job SET submit_time = submit_time - ?, "
                   "eligible_time = eligible_time - ?, start_time = "
                   "start_time - ?, end_time = end_time - ? WHERE job_id = ?",
                   (10 * DAY,) * 4 + (int(old),))
    db.close()
    c.start()
    c.wait_until(lambda: sacct_ids(c) == [new], 30, "the old job purged")
    log = c.log_file("droverdbd").read_text()
    assert re.search(r"PurgeJobAfter=2days: purged 1 jobs submitted before "
                     r"\d{4}-\d\d-\d\dT00:00:00", log), log[-2000:]
    db = sqlite3.connect(f"file:{c.dir}/state/acct.sqlite?mode=ro", uri=True)
    left = db.execute("SELECT COUNT(*) FROM step WHERE job_ref NOT IN "
                      "(SELECT id FROM job)").fetchone()[0]
    db.close()
    assert left == 0  # its steps went with it
    # a job running or pending is never purged, however old its record
    r = c.run("sacct", "-n", "-X", "-j", new, "-o", "State", check=True)
    assert r.stdout.split() == ["COMPLETED"]


def test_purge_job_after_refuses_a_bad_value(cluster_root):
    from cluster import Cluster
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    try:
        r = c.drover_cmd("up", "--nodes=1", "--gpus-per-node=0",
                         "--dbd-conf-extra=PurgeJobAfter=12weeks")
        out = r.stdout + r.stderr + c.log_tails()
        assert r.returncode != 0, out
        assert re.search(r"slurmdbd\.conf:\d+: PurgeJobAfter=12weeks: "
                         r"expected N\[hours\|days\|months\]", out), out
    finally:
        c.down()
