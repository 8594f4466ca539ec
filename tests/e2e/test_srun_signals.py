# SPDX-License-Identifier: Apache-2.0
"""srun and signals (issue 4): tasks killed by a signal reported as Slurm
does, --kill-on-bad-exit, Ctrl-C once and twice, signals forwarded to the
tasks, srun killed with SIGKILL (the node daemons kill its tasks), a node
daemon dying mid-step (NODE_FAIL, srun names the node)."""
import os
import re
import signal
import subprocess
import time

import pytest

from cluster import run_job

CANCELLED_LINE = re.compile(
    r"^slurmstepd: error: \*\*\* STEP (\d+)\.(\d+) ON (\S+) CANCELLED AT "
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \*\*\*$")


def start(cluster, *args):
    return subprocess.Popen(list(args), env=cluster.env, cwd=cluster.workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)


def running_job(cluster):
    r = cluster.run("squeue", "-h", "-t", "R", "-o", "%i", check=True)
    ids = r.stdout.split()
    return ids[0] if ids else None


def wait_tasks(cluster, n):
    """The job id of the one running job once 'n' step tasks run."""
    job = cluster.wait_until(lambda: running_job(cluster), timeout=15,
                             what="the allocation")
    cluster.wait_until(
        lambda: len(cluster.job_pids(job, steps_only=True)) >= n,
        timeout=15, what=f"{n} step tasks")
    return job


def step_state(cluster, job, step=0):
    resp = cluster.rpc("step_info", {"job_ids": [int(job)],
                                     "all_states": True})
    for s in resp["steps"]:
        if s["step_id"] == step:
            return s["state"]
    return None


def test_tasks_killed_by_signals_are_named(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "srun -n2 bash -c 'kill -9 $$'; echo rc=$?\n"
        "srun -n1 bash -c 'ulimit -c 0; kill -SEGV $$'; echo rc=$?\n"
        "srun -n2 bash -c '[ $SLURM_PROCID = 1 ] && kill -TERM $$; exit 0'; "
        "echo rc=$?\n", "-n2")
    assert out == "rc=137\nrc=139\nrc=143\n", err
    assert err == ("srun: error: node01: tasks 0-1: Killed\n"
                   "srun: error: node01: task 0: Segmentation fault\n"
                   "srun: error: node01: task 1: Terminated\n")


def test_kill_on_bad_exit_kills_the_other_tasks(cluster, tmp_path):
    job, out, err = run_job(
        cluster, tmp_path,
        "srun -K -n2 bash -c '[ $SLURM_PROCID = 1 ] && exit 3; sleep 60'; "
        "echo rc=$?\n", "-n2")
    assert out == "rc=3\n", err
    lines = err.splitlines()
    assert lines[:2] == ["srun: error: node01: task 1: Exited with exit code 3",
                         f"srun: Terminating StepId={job}.0"], err
    assert CANCELLED_LINE.match(lines[2]), err
    assert lines[3:] == ["srun: error: node01: task 0: Killed"], err
    assert step_state(cluster, job) == "CANCELLED"


def test_ctrl_c_once_shows_states_twice_aborts(cluster):
    p = start(cluster, "srun", "-n2", "sleep", "60")
    try:
        job = wait_tasks(cluster, 2)
        os.kill(p.pid, signal.SIGINT)
        time.sleep(1.5)
        os.kill(p.pid, signal.SIGINT)
        time.sleep(0.2)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
    lines = [ln for ln in err.splitlines() if not CANCELLED_LINE.match(ln)]
    state = [f"srun: interrupt (one more within 1 sec to abort)",
             f"srun: StepId={job}.0 tasks 0-1: running"]
    assert lines == state + state + [
        f"srun: sending Ctrl-C to StepId={job}.0",
        "srun: forcing job termination",
        "srun: Job step aborted: Waiting up to 7 seconds for job step to "
        "finish."], err
    assert p.returncode in (128 + signal.SIGINT, 128 + signal.SIGKILL)
    cluster.wait_until(lambda: cluster.job_pids(job) == [], timeout=15,
                       what="no task left")
    assert step_state(cluster, job) == "CANCELLED"


def test_sigusr1_is_forwarded_to_the_tasks(cluster):
    p = start(cluster, "srun", "-n2", "bash", "-c",
              "trap 'echo usr1-$SLURM_PROCID; exit 0' USR1; "
              "sleep 60 & wait")
    try:
        wait_tasks(cluster, 2)
        time.sleep(0.5)  # the traps are set
        os.kill(p.pid, signal.SIGUSR1)
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
    assert sorted(out.split()) == ["usr1-0", "usr1-1"], err
    assert (p.returncode, err) == (0, "")


def test_sigterm_inside_a_job_ends_the_step(cluster, tmp_path):
    job = cluster.sbatch("-n1", "-o", "out.txt", "-e", "err.txt", "--wrap",
                         "srun sleep 60 & echo $! > srun.pid; wait; "
                         "echo rc=$?", cwd=tmp_path)
    pidfile = tmp_path / "srun.pid"
    cluster.wait_until(lambda: pidfile.exists() and pidfile.read_text()
                       and cluster.job_pids(job, steps_only=True),
                       timeout=20, what="the step's task")
    os.kill(int(pidfile.read_text()), signal.SIGTERM)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)
    err = (tmp_path / "err.txt").read_text()
    lines = [ln for ln in err.splitlines() if not CANCELLED_LINE.match(ln)]
    assert lines == [
        "srun: forcing job termination",
        "srun: Job step aborted: Waiting up to 7 seconds for job step to "
        "finish."], err
    assert step_state(cluster, job) == "CANCELLED"


def test_srun_killed_its_tasks_are_cleaned_up_on_every_node(cluster):
    p = start(cluster, "srun", "-N2", "sleep", "300")
    try:
        job = wait_tasks(cluster, 2)
        p.kill()
        p.wait(timeout=10)
        timeout = int(cluster.conf_value("MessageTimeout") or 10)
        cluster.wait_until(
            lambda: cluster.job_pids(job, steps_only=True) == [],
            timeout=timeout, what="the step's tasks killed on both nodes")
        cluster.wait_until(lambda: step_state(cluster, job) == "CANCELLED",
                           timeout=10, what="step CANCELLED")
    finally:
        p.kill()
        cluster.run("scancel", job)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_node_dying_mid_step_is_node_fail(cluster):
    p = start(cluster, "srun", "-N2", "sleep", "300")
    job = None
    try:
        job = wait_tasks(cluster, 2)
        cluster.kill("node02")
        cluster.kill_stepds("node02")
        out, err = p.communicate(timeout=30)
        assert err.splitlines()[:2] == [
            "srun: error: Node failure on node02",
            "srun: Job step aborted: Waiting up to 7 seconds for job step "
            "to finish."], err
        assert p.returncode != 0
        assert step_state(cluster, job) == "NODE_FAIL"
    finally:
        p.kill()
        # node02's droverd is gone: its orphaned task is ours to end
        for pid in cluster.job_pids(job) if job else []:
            os.kill(pid, signal.SIGKILL)
