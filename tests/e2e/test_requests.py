# SPDX-License-Identifier: Apache-2.0
"""Requests, limits and placement: -w/-x/-C with node features, --begin,
partition MaxTime/MaxNodes, --test-only, --open-mode, bad input."""
import os
import pwd
import re
import signal
import time

import pytest

from cluster import wait_until


def job(cluster, job_id):
    """The controller's job object (wire protocol, not a command's text)."""
    jobs = cluster.rpc("job_info", {"job_ids": [int(job_id)],
                                    "all_states": True})["jobs"]
    assert jobs, f"no job {job_id}"
    return jobs[0]


def wait_reason(cluster, job_id, reason, timeout=15):
    return wait_until(lambda: job(cluster, job_id)["state_reason"] == reason,
                      timeout, f"job {job_id} to pend for {reason}")


def set_features(cluster, features):
    """Give node N (1-based) the Feature= list features[N-1]."""
    cluster.set_node_keys([f"Feature={f}" if f else "" for f in features])


def test_nodelist_exclude_and_constraint_place_jobs(cluster):
    set_features(cluster, ["a100,nvlink", "a100", "h100", "v100"])
    a = cluster.sbatch("-C", "a100&nvlink", "--wrap=sleep 30")
    b = cluster.sbatch("-C", "h100|v100", "-N2", "--wrap=sleep 30")
    c = cluster.sbatch("-w", "node02,node04", "--wrap=sleep 30")
    d = cluster.sbatch("-x", "node[01-03]", "-c", "2", "--wrap=sleep 30")
    e = cluster.sbatch("-C", "a100", "-N", "2", "--wrap=sleep 30")
    for j in (a, b, c, d, e):
        cluster.wait_job_state(j, ["RUNNING"], timeout=20)
    assert job(cluster, a)["nodes"] == "node01"
    assert job(cluster, b)["nodes"] == "node[03-04]"
    assert job(cluster, c)["nodes"] == "node[02,04]"
    assert job(cluster, d)["nodes"] == "node04"
    assert job(cluster, e)["nodes"] == "node[01-02]"
    assert job(cluster, a)["features"] == "a100&nvlink"
    assert job(cluster, c)["req_nodes"] == "node02,node04"

    r = cluster.run("sbatch", "-C", "gpu9000", "--wrap=true")
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Invalid feature specification\n")
    r = cluster.run("sbatch", "-C", "a100&", "--wrap=true")
    assert r.returncode == 1 and "Invalid feature specification" in r.stderr
    r = cluster.run("sbatch", "-w", "node99", "--wrap=true")
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Invalid node name specified\n")
    r = cluster.run("sbatch", "-C", "h100", "-N", "2", "--wrap=true")
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Requested node configuration is not available\n")


def test_required_node_drained_pends_req_node_not_avail(cluster):
    cluster.run("scontrol", "update", "NodeName=node03", "State=DRAIN",
                "Reason=test", check=True)
    j = cluster.sbatch("-w", "node03", "--wrap=true")
    wait_reason(cluster, j, "ReqNodeNotAvail")
    assert job(cluster, j)["job_state"] == "PENDING"
    cluster.run("scontrol", "update", "NodeName=node03", "State=RESUME",
                check=True)
    cluster.wait_job_state(j, ["COMPLETED"], timeout=20)
    assert job(cluster, j)["nodes"] == "node03"


def test_begin_time_holds_job_until_then(cluster):
    j = cluster.sbatch("--begin=now+4", "--wrap=true")
    o = job(cluster, j)
    assert o["state_reason"] == "BeginTime"
    assert o["eligible_time"] >= o["submit_time"] + 3
    assert o["begin_time"] == o["eligible_time"]
    cluster.wait_job_state(j, ["COMPLETED"], timeout=20)
    assert job(cluster, j)["start_time"] >= o["eligible_time"]
    later = cluster.sbatch("--begin=2099-01-01T10:00:00", "--wrap=true")
    assert job(cluster, later)["state_reason"] == "BeginTime"
    for bad, pos in (("yesterdayish", 0), ("25:00", 0), ("now+3parsecs", 3)):
        r = cluster.run("sbatch", f"--begin={bad}", "--wrap=true")
        assert r.returncode == 255, bad
        assert r.stderr == (f"Invalid time specification (pos={pos}): {bad}\n"
                            "sbatch: error: Invalid --begin specification\n")


