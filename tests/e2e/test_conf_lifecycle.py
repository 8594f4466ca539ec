# SPDX-License-Identifier: Apache-2.0
"""The job-lifecycle keywords of slurm.conf (issue 13), each through real
jobs: OverTimeLimit (global and per partition), JobRequeue, RequeueExit
and RequeueExitHold, KillOnBadExit, JobFileAppend, MaxJobId with
FirstJobId, CompleteWait; scontrol show config and show partition print
them as Slurm 22.05 does, and a bad value stops a command with the file,
line and keyword."""
import time

import pytest


def extra(*lines, nodes=2):
    return {"nodes": nodes, "gpus_per_node": 0,
            "up_args": [f"--conf-extra={line}" for line in lines]}


def part_field(c, name, key):
    out = c.run("scontrol", "-o", "show", "partition", name,
                check=True).stdout
    for word in out.split():
        k, _, v = word.partition("=")
        if k == key:
            return v
    return None


def run_seconds(c, job_id):
    h, m, s = c.job_field(job_id, "RunTime").split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)


@pytest.mark.parametrize("cluster", [extra(
    "OverTimeLimit=1",
    "PartitionName=strict Nodes=ALL OverTimeLimit=0 State=UP")],
    indirect=True)
def test_over_time_limit_lets_a_job_run_past_its_limit(cluster, tmp_path):
    c = cluster
    assert c.show_config("OverTimeLimit") == "1 min"
    assert part_field(c, "strict", "OverTimeLimit") == "0"
    assert part_field(c, "debug", "OverTimeLimit") == "NONE"
    # -t 0:05 is five seconds; OverTimeLimit=1 lets it run a minute more,
    # its own partition's OverTimeLimit=0 does not
    loose = c.sbatch("-t", "0:05", "-o", "/dev/null", "--wrap", "sleep 300",
                     cwd=tmp_path)
    strict = c.sbatch("-p", "strict", "-t", "0:05", "-o", "/dev/null",
                      "--wrap", "sleep 300", cwd=tmp_path)
    c.wait_job_state(strict, "TIMEOUT", timeout=40)
    time.sleep(5)
    assert c.job_state(loose) == "RUNNING"
    assert run_seconds(c, loose) >= 9
    assert c.job_field(loose, "TimeLimit") == "00:00:05"
    c.wait_job_state(loose, "TIMEOUT", timeout=90)
    assert 60 <= run_seconds(c, loose) <= 80


@pytest.mark.parametrize("cluster", [extra("JobRequeue=0")], indirect=True)
def test_job_requeue_is_the_default_of_requeue(cluster, tmp_path):
    c = cluster
    assert c.show_config("JobRequeue") == "0"
    plain = c.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    asked = c.sbatch("-H", "--requeue", "--wrap", "true", cwd=tmp_path)
    assert c.job_field(plain, "Requeue") == "0"
    assert c.job_field(asked, "Requeue") == "1"
    # a job that may not be requeued refuses scontrol requeue
    c.run("scontrol", "release", plain, check=True)
    c.run("scontrol", "release", asked, check=True)
    c.wait_job_state(plain, "COMPLETED", timeout=30)
    r = c.run("scontrol", "requeue", plain)
    assert r.returncode != 0


REQUEUE_ONCE = """#!/bin/bash
echo "run ${SLURM_RESTART_COUNT:-0}" >> runs-$SLURM_JOB_ID.txt
[ -z "$SLURM_RESTART_COUNT" ] && exit %d
exit 0
"""


@pytest.mark.parametrize("cluster", [extra("RequeueExit=1-3,7",
                                           "RequeueExitHold=4")],
                         indirect=True)
