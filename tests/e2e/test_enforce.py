# SPDX-License-Identifier: Apache-2.0
"""AccountingStorageEnforce=associations,limits,qos: accounts and QOS
resolved and checked at submit time, QOS/association limits holding jobs
with Slurm's reasons (QOSMaxGRESPerUser...), limits that change letting
pending jobs start.

The tables come from droverdbd (acct_assoc_list).  The first test needs
droverdbd and sacctmgr.  The others stop droverdbd: the controller enforces
the last copy it saved (StateSaveLocation/assoc_cache.json), and refuses a
user the copy does not know.
"""

import json
import time

import pytest


ENFORCE = "AccountingStorageEnforce=associations,limits,qos"
BAD_ACCOUNT = ("sbatch: error: Batch job submission failed: Invalid account "
               "or account/partition combination specified\n")
BAD_QOS = "sbatch: error: Batch job submission failed: Invalid qos specification\n"
POLICY = ("sbatch: error: Batch job submission failed: Job violates "
          "accounting/QOS policy (job submit limit, user's size and/or time "
          "limits)\n")
GPU_JOB = ("--gres=gpu:4", "--wrap", "sleep 300")


def reason(cluster, job_id):
    r = cluster.run("squeue", "-h", "-j", job_id, "-o", "%t %r", check=True)
    return r.stdout.strip()


def assert_tutorial(cluster, user):
    """Two 4-GPU jobs under QOS gpu4 (MaxTRESPerUser=gres/gpu=4): the second
    pends QOSMaxGRESPerUser while the first runs.  Returns their ids."""
    first = cluster.sbatch(*GPU_JOB, user=user)
    cluster.wait_job_state(first, "RUNNING", timeout=30)
    second = cluster.sbatch(*GPU_JOB, user=user)
    cluster.wait_until(lambda: reason(cluster, second) == "PD QOSMaxGRESPerUser",
                       timeout=15, what="the second job to pend on the QOS")
    assert cluster.job_field(second, "Account") == "research"
    assert cluster.job_field(second, "QOS") == "gpu4"
    return first, second


def assert_rejected(cluster, user, *args, stderr):
    r = cluster.run("sbatch", *args, "--wrap", "true", user=user)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", stderr)


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 8,
                                      "up_args": [f"--conf-extra={ENFORCE}"]}],
                         indirect=True)
def test_qos_limit_from_sacctmgr(cluster, make_user):
    user = make_user("drenforce1")
    for cmd in (["add", "account", "research"],
                ["add", "qos", "gpu4", "MaxTRESPerUser=gres/gpu=4"],
                ["add", "user", user, "account=research", "qos=normal,gpu4",
                 "defaultqos=gpu4"]):
        cluster.run("sacctmgr", "-i", *cmd, check=True)
    # The controller polls droverdbd every 5 s.
    cluster.wait_until(
        lambda: cluster.run("sbatch", "-H", "--wrap", "true",
                            user=user).returncode == 0,
        timeout=15, what="the controller to learn the association")
    cluster.run("scancel", "-u", user, check=True)
    first, second = assert_tutorial(cluster, user)
    assert_rejected(cluster, user, "-A", "nosuch", stderr=BAD_ACCOUNT)
    assert_rejected(cluster, user, "--qos=nosuch", stderr=BAD_QOS)
    cluster.run("scancel", first, check=True)
    cluster.wait_job_state(second, "RUNNING", timeout=15)
    # A limit raised in droverdbd lets a pending job start within seconds.
    third = cluster.sbatch(*GPU_JOB, user=user)
    cluster.wait_until(lambda: reason(cluster, third) == "PD QOSMaxGRESPerUser",
                       timeout=15, what="the third job to pend")
    cluster.run("sacctmgr", "-i", "modify", "qos", "gpu4", "set",
                "MaxTRESPerUser=gres/gpu=8", check=True)
    cluster.wait_job_state(third, "RUNNING", timeout=12)