def test_partition_limits_make_jobs_pend(cluster_root):
    from cluster import Cluster
    c = Cluster(cluster_root, nodes=3, gpus_per_node=0,
                up_args=["--conf-extra=PartitionName=debug Nodes=ALL "
                         "Default=YES MaxTime=10:00 MaxNodes=2 State=UP"])
    try:
        c.up()
        t = c.sbatch("-t", "20:00", "--wrap=true")
        n = c.sbatch("-N", "3", "--wrap=true")
        ok = c.sbatch("-t", "5:00", "-N", "2", "--wrap=true")
        c.wait_job_state(ok, ["COMPLETED"], timeout=20)
        assert job(c, t)["state_reason"] == "PartitionTimeLimit"
        assert job(c, n)["state_reason"] == "PartitionNodeLimit"
        assert job(c, t)["job_state"] == "PENDING"
    finally:
        c.down()


def test_test_only_plans_without_queueing(cluster):
    r = cluster.run("sbatch", "--test-only", "-N1", "--wrap=true", check=True)
    assert r.stdout == ""
    m = re.fullmatch(r"sbatch: Job (\d+) to start at "
                     r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) using 1 processors on "
                     r"nodes node01 in partition debug\n", r.stderr)
    assert m, r.stderr
    assert cluster.rpc("job_info", {"all_states": True})["jobs"] == []
    first = cluster.sbatch("--wrap=true")
    assert first == m.group(1)   # the id --test-only showed was not used up
    # Busy cluster: the planned start is when the running job ends.
    big = cluster.sbatch("--exclusive", "-N4", "-t", "2:00", "--wrap=sleep 60")
    cluster.wait_job_state(big, ["RUNNING"], timeout=20)
    r = cluster.run("sbatch", "--test-only", "-n", "4", "--wrap=true",
                    check=True)
    m = re.search(r"to start at (\S+) using 4 processors on nodes node01 ",
                  r.stderr)
    assert m, r.stderr
    start = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
    assert start >= job(cluster, big)["start_time"] + 110
    r = cluster.run("sbatch", "--test-only", "-N", "9", "--wrap=true")
    assert r.returncode == 1
    assert "Requested node configuration is not available" in r.stderr


def test_open_mode_append_and_signal_option(cluster, tmp_path):
    tmp_path.chmod(0o777)
    out = tmp_path / "out.log"
    out.write_text("before\n")
    j = cluster.sbatch("--open-mode=append", "-o", str(out),
                       "--wrap=echo after")
    cluster.wait_job_state(j, ["COMPLETED"], timeout=20)
    assert out.read_text() == "before\nafter\n"
    j = cluster.sbatch("-o", str(out), "--wrap=echo only")
    cluster.wait_job_state(j, ["COMPLETED"], timeout=20)
    assert out.read_text() == "only\n"
    j = cluster.sbatch("--signal=B:USR1@30", "--time-min=5", "-H",
                       "--wrap=true")
    o = job(cluster, j)
    assert (o["signal_num"], o["signal_secs"], o["signal_batch_only"]) == (10, 30, True)
    assert o["time_min_s"] == 300
    for bad, text in (("--signal=FOO@5", "Invalid --signal specification"),
                      ("--time-min=xx", "Invalid --time-min specification")):
        r = cluster.run("sbatch", bad, "--wrap=true")
        assert (r.returncode, r.stderr) == (255, f"sbatch: error: {text}\n"), bad


SIGNAL_SCRIPT = """#!/bin/bash
trap 'echo "got USR1 at $SECONDS"' USR1
for i in $(seq 1 200); do sleep 0.1; done
echo "never reached"
"""


def test_signal_is_sent_before_the_time_limit(cluster):
    # -t 0:05 is MM:SS, five seconds; USR1 comes two seconds before.
    for opt in ("--signal=USR1@2", "--signal=B:USR1@2"):
        j = cluster.sbatch(opt, "-t", "0:05", "-o", f"sig-{opt[9]}.out",
                           input=SIGNAL_SCRIPT)
        cluster.wait_job_state(j, ["TIMEOUT"], timeout=30)
        out = (cluster.workdir / f"sig-{opt[9]}.out").read_text()
        m = re.search(r"^got USR1 at (\d+)$", out, re.M)
        assert m, (opt, out)
        # Printed at all means it came before SIGTERM ended the script at
        # the limit; not at once means it waited for limit - 2 s.
        assert int(m.group(1)) >= 1, (opt, out)
        assert "never reached" not in out


