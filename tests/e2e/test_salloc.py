# SPDX-License-Identifier: Apache-2.0
"""Interactive allocations (issue 4): salloc, srun outside a job (the same
allocation code), --immediate, cancellation, time limits, srun --pty."""
import os
import shutil
import re
import signal
import subprocess
import time

import pytest

from cluster import REPO, require

GRANTED = re.compile(r"^salloc: Granted job allocation (\d+)$", re.M)


def start(cluster, *args):
    """Start a command of the cluster in the background (its own session)."""
    return subprocess.Popen(list(args), env=cluster.env, cwd=cluster.workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)


def job_ids(cluster, state):
    r = cluster.run("squeue", "-h", "-t", state, "-o", "%i", check=True)
    return r.stdout.split()


def test_salloc_runs_srun_on_two_nodes_and_completes(cluster):
    r = cluster.run("salloc", "-N2", "srun", "hostname")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 2
    job = GRANTED.search(r.stderr).group(1)
    assert r.stderr == (f"salloc: Granted job allocation {job}\n"
                        f"salloc: Relinquishing job allocation {job}\n")
    assert cluster.wait_job_state(job, "COMPLETED", timeout=10)
    assert cluster.job_field(job, "BatchFlag") == "0"


def test_salloc_job_is_running_while_its_command_runs(cluster):
    r = cluster.run("salloc", "-N1", "-n2", "bash", "-c",
                    "squeue -h -j $SLURM_JOB_ID -o %T; echo $SLURM_NTASKS "
                    "$SLURM_NNODES $SLURM_JOB_NODELIST $SLURM_JOBID")
    assert r.returncode == 0, r.stderr
    job = GRANTED.search(r.stderr).group(1)
    assert r.stdout == f"RUNNING\n2 1 node01 {job}\n"


def test_salloc_exits_with_the_command_status_and_the_job_fails(cluster):
    r = cluster.run("salloc", "-N1", "bash", "-c", "exit 3")
    assert r.returncode == 3
    job = GRANTED.search(r.stderr).group(1)
    assert cluster.wait_job_state(job, "FAILED", timeout=10)
    assert cluster.job_field(job, "ExitCode") == "3:0"


def test_salloc_too_big_is_refused(cluster):
    r = cluster.run("salloc", "--gres=gpu:99", "true")
    assert r.returncode == 1
    assert r.stderr == ("salloc: error: Job submit/allocate failed: Requested "
                        "node configuration is not available\n")


def test_salloc_bad_partition(cluster):
    r = cluster.run("salloc", "-p", "nosuch", "true")
    assert r.returncode == 1
    assert r.stderr == ("salloc: error: invalid partition specified: nosuch\n"
                        "salloc: error: Job submit/allocate failed: Invalid "
                        "partition name specified\n")


def test_salloc_version_and_help(cluster):
    r = cluster.run("salloc", "--version")
    assert r.returncode == 0 and r.stdout.startswith("slurm 22.05.8\n")
    r = cluster.run("salloc", "--help")
    assert r.returncode == 0
    golden = (REPO / "tests/unit/data/slurm-golden/help-salloc.stdout")
    assert r.stdout == golden.read_text()  # Slurm 22.05.8's, byte for byte


def test_salloc_waits_then_is_granted(cluster):
    hold = start(cluster, "salloc", "-N4", "--exclusive", "sleep", "4")
    try:
        cluster.wait_until(lambda: job_ids(cluster, "R"), timeout=15,
                           what="the first allocation")
        r = cluster.run("salloc", "-N4", "--exclusive", "true", timeout=60)
    finally:
        hold.wait(timeout=60)
    assert r.returncode == 0, r.stderr
    job = GRANTED.search(r.stderr).group(1)
    assert r.stderr == (f"salloc: Pending job allocation {job}\n"
                        f"salloc: job {job} queued and waiting for resources\n"
                        f"salloc: job {job} has been allocated resources\n"
                        f"salloc: Granted job allocation {job}\n"
                        f"salloc: Relinquishing job allocation {job}\n")


