# SPDX-License-Identifier: Apache-2.0
"""Job steps as controller records (issue 4): squeue -s, scontrol show
step, scancel N.S, step usage (RSS, CPU time) and state after the job,
and steps surviving a controller restart."""
import os
import re
import signal
import time

STEPS_HEADER = ("         STEPID     NAME PARTITION     USER      TIME "
                "NODELIST")


def submit(cluster, tmp_path, script, *args):
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/bash\n" + script)
    return cluster.sbatch("-o", "out.txt", "-e", "err.txt", *args, str(path),
                          cwd=tmp_path)


def steps_of(cluster, job_id, all_states=True):
    """The controller's step records of one job, by step id."""
    resp = cluster.rpc("step_info", {"job_ids": [int(job_id)],
                                     "all_states": all_states})
    return {s["step_id"]: s for s in resp["steps"]}


def wait_step(cluster, job_id, step_id, states=("RUNNING",)):
    def found():
        s = steps_of(cluster, job_id).get(step_id)
        return s if s and s["state"] in states else None
    return cluster.wait_until(found, 30,
                              f"step {job_id}.{step_id} in {states}")


BATCH = 0xfffffffb


def test_steps_listed_shown_and_cancelled(cluster, tmp_path):
    job = submit(cluster, tmp_path,
                 "srun sleep 300\n"
                 "echo rc=$?\n"
                 "srun printenv SLURM_STEP_ID\n")
    wait_step(cluster, job, 0)

    r = cluster.run("squeue", "-s")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == STEPS_HEADER
    mine = [ln.split() for ln in lines[1:] if ln.split()[0].startswith(job)]
    assert [m[0] for m in mine] == [f"{job}.batch", f"{job}.0"], r.stdout
    assert mine[0][1] == "batch" and mine[1][1] == "sleep"
    assert mine[1][5] == "node01", r.stdout

    r = cluster.run("scontrol", "show", "step", f"{job}.0")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert text.startswith(f"StepId={job}.0 UserId=")
    assert "TimeLimit=UNLIMITED\n   State=RUNNING Partition=" in text
    assert " NodeList=node01\n   Nodes=1 CPUs=1 Tasks=1 Name=sleep " \
           "Network=(null)\n" in text
    # one task on one node: srun's default is cyclic (Slurm's launch code:
    # cyclic when no node gets two tasks)
    assert "\n   CPUFreqReq=Default Dist=Cyclic\n   SrunHost:Pid=" in text
    assert text.endswith("\n\n")

    r = cluster.run("scontrol", "show", "step", f"{job}.7")
    assert (r.returncode, r.stdout) == (1, f"Job step {job}.7 not found\n")

    r = cluster.run("scontrol", "show", "steps", job)
    assert re.findall(r"^StepId=(\S+)", r.stdout, re.M) == \
        [f"{job}.batch", f"{job}.0"]
    assert f"StepId={job}.batch" in r.stdout and "CPUs=0 Tasks=1 Name=batch" \
        in r.stdout and "SrunHost:Pid=(null):0" in r.stdout

    r = cluster.run("scancel", f"{job}.0")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    cluster.wait_job_state(job, "COMPLETED", timeout=60)
    out = (tmp_path / "out.txt").read_text()
    err = (tmp_path / "err.txt").read_text()
    rc = re.search(r"rc=(\d+)", out)
    assert rc and int(rc.group(1)) != 0, (out, err)
    assert out.endswith("1\n"), out  # the job went on to step 1
    assert re.search(rf"slurmstepd: error: \*\*\* STEP {job}\.0 ON node01 "
                     r"CANCELLED AT \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \*\*\*",
                     err), err
    assert "srun: error: node01: task 0: Killed" in err, err

    steps = steps_of(cluster, job)
    assert steps[0]["state"] == "CANCELLED"
    assert steps[0]["exit_status"] == signal.SIGKILL
    assert steps[0]["end_time"] >= steps[0]["start_time"] > 0
    assert steps[1]["state"] == "COMPLETED" and steps[1]["name"] == "printenv"
    assert steps[BATCH]["state"] == "COMPLETED"
    assert steps[BATCH]["exit_status"] == 0
    # Finished steps leave the listings.
    assert steps_of(cluster, job, all_states=False) == {}
    r = cluster.run("scancel", f"{job}.0")
    assert r.returncode == 0, r.stderr


def test_step_usage_is_measured(cluster, tmp_path):
    job = submit(cluster, tmp_path,
                 "srun python3 -c 'import time; b = b\"x\" * (200 << 20); "
                 "time.sleep(0.5)'\n"
                 "srun python3 -c 'import time\n"
                 "t = time.process_time()\n"
                 "while time.process_time() - t < 0.3: pass'\n"
                 "srun bash -c 'exit 3'\n"
                 "true\n")
    cluster.wait_job_state(job, "COMPLETED", timeout=60)
    steps = cluster.wait_until(
        lambda: (lambda s: s if all(x["state"] != "RUNNING"
                                    for x in s.values()) else None)(
            steps_of(cluster, job)), 20, "steps to end")
    big = steps[0]
    assert big["state"] == "COMPLETED" and big["name"] == "python3"
    assert big["max_rss_kib"] >= 150000, big
    assert big["max_rss_node"] == "node01" and big["max_rss_task"] == 0
    assert (big["nnodes"], big["ntasks"], big["nodes"]) == (1, 1, "node01")
    assert steps[1]["user_cpu_us"] > 0, steps[1]
    assert steps[1]["user_cpu_us"] + steps[1]["sys_cpu_us"] >= 200000
    assert steps[2]["state"] == "FAILED" and steps[2]["exit_status"] == 3 << 8
    batch = steps[BATCH]
    assert batch["state"] == "COMPLETED" and batch["name"] == "batch"
    assert batch["max_rss_kib"] > 0 and batch["nodes"] == "node01"
    # The job record carries them too (journal and job_info share it).
    rec = cluster.rpc("job_info", {"job_ids": [int(job)],
                                   "all_states": True})["jobs"][0]
    assert [s["step_id"] for s in rec["steps"]] == [BATCH, 0, 1, 2]