def test_gpu_options_size_cpus_memory_and_gpus(cluster):
    a = cluster.sbatch("-N1", "-n2", "--gpus-per-task=2", "-o", "gpt.out",
                       "--wrap=echo CVD=$CUDA_VISIBLE_DEVICES "
                       "GPT=$SLURM_GPUS_PER_TASK")
    b = cluster.sbatch("--gpus-per-node=2", "--cpus-per-gpu=3", "-o", "cpg.out",
                       "--wrap=echo CPUS=$SLURM_CPUS_ON_NODE; sleep 30")
    c = cluster.sbatch("--gpus=2", "--mem-per-gpu=1G", "-o", "mpg.out",
                       "--wrap=echo MEM=$SLURM_MEM_PER_GPU; sleep 30")
    cluster.wait_job_state(a, ["COMPLETED"], timeout=30)
    out = (cluster.workdir / "gpt.out").read_text()
    assert re.fullmatch(r"CVD=\d,\d,\d,\d GPT=2\n", out), out
    cluster.wait_job_state(b, ["RUNNING"], timeout=30)
    assert cluster.job_field(b, "NumCPUs") == "6"
    o = job(cluster, b)
    assert (o["cpus_per_gpu"], o["alloc"][0]["cpus"]) == (3, 6)
    cluster.wait_job_state(c, ["RUNNING"], timeout=30)
    o = job(cluster, c)
    assert o["mem_per_gpu_mib"] == 1024
    assert sum(a["mem_mib"] for a in o["alloc"]) == 2048
    for name, text in (("mpg.out", "MEM=1024\n"), ("cpg.out", "CPUS=6\n")):
        path = cluster.workdir / name
        wait_until(lambda: path.exists() and path.read_text(), 10, name)
        assert path.read_text() == text
    r = cluster.run("sbatch", "-n1", "--gpus-per-task=x", "--wrap=true")
    assert (r.returncode, r.stderr) == (
        255, "sbatch: error: Invalid --gpus-per-task specification\n")
    r = cluster.run("sbatch", "-n1", "--gpus-per-task=9", "--wrap=true")
    assert r.returncode == 1
    assert "Requested node configuration is not available" in r.stderr


def test_root_submits_as_another_user_with_uid(cluster, make_user):
    user = make_user("druid1")
    pw = pwd.getpwnam(user)
    work = cluster.user_workdir(user)
    j = cluster.sbatch("--uid", user, "-D", str(work),
                       "--wrap=echo $(id -un) $(id -u) $(id -g)")
    cluster.wait_job_state(j, ["COMPLETED"], timeout=30)
    assert (work / f"slurm-{j}.out").read_text() == \
        f"{user} {pw.pw_uid} {pw.pw_gid}\n"
    o = job(cluster, j)
    assert (o["user_id"], o["user_name"]) == (pw.pw_uid, user)
    j = cluster.sbatch(f"--uid={pw.pw_uid}", "--gid=0", "-D", str(work),
                       "-o", "gid.out", "--wrap=id -g")
    cluster.wait_job_state(j, ["COMPLETED"], timeout=30)
    assert (work / "gid.out").read_text() == "0\n"
    r = cluster.run("sbatch", "--uid=root", "--wrap=true", user=user)
    assert (r.returncode, r.stderr) == (
        255, "sbatch: error: --uid only permitted by root user\n")
    r = cluster.run("sbatch", "--gid=0", "--wrap=true", user=user)
    assert (r.returncode, r.stderr) == (
        255, "sbatch: error: --gid only permitted by root user\n")
    r = cluster.run("sbatch", "--uid=nosuchuser9", "--wrap=true")
    assert (r.returncode, r.stderr) == (
        255, "sbatch: error: Invalid --uid specification\n")


def test_no_requeue_refuses_requeue_and_fails_on_node_loss(cluster):
    nr = cluster.sbatch("--no-requeue", "-w", "node01", "--wrap=sleep 300")
    rq = cluster.sbatch("--requeue", "-w", "node01", "--wrap=sleep 300")
    for j in (nr, rq):
        cluster.wait_job_state(j, ["RUNNING"], timeout=20)
    assert job(cluster, nr)["requeue"] is False
    assert job(cluster, rq)["requeue"] is True
    r = cluster.run("scontrol", "requeue", nr)
    assert (r.returncode, r.stderr) == (
        1, f"Requested operation is presently disabled for job {nr}\n")
    assert job(cluster, nr)["job_state"] == "RUNNING"

    # The node daemon dies and its jobs with it (their step daemons too:
    # a droverd restart alone no longer loses a job); when it comes back
    # without them, the controller ends them as node failures.
    time.sleep(5)  # the controller ignores jobs younger than 5 s
    cluster.kill("droverd", signal.SIGKILL, node="node01")
    cluster.kill_stepds("node01", signal.SIGKILL)
    for pid in cluster.job_pids(nr) + cluster.job_pids(rq):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    cluster.start("droverd node01")
    cluster.wait_job_state(nr, ["NODE_FAIL"], timeout=30)
    wait_until(lambda: job(cluster, rq)["restarts"] == 1, 30,
               f"job {rq} to be requeued")
    assert job(cluster, rq)["job_state"] in ("PENDING", "RUNNING")


