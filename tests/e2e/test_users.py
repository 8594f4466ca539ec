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


def test_time_limit_updates_follow_slurms_rules(cluster, tmp_path, make_user):
    alice = make_user("drvalice2")
    d = user_dir(tmp_path, alice)
    pending = cluster.run("sbatch", "--parsable", "-H", "-t", "10", "--wrap", "true",
                          user=alice, cwd=d, check=True).stdout.strip()
    running = cluster.run("sbatch", "--parsable", "-t", "60", "--wrap", "sleep 300",
                          user=alice, cwd=d, check=True).stdout.strip()
    cluster.wait_job_state(running, ["RUNNING"], timeout=30)
    # A pending job's limit may go up or down.
    for limit, shown in (("5", "00:05:00"), ("1:00:00", "01:00:00")):
        r = cluster.run("scontrol", "update", f"JobId={pending}", f"TimeLimit={limit}",
                        user=alice, cwd="/")
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
        assert cluster.job_field(pending, "TimeLimit") == shown
    # A running job's limit may only go down, unless root does it.
    r = cluster.run("scontrol", "update", f"JobId={running}", "TimeLimit=50",
                    user=alice, cwd="/")
    assert r.returncode == 0 and cluster.job_field(running, "TimeLimit") == "00:50:00"
    r = cluster.run("scontrol", "update", f"JobId={running}", "TimeLimit=2:00:00",
                    user=alice, cwd="/")
    assert (r.returncode, r.stderr) == (1, f"Access/permission denied for job {running}\n")
    cluster.run("scontrol", "update", f"JobId={running}", "TimeLimit=2:00:00", check=True)
    assert cluster.job_field(running, "TimeLimit") == "02:00:00"
    r = cluster.run("scontrol", "update", "JobId=999999", "TimeLimit=5")
    assert (r.returncode, r.stderr) == (1, "Invalid job id specified for job 999999\n")
    cluster.run("scancel", pending, running, check=True)


def test_lowered_limit_of_a_running_job_is_enforced_by_its_node(cluster, tmp_path):
    job = cluster.sbatch("-t", "10", "--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(job, ["RUNNING"], timeout=30)
    cluster.run("scontrol", "update", f"JobId={job}", "TimeLimit=0:01", check=True)
    cluster.wait_job_state(job, ["TIMEOUT"], timeout=30)
    # a limit of 0 (Slurm: zero minutes, not "none") ends it too
    job = cluster.sbatch("-t", "10", "--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(job, ["RUNNING"], timeout=30)
    cluster.run("scontrol", "update", f"JobId={job}", "TimeLimit=0", check=True)
    assert cluster.job_field(job, "TimeLimit") == "00:00:00"
    cluster.wait_job_state(job, ["TIMEOUT"], timeout=30)


@pytest.mark.parametrize("cluster", [{
    "nodes": 1, "gpus_per_node": 0,
    "up_args": ["--conf-extra=DroverOperators=druser2"]}], indirect=True)
def test_operator_acts_on_every_job_and_others_do_not(cluster, test_users):
    """DroverOperators= names users (looked up by the controller, cached)
    who may act on any job and update nodes; an ordinary user may not."""
    alice, bob = test_users
    a = cluster.sbatch("--parsable", "-H", "--wrap", "true", user=alice)
    b = cluster.sbatch("--parsable", "-H", "--wrap", "true", user=bob)
    r = cluster.run("scancel", b, user=alice, cwd="/")
    assert r.returncode != 0
    assert cluster.job_state(b) == "PENDING"
    for _ in range(3):  # the operator's name comes from the cache after once
        cluster.run("scontrol", "update", "NodeName=node01", "Weight=5",
                    user=bob, cwd="/", check=True)
    cluster.run("scancel", a, user=bob, cwd="/", check=True)
    cluster.wait_job_state(a, ["CANCELLED"], timeout=30)
    r = cluster.run("scontrol", "update", "NodeName=node01", "Weight=7",
                    user=alice, cwd="/")
    assert r.returncode != 0
    cluster.run("scancel", b, user=bob, cwd="/", check=True)