def test_requeue_exit_and_requeue_exit_hold(cluster, tmp_path):
    c = cluster
    assert c.show_config("RequeueExit") == "1-3,7"
    assert c.show_config("RequeueExitHold") == "4"
    (tmp_path / "exit3.sh").write_text(REQUEUE_ONCE % 3)
    (tmp_path / "exit4.sh").write_text(REQUEUE_ONCE % 4)
    (tmp_path / "exit5.sh").write_text(REQUEUE_ONCE % 5)
    again = c.sbatch("-o", "/dev/null", "exit3.sh", cwd=tmp_path)
    held = c.sbatch("-o", "/dev/null", "exit4.sh", cwd=tmp_path)
    other = c.sbatch("-o", "/dev/null", "exit5.sh", cwd=tmp_path)
    never = c.sbatch("--no-requeue", "-o", "/dev/null", "exit3.sh",
                     cwd=tmp_path)
    # exit 3: requeued at once, runs again and completes
    c.wait_job_state(again, "COMPLETED", timeout=40)
    assert c.job_field(again, "Restarts") == "1"
    assert (tmp_path / f"runs-{again}.txt").read_text() == "run 0\nrun 1\n"
    # exit 4: requeued held in SPECIAL_EXIT until released
    c.wait_job_state(held, "SPECIAL_EXIT", timeout=30)
    assert c.job_field(held, "Reason") == "JobHeldUser"
    assert c.job_field(held, "Restarts") == "1"
    r = c.run("squeue", "-h", "-j", held, "-o", "%t %r", check=True)
    assert r.stdout == "SE JobHeldUser\n"
    time.sleep(3)
    assert c.job_state(held) == "SPECIAL_EXIT"
    c.run("scontrol", "release", held, check=True)
    c.wait_job_state(held, "COMPLETED", timeout=30)
    # other codes, and --no-requeue, end as they are
    c.wait_job_state(other, "FAILED", timeout=30)
    assert c.job_field(other, "ExitCode") == "5:0"
    c.wait_job_state(never, "FAILED", timeout=30)
    assert c.job_field(never, "Restarts") == "0"


@pytest.mark.parametrize("cluster", [extra("KillOnBadExit=1", nodes=1)],
                         indirect=True)
def test_kill_on_bad_exit_is_sruns_default(cluster, tmp_path):
    c = cluster
    assert c.show_config("KillOnBadExit") == "1"
    task = ('if [ "$SLURM_PROCID" = 0 ]; then exit 3; fi; sleep 40')
    began = time.monotonic()
    r = c.run("srun", "-n2", "bash", "-c", task, cwd=tmp_path, timeout=60)
    assert r.returncode != 0
    assert time.monotonic() - began < 25, r.stderr
    # -K0 overrides it: the other task runs on
    began = time.monotonic()
    r = c.run("srun", "-K0", "-n2", "bash", "-c",
              'if [ "$SLURM_PROCID" = 0 ]; then exit 3; fi; sleep 6',
              cwd=tmp_path, timeout=60)
    assert time.monotonic() - began >= 6


@pytest.mark.parametrize("cluster", [extra("JobFileAppend=1")],
                         indirect=True)
def test_job_file_append_keeps_what_output_files_held(cluster, tmp_path):
    c = cluster
    assert c.show_config("JobFileAppend") == "1"
    for name in ("a.out", "t.out", "s.out"):
        (tmp_path / name).write_text("old\n")
    appended = c.sbatch("-o", "a.out", "--wrap", "echo new", cwd=tmp_path)
    truncated = c.sbatch("-o", "t.out", "--open-mode=truncate", "--wrap",
                         "echo new", cwd=tmp_path)
    c.wait_job_state(appended, "COMPLETED", timeout=30)
    c.wait_job_state(truncated, "COMPLETED", timeout=30)
    assert (tmp_path / "a.out").read_text() == "old\nnew\n"
    assert (tmp_path / "t.out").read_text() == "new\n"
    c.run("srun", "-o", "s.out", "echo", "new", cwd=tmp_path, check=True)
    assert (tmp_path / "s.out").read_text() == "old\nnew\n"


@pytest.mark.parametrize("cluster", [extra("FirstJobId=5", "MaxJobId=7",
                                           "MinJobAge=1")],
                         indirect=True)