def assoc_cache(user, gpu4_extra=None):
    """The acct_assoc_list answer droverdbd would give for the tutorial's
    accounting (docs/protocol.md), as the controller saves it."""
    gpu4 = {"name": "gpu4", "max_tres_per_user": "gres/gpu=4"}
    gpu4.update(gpu4_extra or {})
    return {
        "version": 7,
        "qos": [{"name": "normal"}, gpu4],
        "assocs": [
            {"cluster": "drover", "account": "root", "user": "",
             "parent_account": ""},
            {"cluster": "drover", "account": "research", "user": "",
             "parent_account": "root"},
            {"cluster": "drover", "account": "research", "user": user,
             "parent_account": "research", "qos": ["normal", "gpu4"],
             "def_qos": "gpu4"},
        ],
        "users": [{"name": user, "uid": -1, "default_account": "research",
                   "admin_level": "None"}],
    }


# Enforcement on; each test stops droverdbd first.
DBD_DOWN = pytest.mark.parametrize(
    "cluster", [{"nodes": 1, "gpus_per_node": 8,
                 "up_args": [f"--conf-extra={ENFORCE}"]}],
    indirect=True, ids=["dbd-down"])


def restart_with_cache(cluster, cache):
    """Restart the controller (alone: droverdbd stays down) on 'cache'."""
    (cluster.dir / "state" / "assoc_cache.json").write_text(json.dumps(cache))
    cluster.restart_alone("droverctld")


@DBD_DOWN
def test_no_associations_yet_refuses_then_cache_enforces(cluster, make_user):
    user = make_user("drenforce1")
    cluster.kill("droverdbd")
    # No copy of the associations yet: Slurm's error for an unknown one.
    assert_rejected(cluster, user, stderr=BAD_ACCOUNT)
    restart_with_cache(cluster, assoc_cache(user))
    first, second = assert_tutorial(cluster, user)
    assert_rejected(cluster, user, "-A", "nosuch", stderr=BAD_ACCOUNT)
    assert_rejected(cluster, user, "--qos=nosuch", stderr=BAD_QOS)
    # A CPU-only job of the same user is not held by the GPU limit.
    cpu = cluster.sbatch("-q", "normal", "--wrap", "sleep 300", user=user)
    cluster.wait_job_state(cpu, "RUNNING", timeout=30)
    cluster.run("scancel", first, check=True)
    cluster.wait_job_state(second, "RUNNING", timeout=10)
    r = cluster.run("squeue", "-h", "-u", user, "-o", "%i %a %q", check=True)
    assert sorted(r.stdout.split("\n")[:-1]) == sorted(
        [f"{second} research gpu4", f"{cpu} research normal"])
    cluster.run("scancel", "-u", user, check=True)


@DBD_DOWN
def test_job_over_a_per_user_limit_pends_and_submit_limit_refuses(
        cluster, make_user):
    user = make_user("drenforce1")
    cluster.kill("droverdbd")
    restart_with_cache(cluster, assoc_cache(
        user, {"max_submit_jobs_per_user": 2, "max_wall_min": 10}))
    # An array counts as its tasks against MaxSubmitJobsPerUser=2.
    assert_rejected(cluster, user, "--array=0-2", stderr=POLICY)
    # 8 GPUs can never fit a 4-GPU per-user cap: accepted, pends (as
    # Slurm 22.05 does, golden sbatch-gpu8-over-qos).
    g8 = cluster.sbatch("--parsable", "-J", "g8", "--gres=gpu:8", "-t", "5",
                        "--wrap=true", user=user)
    cluster.wait_until(lambda: reason(cluster, g8) == "PD QOSMaxGRESPerUser",
                       timeout=10, what="g8 to pend on the QOS")
    long = cluster.sbatch("-t", "20", "--wrap", "true", user=user)
    cluster.wait_until(
        lambda: reason(cluster, long) == "PD QOSMaxWallDurationPerJobLimit",
        timeout=10, what="the long job to pend on MaxWall")
    assert_rejected(cluster, user, stderr=POLICY)
    cluster.run("scancel", long, check=True)
    time.sleep(0.5)  # the cancel's pass recomputes usage
    # Without -t, the QOS's MaxWall becomes the job's limit (as Slurm).
    j = cluster.sbatch("-H", "--wrap", "true", user=user)
    assert cluster.job_field(j, "TimeLimit") == "00:10:00"
    cluster.run("scancel", "-u", user, check=True)