ENV_SCRIPT = """#!/bin/bash
echo "SUBMIT=${DROVER_SUBMIT_VAR-unset}"
echo "EXTRA=${DROVER_EXTRA-unset}"
echo "LOGIN=${DROVER_LOGIN_VAR-unset}"
echo "JOBID=${SLURM_JOB_ID-unset}"
echo "HOME=${HOME-unset}"
echo "PWD=$(pwd)"
echo "SUBMIT_DIR=${SLURM_SUBMIT_DIR-unset}"
"""


def env_lines(path):
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_export_get_user_env_and_chdir_in_real_jobs(cluster, make_user):
    user = make_user("druenv1")
    pw = pwd.getpwnam(user)
    profile = os.path.join(pw.pw_dir, ".bash_profile")
    with open(profile, "w") as f:
        f.write("echo noise from the profile\nexport DROVER_LOGIN_VAR=login\n")
    os.chown(profile, pw.pw_uid, pw.pw_gid)
    work = cluster.user_workdir(user)
    sub = work / "sub"
    sub.mkdir(exist_ok=True)
    os.chown(sub, pw.pw_uid, pw.pw_gid)
    env = {"DROVER_SUBMIT_VAR": "submitted"}

    def run(name, *opts, cwd=work):
        j = cluster.run("sbatch", "--parsable", "-o", f"{work}/{name}.out",
                        *opts, user=user, env=env, input=ENV_SCRIPT,
                        check=True, cwd=cwd).stdout.strip()
        cluster.wait_job_state(j, ["COMPLETED"], timeout=30)
        return env_lines(work / f"{name}.out")

    out = run("all")
    assert (out["SUBMIT"], out["LOGIN"], out["PWD"]) == \
        ("submitted", "unset", str(work))
    out = run("list", "--export=DROVER_EXTRA=x,DROVER_SUBMIT_VAR")
    assert (out["SUBMIT"], out["EXTRA"], out["LOGIN"]) == \
        ("submitted", "x", "unset")
    assert out["JOBID"] != "unset"
    out = run("none", "--export=NONE")
    assert (out["SUBMIT"], out["LOGIN"], out["HOME"]) == \
        ("unset", "login", pw.pw_dir)
    assert out["JOBID"] != "unset"
    out = run("gue", "--get-user-env")
    assert (out["SUBMIT"], out["LOGIN"]) == ("submitted", "login")
    out = run("chdir", "-D", "sub")
    assert (out["PWD"], out["SUBMIT_DIR"]) == (str(sub), str(work))
    out = run("chdir_abs", f"--chdir={sub}", cwd=sub)
    assert out["PWD"] == str(sub)


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": ["--cpus-per-node=4"]}],
                         indirect=True)
def test_mincpus_gives_each_node_at_least_that_many_cpus(cluster):
    """--mincpus=N (Slurm's pn_min_cpus): the job holds at least N CPUs
    on each of its nodes, waits for a node with that many free, and a
    node that could never give them refuses it."""
    a = cluster.sbatch("-n1", "--mincpus=3", "-o", "min.out",
                       "--wrap=echo CPUS=$SLURM_CPUS_ON_NODE; sleep 30")
    cluster.wait_job_state(a, ["RUNNING"], timeout=30)
    assert cluster.job_field(a, "NumCPUs") == "3"
    assert cluster.job_field(a, "MinCPUsNode") == "3"
    assert job(cluster, a)["alloc"][0]["cpus"] == 3
    b = cluster.sbatch("-n1", "--mincpus=2", "-o", "/dev/null", "--wrap=true")
    wait_reason(cluster, b, "Resources")
    c = cluster.sbatch("-n1", "-o", "/dev/null", "--wrap=true")
    cluster.wait_job_state(c, ["COMPLETED"], timeout=30)
    path = cluster.workdir / "min.out"
    wait_until(lambda: path.exists() and path.read_text(), 10, "min.out")
    assert path.read_text() == "CPUS=3\n"
    r = cluster.run("sbatch", "-n1", "--mincpus=5", "--wrap=true")
    assert r.returncode == 1
    assert "Requested node configuration is not available" in r.stderr
    r = cluster.run("sbatch", "-n1", "--mincpus=x", "--wrap=true")
    assert (r.returncode, r.stderr) == (
        1, 'sbatch: error: Invalid numeric value "x" for --mincpus.\n')
    cluster.run("scancel", a, check=True)
    cluster.wait_job_state(b, ["COMPLETED"], timeout=30)
