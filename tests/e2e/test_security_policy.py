# SPDX-License-Identifier: Apache-2.0
"""Security issue 19, policy keys and run bookkeeping: slurm.conf's
PrivateData= and the partition keys RootOnly=, AllowGroups=,
AllowAccounts=/DenyAccounts=, Hidden= take effect as in Slurm (an ordinary
user's attempt fails with Slurm's error; root's or an allowed user's
works); a node's report about an earlier run of a requeued job does not
end the new run; holds of running jobs and requeued held jobs behave as in
Slurm."""
import signal
import time

import pytest

from cluster import wait_until

SUBMIT_FAILED = "sbatch: error: Batch job submission failed: "


def add_partitions(cluster, *lines):
    """Append PartitionName= lines to slurm.conf and restart the cluster,
    as an admin would."""
    text = cluster.conf.read_text()
    cluster.conf.write_text(text + "".join(f"{line}\n" for line in lines))
    cluster.down()
    cluster.up()


def submit(cluster, *args, user=None):
    return cluster.run("sbatch", "-o", "/dev/null", *args, user=user)


def partitions_seen(cluster, *args, user=None):
    r = cluster.run("sinfo", "-h", "-o", "%R", *args, user=user, check=True)
    return set(r.stdout.split())


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0}],
                         indirect=True)
def test_root_only_partition(cluster, test_users):
    add_partitions(cluster, "PartitionName=rootp Nodes=node02 RootOnly=YES")
    r = submit(cluster, "-p", "rootp", "--wrap=true", user=test_users[0])
    assert (r.returncode, r.stdout, r.stderr) == \
        (1, "", SUBMIT_FAILED + "Access/permission denied\n")
    # Moving a pending job there is refused the same way.
    j = cluster.sbatch("-H", "-o", "/dev/null", "--wrap=true",
                       user=test_users[0])
    r = cluster.run("scontrol", "update", f"JobId={j}", "Partition=rootp",
                    user=test_users[0])
    assert r.returncode == 1 and "Access/permission denied" in r.stderr
    ok = cluster.sbatch("-p", "rootp", "-o", "/dev/null", "--wrap=true")
    cluster.wait_job_state(ok, ["COMPLETED"], timeout=30)
    r = cluster.run("scontrol", "show", "partition", "rootp", check=True)
    assert " RootOnly=YES " in r.stdout


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0}],
                         indirect=True)
def test_allow_groups_partition(cluster, test_users, make_user):
    member = make_user("drpolicy1", groups=["drpolgrp"])
    add_partitions(cluster,
                   "PartitionName=grp Nodes=node02 AllowGroups=drpolgrp")
    r = submit(cluster, "-p", "grp", "--wrap=true", user=test_users[0])
    assert (r.returncode, r.stderr) == \
        (1, SUBMIT_FAILED + "User's group not permitted to use this "
                            "partition\n")
    j = cluster.sbatch("-p", "grp", "-o", "/dev/null", "--wrap=true",
                       user=member)
    cluster.wait_job_state(j, ["COMPLETED"], timeout=30)
    # A partition the user's groups may not use is not listed to them
    # (Slurm's part_is_visible), unless -a.
    assert "grp" not in partitions_seen(cluster, user=test_users[0])
    assert "grp" in partitions_seen(cluster, "-a", user=test_users[0])
    assert "grp" in partitions_seen(cluster, user=member)
    r = cluster.run("scontrol", "show", "partition", "grp", check=True)
    assert "AllowGroups=drpolgrp AllowAccounts=ALL AllowQos=ALL" in r.stdout


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0}],
                         indirect=True)