def test_max_job_id_wraps_to_first_job_id(cluster, tmp_path):
    c = cluster
    assert c.show_config("MaxJobId") == "7"
    held = c.sbatch("-o", "/dev/null", "--wrap", "sleep 60", cwd=tmp_path)
    done = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
    assert (held, done) == ("5", "6")
    c.wait_job_state(done, "COMPLETED", timeout=30)
    c.wait_until(lambda: c.show_job(done) is None, timeout=30,
                 what="job 6 to be purged")
    # 7 is MaxJobId: back to 5, held by a running job, so 6
    assert c.sbatch("-o", "/dev/null", "--wrap", "true",
                    cwd=tmp_path) == "6"
    assert c.show_config("NEXT_JOB_ID") == "7"
    c.run("scancel", held, check=True)


TERM_PROOF = """#!/bin/bash
trap '' TERM
touch ready
while true; do sleep 1; done
"""


@pytest.mark.parametrize("cluster", [extra("CompleteWait=30")],
                         indirect=True)
def test_complete_wait_holds_starts_while_a_job_completes(cluster, tmp_path):
    c = cluster
    assert c.show_config("CompleteWait") == "30 sec"
    (tmp_path / "stubborn.sh").write_text(TERM_PROOF)
    stubborn = c.sbatch("-w", "node01", "-o", "/dev/null", "stubborn.sh",
                        cwd=tmp_path)
    c.wait_until(lambda: (tmp_path / "ready").exists(), timeout=30,
                 what="the script to ignore SIGTERM")
    c.run("scancel", stubborn, check=True)  # SIGKILL after KillWait=5
    waiting = c.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", "true",
                       cwd=tmp_path)
    time.sleep(3)
    assert c.job_state(waiting) == "PENDING"
    c.wait_job_state(waiting, "COMPLETED", timeout=40)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_bad_value_names_file_line_and_keyword(cluster, tmp_path):
    c = cluster
    conf = tmp_path / "slurm.conf"
    text = c.conf.read_text()
    conf.write_text(text + "OverTimeLimit=soon\n")
    line = len(text.splitlines()) + 1
    r = c.run("scontrol", "show", "config", env={"DROVER_CONF": str(conf)})
    assert r.returncode != 0
    assert (f"{conf}:{line}: OverTimeLimit=soon: expected minutes or "
            "UNLIMITED") in r.stderr
    conf.write_text(text + "RequeueExitHold=4-2\n")
    r = c.run("scontrol", "show", "config", env={"DROVER_CONF": str(conf)})
    assert r.returncode != 0
    assert f"{conf}:{line}: RequeueExitHold=4-2: expected exit codes" \
        in r.stderr


@pytest.mark.parametrize("cluster", [extra("InactiveLimit=3", nodes=1)],
                         indirect=True)
def test_inactive_limit_ends_an_allocation_whose_command_is_gone(cluster):
    """salloc and srun outside a job say they are alive; one killed -9
    falls silent and its allocation ends TIMEOUT after InactiveLimit,
    while live ones outlast it."""
    import signal
    import subprocess

    c = cluster
    assert c.show_config("InactiveLimit") == "3 sec"

    def start(*args):
        return subprocess.Popen(list(args), env=c.env, cwd=c.workdir,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True,
                                start_new_session=True)

    def running():
        r = c.run("squeue", "-h", "-t", "R", "-o", "%i", check=True)
        return r.stdout.split()

    live = start("salloc", "-n1", "sleep", "9")
    srun = start("srun", "-n1", "sleep", "9")
    c.wait_until(lambda: len(running()) == 2, 30, "two allocations")
    gone = subprocess.Popen(["salloc", "-n1", "sleep", "20"], env=c.env,
                            cwd=c.workdir, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            start_new_session=True)
    c.wait_until(lambda: len(running()) == 3, 30, "the third allocation")
    job = max(running(), key=int)
    time.sleep(1.5)  # it has said it is alive
    gone.send_signal(signal.SIGKILL)  # its command (sleep) outlives it
    gone.wait(timeout=10)
    c.wait_job_state(job, ["TIMEOUT"], timeout=30)
    # the live ones ran past the limit to their command's end
    assert live.wait(timeout=30) == 0
    assert srun.wait(timeout=30) == 0
    for p in (live, srun):
        p.communicate(timeout=10)
    r = c.run("sacct", "-X", "-n", "-P", "-o", "State", "-j", job,
              check=True)
    assert r.stdout.split() == ["TIMEOUT"]