def test_cancelled_job_ends_its_batch_step_by_sigterm(cluster, tmp_path):
    job = submit(cluster, tmp_path, "srun sleep 300\n")
    wait_step(cluster, job, 0)
    assert cluster.run("scancel", job).returncode == 0
    cluster.wait_job_state(job, "CANCELLED", timeout=60)
    steps = steps_of(cluster, job)
    assert steps[BATCH]["state"] == "CANCELLED"
    assert steps[BATCH]["exit_status"] == signal.SIGTERM
    assert steps[0]["state"] == "CANCELLED"


def test_step_survives_controller_restart(cluster, tmp_path):
    job = submit(cluster, tmp_path,
                 "srun bash -c 'echo started; sleep 6'\necho done\n")
    # The task's output through srun: srun has its step (the step record
    # exists a moment before srun is told, and a controller killed in
    # between fails srun's step_create, as Slurm's).
    cluster.wait_until(lambda: (tmp_path / "out.txt").exists()
                       and "started" in (tmp_path / "out.txt").read_text(),
                       timeout=30, what="the task's output")
    cluster.kill("droverctld", signal.SIGKILL)
    cluster.start("droverctld")
    step = steps_of(cluster, job)[0]
    assert step["state"] == "RUNNING" and step["name"] == "bash"
    r = cluster.run("squeue", "-s", "-h")
    assert f"{job}.0" in r.stdout.split(), r.stdout
    cluster.wait_job_state(job, "COMPLETED", timeout=60)
    step = wait_step(cluster, job, 0, states=("COMPLETED",))
    assert step["exit_status"] == 0 and step["end_time"] > 0
    assert (tmp_path / "out.txt").read_text() == "started\ndone\n"


def test_bad_step_requests_are_refused(cluster):
    r = cluster.run("scontrol", "show", "step")
    assert (r.returncode, r.stdout) == (0, "No job steps in the system\n")
    r = cluster.run("scancel", "12345.x")
    assert r.returncode == 1 and "Invalid job id 12345.x" in r.stderr
    r = cluster.run("scancel", "12345.0")
    assert r.returncode != 0
    assert "Kill job error on job step id 12345.0: Invalid job id " \
           "specified" in r.stderr


def test_two_node_step_and_node_failure(cluster, tmp_path):
    job = submit(cluster, tmp_path, "srun -N2 -n2 true\nsrun -N2 sleep 300\n",
                 "-N2", "--no-requeue")
    step = wait_step(cluster, job, 1)
    assert (step["nodes"], step["nnodes"], step["ntasks"]) == \
        ("node[01-02]", 2, 2)
    done = wait_step(cluster, job, 0, states=("COMPLETED",))
    assert done["nodes"] == "node[01-02]" and done["exit_status"] == 0

    # The batch host's daemon dies with the job's processes; when it comes
    # back without them, the job and its steps end as node failures.
    time.sleep(5)  # the controller ignores jobs younger than 5 s
    cluster.kill("droverd", signal.SIGKILL, node="node01")
    cluster.kill_stepds("node01")
    for pid in cluster.job_pids(job):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    cluster.start("droverd node01")
    cluster.wait_job_state(job, ["NODE_FAIL"], timeout=30)
    steps = steps_of(cluster, job)
    assert steps[1]["state"] == "NODE_FAIL", steps[1]
    assert steps[BATCH]["state"] == "NODE_FAIL"
    assert steps[0]["state"] == "COMPLETED"


def node_pids(cluster, job_id, node):
    """Pids of job 'job_id's step tasks that run on 'node'."""
    want = f"SLURMD_NODENAME={node}".encode()
    pids = []
    for pid in cluster.job_pids(job_id, steps_only=True):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if want in f.read().split(b"\0"):
                    pids.append(pid)
        except OSError:
            pass
    return pids


def test_step_lost_on_a_restarted_node_ends_node_fail(cluster, tmp_path):
    job = submit(cluster, tmp_path,
                 "srun -N2 -n2 sleep 300\necho rc=$?\nsleep 300\n", "-N2")
    wait_step(cluster, job, 0)
    time.sleep(5)  # the controller ignores steps younger than 5 s
    cluster.kill("droverd", signal.SIGKILL, node="node02")
    cluster.kill_stepds("node02")
    for pid in node_pids(cluster, job, "node02"):
        os.kill(pid, signal.SIGKILL)
    cluster.start("droverd node02")
    step = wait_step(cluster, job, 0, states=("NODE_FAIL",))
    assert step["end_time"] > 0
    # The other node's task is killed, srun returns, the job goes on.
    cluster.wait_until(lambda: "rc=" in (tmp_path / "out.txt").read_text(),
                       30, "srun to return")
    assert cluster.job_state(job) == "RUNNING"
    assert node_pids(cluster, job, "node01") == []
    assert cluster.run("scancel", job).returncode == 0