def test_salloc_time_limit_revokes_and_terminates(cluster):
    t0 = time.time()
    r = cluster.run("salloc", "-t", "0:02", "sleep", "60", timeout=60)
    assert time.time() - t0 < 30
    job = GRANTED.search(r.stderr).group(1)
    assert r.returncode == 128 + signal.SIGTERM
    assert r.stderr.endswith(f"salloc: Job {job} has exceeded its time limit "
                             "and its allocation has been revoked.\n")
    assert cluster.job_state(job) == "TIMEOUT"


def test_scancel_revokes_a_running_salloc(cluster):
    p = start(cluster, "salloc", "-N2", "srun", "sleep", "60")
    cluster.wait_until(lambda: job_ids(cluster, "R"), timeout=15,
                       what="the allocation")
    job = job_ids(cluster, "R")[0]
    cluster.wait_until(lambda: len(cluster.job_pids(job, steps_only=True)) == 2,
                       timeout=15, what="the step's two tasks")
    cluster.run("scancel", job, check=True)
    out, err = p.communicate(timeout=30)
    assert f"salloc: Job allocation {job} has been revoked.\n" in err
    assert cluster.job_state(job) == "CANCELLED"
    cluster.wait_until(lambda: cluster.job_pids(job) == [], timeout=15,
                       what="no task left")


def test_sigint_while_pending_cancels_the_request(cluster):
    hold = start(cluster, "salloc", "-N4", "--exclusive", "sleep", "30")
    try:
        cluster.wait_until(lambda: job_ids(cluster, "R"), timeout=15,
                           what="the first allocation")
        p = start(cluster, "salloc", "-N1", "true")
        cluster.wait_until(lambda: job_ids(cluster, "PD"), timeout=15,
                           what="the pending request")
        job = job_ids(cluster, "PD")[0]
        time.sleep(1.5)  # announced
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert p.returncode == 1
        assert err == (f"salloc: Pending job allocation {job}\n"
                       f"salloc: job {job} queued and waiting for resources\n"
                       f"salloc: Job allocation {job} has been revoked.\n"
                       "salloc: Job aborted due to signal\n")
        assert cluster.job_state(job) == "CANCELLED"
    finally:
        os.killpg(hold.pid, signal.SIGTERM)
        hold.wait(timeout=30)


def test_srun_outside_a_job_allocates_three_nodes(cluster):
    r = cluster.run("srun", "-N3", "-l", "hostname")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    host = os.uname().nodename
    assert sorted(r.stdout.splitlines()) == [f"{i}: {host}" for i in range(3)]
    r = cluster.run("squeue", "-h", "-t", "all", "-o", "%j %T %D %k")
    assert "hostname COMPLETED 3" in r.stdout


def test_srun_outside_a_job_exit_code(cluster):
    r = cluster.run("srun", "-n2", "bash", "-c", "exit 3")
    assert r.returncode == 3
    assert r.stderr == "srun: error: node01: tasks 0-1: Exited with exit code 3\n"
    r = cluster.run("srun", "-n2", "-l", "echo", "hi")
    assert r.returncode == 0
    assert sorted(r.stdout.splitlines()) == ["0: hi", "1: hi"]


def test_srun_refusals(cluster):
    r = cluster.run("srun", "-p", "nosuch", "true")
    assert (r.returncode, r.stderr) == (1, (
        "srun: error: invalid partition specified: nosuch\n"
        "srun: error: Unable to allocate resources: Invalid partition name "
        "specified\n"))
    r = cluster.run("srun", "--time=bogus", "true")
    assert (r.returncode, r.stderr) == (
        255, "srun: error: Invalid --time specification\n")


def test_srun_immediate_gives_up_when_nodes_are_busy(cluster):
    hold = start(cluster, "salloc", "-N4", "--exclusive", "sleep", "30")
    try:
        cluster.wait_until(lambda: job_ids(cluster, "R"), timeout=15,
                           what="the first allocation")
        r = cluster.run("srun", "--immediate=1", "-N4", "--exclusive", "true")
        job = re.search(r"srun: job (\d+) queued", r.stderr).group(1)
        assert (r.returncode, r.stderr) == (1, (
            f"srun: job {job} queued and waiting for resources\n"
            "srun: error: Unable to allocate resources: Requested nodes are "
            "busy\n"))
        assert cluster.job_state(job) == "CANCELLED"
    finally:
        os.killpg(hold.pid, signal.SIGTERM)
        hold.wait(timeout=30)


