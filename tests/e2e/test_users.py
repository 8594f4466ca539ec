# SPDX-License-Identifier: Apache-2.0
"""Jobs run as the submitting user; users cannot touch each other's jobs."""
import os
import pwd
import re

import pytest

pytestmark = pytest.mark.needs_root


def user_dir(tmp_path, user):
    d = tmp_path / user
    d.mkdir()
    pw = pwd.getpwnam(user)
    os.chown(d, pw.pw_uid, pw.pw_gid)
    os.chmod(tmp_path, 0o755)
    return d


def test_job_runs_with_the_submitting_users_ids_and_groups(cluster, tmp_path, make_user):
    user = make_user("drvuser1", groups=["drvgrp1"])
    d = user_dir(tmp_path, user)
    r = cluster.run("sbatch", "--parsable", "--wrap", "id; echo HOME=$HOME",
                    user=user, cwd=d, check=True)
    job_id = r.stdout.strip()
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    out = (d / f"slurm-{job_id}.out").read_text()
    pw = pwd.getpwnam(user)
    assert re.match(rf"uid={pw.pw_uid}\({user}\) gid={pw.pw_gid}\(", out), out
    assert "drvgrp1" in out  # supplementary group
    st = os.stat(d / f"slurm-{job_id}.out")
    assert (st.st_uid, st.st_gid) == (pw.pw_uid, pw.pw_gid)
    assert cluster.job_field(job_id, "UserId") == f"{user}({pw.pw_uid})"


def test_user_cannot_cancel_hold_or_requeue_another_users_job(cluster, tmp_path, make_user):
    alice = make_user("drvalice")
    bob = make_user("drvbob")
    d = user_dir(tmp_path, alice)
    job_id = cluster.run("sbatch", "--parsable", "--wrap", "sleep 300", user=alice,
                         cwd=d, check=True).stdout.strip()
    cluster.wait_job_state(job_id, ["RUNNING"], timeout=30)
    r = cluster.run("scancel", job_id, user=bob, cwd="/")
    assert r.returncode == 1 or r.returncode == 210
    assert "Access/permission denied" in r.stderr
    r = cluster.run("scontrol", "hold", job_id, user=bob, cwd="/")
    assert r.returncode == 1
    assert r.stderr.startswith(f"Invalid user id for job {job_id}") or \
        "Access/permission denied" in r.stderr, r.stderr
    r = cluster.run("scontrol", "update", "NodeName=node01", "State=DRAIN",
                    "Reason=x", user=bob, cwd="/")
    assert r.returncode == 1
    assert cluster.job_field(job_id, "JobState") == "RUNNING"
    # The owner and root can.
    cluster.run("scontrol", "hold", job_id, user=alice, cwd="/", check=True)
    cluster.run("scancel", job_id, check=True)
    cluster.wait_job_state(job_id, ["CANCELLED"], timeout=30)