def test_allow_and_deny_accounts(cluster, test_users):
    add_partitions(cluster,
                   "PartitionName=phys Nodes=node02 AllowAccounts=physics",
                   "PartitionName=nochem Nodes=node02 DenyAccounts=chem",
                   "PartitionName=hiq Nodes=node02 AllowQos=high")
    user = test_users[0]
    bad = SUBMIT_FAILED + ("Invalid account or account/partition combination "
                           "specified\n")
    for args in (["-p", "phys", "-A", "chem"], ["-p", "phys"],
                 ["-p", "nochem", "-A", "chem"]):
        r = submit(cluster, *args, "--wrap=true", user=user)
        assert (r.returncode, r.stderr) == (1, bad), args
    for args in (["-p", "phys", "-A", "physics"], ["-p", "nochem", "-A", "bio"]):
        j = cluster.sbatch("-o", "/dev/null", *args, "--wrap=true", user=user)
        cluster.wait_job_state(j, ["COMPLETED"], timeout=30)
    r = cluster.run("scontrol", "show", "partition", "nochem", check=True)
    assert "AllowGroups=ALL DenyAccounts=chem AllowQos=ALL" in r.stdout
    r = submit(cluster, "-p", "hiq", "-q", "low", "--wrap=true", user=user)
    assert (r.returncode, r.stderr) == \
        (1, SUBMIT_FAILED + "Invalid qos specification\n")
    j = cluster.sbatch("-o", "/dev/null", "-p", "hiq", "-q", "high",
                       "--wrap=true", user=user)
    cluster.wait_job_state(j, ["COMPLETED"], timeout=30)


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0}],
                         indirect=True)
def test_hidden_partition(cluster, test_users):
    add_partitions(cluster, "PartitionName=hid Nodes=node02 Hidden=YES")
    user = test_users[0]
    assert "hid" not in partitions_seen(cluster, user=user)
    assert "hid" in partitions_seen(cluster, "-a", user=user)
    r = cluster.run("scontrol", "show", "partition", "hid", user=user)
    assert (r.returncode, r.stdout) == (1, "Partition hid not found\n")
    r = cluster.run("scontrol", "-a", "show", "partition", "hid", user=user,
                    check=True)
    assert " Hidden=YES" in r.stdout
    # Hidden is not a barrier: a job may go there, and is listed with -a.
    j = cluster.sbatch("-p", "hid", "-o", "/dev/null", "--wrap=sleep 30",
                       user=user)
    cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    ids = lambda *a: cluster.run("squeue", "-h", "-o", "%i", *a, user=user,
                                 check=True).stdout.split()
    assert j not in ids()
    assert j in ids("-a")
    assert j in ids("-j", j)
    assert j in ids("-p", "hid")
    assert j in cluster.run("squeue", "-h", "-o", "%i",
                            check=True).stdout.split()  # root sees all
    cluster.run("scancel", j, user=user, check=True)


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra=PrivateData="
                                                  "jobs,nodes,partitions"]}],
                         indirect=True)
def test_private_data(cluster, test_users):
    owner, other = test_users
    j = cluster.sbatch("-o", "/dev/null", "--wrap=sleep 30", user=owner)
    cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    seen = lambda user: cluster.run("squeue", "-h", "-o", "%i", user=user,
                                    check=True).stdout.split()
    assert seen(owner) == [j]
    assert seen(other) == []
    assert j in seen(None)  # root
    r = cluster.run("scontrol", "show", "job", j, user=other)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "slurm_load_jobs error: Invalid job id specified\n"
    r = cluster.run("scontrol", "show", "job", j, user=owner, check=True)
    assert f"JobId={j} " in r.stdout
    r = cluster.run("squeue", "-s", "-h", "-o", "%i", user=other, check=True)
    assert r.stdout == ""
    r = cluster.run("sinfo", user=other)
    assert (r.returncode, r.stderr) == \
        (1, "slurm_load_partitions error: Access/permission denied\n")
    r = cluster.run("scontrol", "show", "node", "node01", user=other)
    assert (r.returncode, r.stderr) == \
        (1, "slurm_load_node error: Access/permission denied\n")
    assert cluster.run("sinfo", "-h", check=True).stdout  # root
    r = cluster.run("scontrol", "show", "config", user=other, check=True)
    assert "PrivateData             = jobs,nodes,partitions\n" in r.stdout
    cluster.run("scancel", j, check=True)