def test_srun_partition_too_small_waits_and_scancel_ends_it(cluster):
    p = start(cluster, "srun", "-N5", "true")
    cluster.wait_until(lambda: job_ids(cluster, "PD"), timeout=15,
                       what="the pending job")
    job = job_ids(cluster, "PD")[0]
    cluster.run("scancel", job, check=True)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 1
    assert err == ("srun: Requested partition configuration not available "
                   "now\n"
                   f"srun: job {job} queued and waiting for resources\n"
                   "srun: Job has been cancelled\n"
                   "srun: error: Unable to allocate resources: Job/step "
                   "already completing or completed\n")


def test_srun_pty_bash_in_tmux(cluster):
    """srun --pty bash in a real terminal (tmux): keys reach the job's
    shell, its terminal has tmux's size, and 'exit' ends the job."""
    tmux = shutil.which("tmux")
    require(tmux, "tmux not installed")
    sock = str(cluster.root / "tmux.sock")

    def tm(*args):
        return subprocess.run([tmux, "-S", sock, *args], env=cluster.env,
                              cwd=cluster.workdir, capture_output=True,
                              text=True, timeout=10)

    def screen():
        return tm("capture-pane", "-p").stdout

    r = tm("new-session", "-d", "-x", "100", "-y", "30",
           "srun --pty bash --norc --noprofile; sleep 30")
    assert r.returncode == 0, r.stderr
    try:
        cluster.wait_until(lambda: job_ids(cluster, "R"), timeout=15,
                           what="the allocation")
        job = job_ids(cluster, "R")[0]
        cluster.wait_until(lambda: "$" in screen() or "#" in screen(),
                           timeout=15, what="a prompt")
        tm("send-keys", "echo hello-$SLURM_JOB_ID; tty; stty size", "Enter")
        cluster.wait_until(lambda: "\n30 100\n" in screen(), timeout=15,
                           what="the job's answers")
        lines = screen().splitlines()
        at = lines.index(f"hello-{job}")
        assert lines[at + 1].startswith("/dev/pts/")
        assert lines[at + 2] == "30 100"
        tm("send-keys", "exit", "Enter")
        assert cluster.wait_job_state(job, "COMPLETED", timeout=15)
    finally:
        tm("kill-server")


def test_sigterm_to_srun_outside_a_job_ends_its_allocation(cluster):
    p = start(cluster, "srun", "-N2", "sleep", "60")
    cluster.wait_until(lambda: job_ids(cluster, "R"), timeout=15,
                       what="the allocation")
    job = job_ids(cluster, "R")[0]
    cluster.wait_until(lambda: len(cluster.job_pids(job, steps_only=True)) == 2,
                       timeout=15, what="the step's two tasks")
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM
    assert err == f"srun: Force Terminated JobId={job}\n"
    assert cluster.wait_job_done(job, timeout=15) == "FAILED"
    cluster.wait_until(lambda: cluster.job_pids(job) == [], timeout=15,
                       what="no task left")


def test_no_shell_keeps_the_allocation(cluster):
    """salloc --no-shell: allocates, runs nothing, exits 0; the allocation
    stays for srun --jobid until scancel (or its time limit)."""
    r = cluster.run("salloc", "--no-shell", "-N1", "-t", "5", check=True)
    job = GRANTED.search(r.stderr).group(1)
    assert r.stdout == ""
    cluster.wait_job_state(job, "RUNNING", timeout=10)
    r = cluster.run("srun", f"--jobid={job}", "printenv", "SLURM_JOB_ID",
                    check=True)
    assert r.stdout == f"{job}\n"
    assert cluster.job_state(job) == "RUNNING"
    cluster.run("scancel", job, check=True)
    cluster.wait_job_done(job, timeout=30)
    r = cluster.run("sbatch", "--no-shell", "--wrap", "true")
    assert r.returncode != 0 and "--no-shell" in r.stderr