def job(cluster, job_id):
    """The controller's job record (wire protocol)."""
    jobs = cluster.rpc("job_info", {"job_ids": [int(job_id)],
                                    "all_states": True})["jobs"]
    assert jobs, f"no job {job_id}"
    return jobs[0]


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra="
                                                  "SlurmdTimeout=8",
                                                  "--conf-extra=KillWait=3"]}],
                         indirect=True)
def test_old_run_report_does_not_end_new_run(cluster):
    """node02 is cut off (its droverd stopped) past SlurmdTimeout: DOWN,
    its job requeued.  When node02 comes back the job is to run there
    again while the old run, still alive there, takes KillWait to die (it
    ignores SIGTERM): the new run's launch waits for it, and the old run's
    report (killed) does not end the new run."""
    out = cluster.workdir / "runs.out"
    j = cluster.sbatch("-w", "node02", "--requeue", "-o", out,
                       "--wrap=trap '' TERM; echo run $SLURM_RESTART_COUNT; "
                       "while :; do sleep 1; done")
    cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    cluster.kill("droverd", node="node02", sig=signal.SIGSTOP)
    try:
        wait_until(lambda: cluster.node_states()["node02"].startswith("DOWN")
                   and job(cluster, j)["job_state"] == "PENDING", 30,
                   "node02 DOWN and the job requeued")
    finally:
        cluster.kill("droverd", node="node02", sig=signal.SIGCONT)
    # The new run writes "run 1"; with the old run's report applied to it,
    # the job ends (FAILED) instead.
    wait_until(lambda: "run 1" in out.read_text()
               or job(cluster, j)["job_state"] not in ("PENDING", "RUNNING"),
               30, "the new run's output")
    time.sleep(3)  # the old run's end reaches the controller meanwhile
    o = job(cluster, j)
    assert (o["job_state"], o["nodes"], o["restarts"]) == \
        ("RUNNING", "node02", 1), o
    assert o.get("run_id", 0) >= 2
    log = cluster.log_file("droverctld").read_text()
    assert "launch on node02 failed: Duplicate job id; requeued" in log
    # The run number is durable: a restarted controller still tells the
    # runs apart.
    run = o["run_id"]
    cluster.kill("droverctld")
    cluster.start("droverctld")
    o = job(cluster, j)
    assert (o["job_state"], o["run_id"]) == ("RUNNING", run), o
    cluster.run("scancel", j, check=True)
    assert cluster.wait_job_done(j) == "CANCELLED"


def test_hold_of_running_job_survives_requeue(cluster, test_users):
    """Slurm 22.05 accepts `scontrol hold` of a running job silently (exit
    0, slurm-golden scontrol-hold-running) and the job keeps running; the
    hold stays when the job is requeued.  `scontrol requeuehold` requeues
    and holds."""
    user = test_users[0]
    j = cluster.sbatch("-o", "/dev/null", "--wrap=sleep 300", user=user)
    cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    r = cluster.run("scontrol", "hold", j, user=user)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    time.sleep(1)
    assert job(cluster, j)["job_state"] == "RUNNING"
    r = cluster.run("scontrol", "requeue", j, user=user)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    wait_until(lambda: job(cluster, j)["job_state"] == "PENDING", 30,
               "the job requeued")
    time.sleep(2.5)  # scheduling passes: a held job must not start
    o = job(cluster, j)
    assert (o["job_state"], o["state_reason"], o["priority"]) == \
        ("PENDING", "JobHeldUser", 0), o
    r = cluster.run("squeue", "-h", "-j", j, "-o", "%t %r", user=user,
                    check=True)
    assert r.stdout == "PD JobHeldUser\n"
    cluster.run("scontrol", "release", j, user=user, check=True)
    cluster.wait_job_state(j, ["RUNNING"], timeout=30)

    r = cluster.run("scontrol", "requeuehold", j, user=user)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    wait_until(lambda: job(cluster, j)["job_state"] == "PENDING", 30,
               "the job requeued by requeuehold")
    time.sleep(2.5)
    o = job(cluster, j)
    assert (o["job_state"], o["state_reason"], o["priority"]) == \
        ("PENDING", "JobHeldUser", 0), o
    cluster.run("scancel", j, user=user, check=True)
