# SPDX-License-Identifier: Apache-2.0
"""sattach (issue 13): attach to a running step's I/O.  The step's
droverstepd keeps its recent output, replays it to sattach, then sends the
live lines (golden sattach-step0); -l labels, --output-filter, --layout,
Slurm's errors (another user's step, an unknown or finished one), and a
killed sattach leaves the step running to its normal end (goldens
help-sattach, usage-sattach)."""
import os
import re
import signal
import subprocess

import pytest
from cluster import REPO, Cluster, require

GOLDEN = REPO / "tests" / "unit" / "data" / "slurm-golden"

TICKS = ('srun bash -c \'for i in $(seq {n}); do echo tick $i; sleep 1; '
         'done\'')


def start_ticking(c, user, n, *sbatch_args, script=None):
    """A batch job whose step 0 prints "tick i" each second, n times;
    returns (job id, its output file) once the step printed "tick 2"."""
    job = c.sbatch(*sbatch_args, "-o", "ticks-%j.out", "--wrap",
                   script or TICKS.format(n=n), user=user)
    out = c.user_workdir(user) / f"ticks-{job}.out"
    c.wait_until(lambda: out.exists()
                 and re.search(r"^tick 2\b", out.read_text(), re.M),
                 timeout=60, what="step 0 printing its second tick")
    return job, out


def ticks(text):
    return [int(m) for m in re.findall(r"^tick (\d+)$", text, re.M)]


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sattach_replays_then_follows_and_the_step_ends_normally(
        cluster, test_user):
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    job, out = start_ticking(c, test_user, 8)
    before = ticks(out.read_text())
    r = c.run("timeout", "3", "sattach", f"{job}.0", user=test_user)
    # rc 124 is timeout's; sattach printed nothing of its own (golden)
    assert r.returncode == 124, r.stderr
    assert r.stderr == ""
    got = ticks(r.stdout)
    # the replay starts at the first tick, and live ticks follow in order
    assert got[:len(before)] == before, r.stdout
    assert got == list(range(1, len(got) + 1)), r.stdout
    assert len(got) > len(before), (before, r.stdout)
    # killing sattach did not harm the step: it runs to its end
    c.wait_job_state(job, ("COMPLETED",), timeout=60)
    assert ticks(out.read_text()) == list(range(1, 9))


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sattach_replays_only_the_recent_output(cluster, test_user):
    """The replay is bounded (STEP_ATTACH_CACHE_BYTES, 1 MiB of frames):
    of 2 MB printed at once, sattach shows the end, not the start."""
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    job, out = start_ticking(c, test_user, 0, script=(
        "srun bash -c 'seq 300000; echo tick 1; echo tick 2; sleep 60'"))
    r = c.run("timeout", "3", "sattach", f"{job}.0", user=test_user)
    assert r.returncode == 124, r.stderr
    assert r.stdout.endswith("299999\n300000\ntick 1\ntick 2\n")
    assert 1000 < len(r.stdout) <= 1024 * 1024
    assert not r.stdout.startswith("1\n2\n3\n")
    c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sattach_labels_filters_and_ends_with_the_tasks(cluster, test_user):
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    script = ('srun -n2 bash -c \'for i in $(seq 5); do echo tick $i '
              '$SLURM_PROCID; sleep 1; done; exit $((SLURM_PROCID + 2))\'')
    job, _ = start_ticking(c, test_user, 0, "-n2", script=script)
    r = c.run("sattach", "-l", f"{job}.0", user=test_user, timeout=60)
    # sattach ends with the tasks, with the highest exit code (Slurm's)
    assert r.returncode == 3, r.stderr
    for rank in (0, 1):
        lines = re.findall(rf"^{rank}: tick (\d+) {rank}$", r.stdout, re.M)
        assert lines == [str(i) for i in range(1, 6)], r.stdout
    assert "sattach: error: task 0 exited with exit code 2\n" in r.stderr
    assert "sattach: error: task 1 exited with exit code 3\n" in r.stderr
    assert len(r.stdout.splitlines()) == 10, r.stdout

    job, _ = start_ticking(c, test_user, 0, "-n2", script=script)
    r = c.run("sattach", "--output-filter=1", f"{job}.0", user=test_user,
              timeout=60)
    assert r.stdout == "".join(f"tick {i} 1\n" for i in range(1, 6))


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sattach_layout_prints_slurms_lines(cluster, test_user):
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    job, _ = start_ticking(c, test_user, 30, "-N2", "-n2", script=(
        "srun -N2 -n2 bash -c 'for i in $(seq 30); do echo tick $i; "
        "sleep 1; done'"))
    r = c.run("sattach", "--layout", f"{job}.0", user=test_user, check=True)
    m = re.fullmatch(r"Job step layout:\n\t2 tasks, 2 nodes \((\S+)\)\n\n"
                     r"\tNode 0 \((\S+)\), 1 task\(s\): 0 \n"
                     r"\tNode 1 \((\S+)\), 1 task\(s\): 1 \n", r.stdout)
    assert m, r.stdout
    c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sattach_refuses_other_users_and_gone_steps(cluster, test_users):
    c = cluster
    owner, other = test_users
    job, out = start_ticking(c, owner, 30)
    err = "sattach: error: Could not get job step info: "
    r = c.run("sattach", f"{job}.0", user=other, timeout=30)
    assert (r.returncode, r.stderr) == (1, err + "Access/permission denied\n")
    r = c.run("sattach", f"{job}.7", user=owner, timeout=30)
    assert (r.returncode, r.stderr) == (1, err + "Invalid job id specified\n")
    # the step went on unharmed
    n = len(ticks(out.read_text()))
    c.wait_until(lambda: len(ticks(out.read_text())) > n + 1, timeout=30,
                 what="the step still ticking")
    c.run("scancel", job, check=True)
    c.wait_job_state(job, ("CANCELLED",), timeout=60)
    r = c.run("sattach", f"{job}.0", user=owner, timeout=30)
    assert r.returncode == 1
    assert r.stderr in (err + "Job/step already completing or completed\n",
                        err + "Invalid job id specified\n"), r.stderr


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_a_step_takes_at_most_16_sattach(cluster, test_user):
    """Each attacher costs the step's root-owned droverstepd a connection
    and up to 1 MiB of queue: STEP_ATTACH_MAX (16) at once, the 17th is
    refused with the reason, and the step goes on."""
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    job, out = start_ticking(c, test_user, 30)
    log = c.log_file("node01")
    base = log.read_text().count("sattach attached from")
    many = [subprocess.Popen(["runuser", "-u", test_user, "--", "env",
                              f"DROVER_CONF={c.env['DROVER_CONF']}",
                              str(c.which("sattach")), f"{job}.0"],
                             env=c.env, cwd=c.user_workdir(test_user),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             start_new_session=True)
            for _ in range(16)]
    try:
        c.wait_until(lambda: log.read_text().count("sattach attached from")
                     == base + 16, timeout=30, what="16 sattach attached")
        r = c.run("sattach", f"{job}.0", user=test_user, timeout=30)
        assert r.returncode == 1
        assert r.stderr == ("sattach: error: Node node01: 16 sattach "
                            "attached to this step already\n"), r.stderr
    finally:
        for p in many:  # runuser and its sattach
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    # once the step saw them go, one attaches again; the step went on
    got = []

    def attached():
        got[:] = [c.run("timeout", "2", "sattach", f"{job}.0",
                        user=test_user)]
        return got[0].returncode == 124
    c.wait_until(attached, timeout=30, what="sattach attaching again")
    assert ticks(got[0].stdout)[:2] == [1, 2], got[0].stdout
    c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sattach_forwards_its_stdin_to_the_tasks(cluster):
    """srun's stdin stays open (a pipe nobody writes): the task reads the
    line sattach was given, and srun and sattach both print its answer."""
    attach_stdin_to_a_new_step(cluster)


@pytest.mark.needs_root
def test_sattach_waits_for_a_launch_on_its_way(cluster_root):
    """The controller lists a step as running once it made it; its node
    hears of it a moment later (here 2 s later: the node runs the job's
    Prolog before the first launch).  sattach in between waits for the
    launch instead of saying "no tasks running"."""
    prolog = cluster_root / "slow-prolog.sh"
    prolog.write_text("#!/bin/sh\nsleep 2\n")
    os.chmod(prolog, 0o755)
    c = Cluster(cluster_root, nodes=1,
                up_args=[f"--conf-extra=Prolog={prolog}"])
    try:
        c.up()
        attach_stdin_to_a_new_step(c)
    finally:
        c.down()


def attach_stdin_to_a_new_step(c):
    """srun -n1 reading a line; sattach, as soon as squeue lists the step,
    gives the line: both print the task's answer."""
    srun = subprocess.Popen(
        [str(c.which("srun")), "-n1", "bash", "-c", "read x; echo got $x"],
        env=c.env, cwd=c.workdir, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        steps = []

        def step_running():
            r = c.run("squeue", "-h", "-s", "-o", "%i")
            steps[:] = re.findall(r"^(\d+\.0)$", r.stdout, re.M)
            return steps
        c.wait_until(step_running, timeout=60, what="srun's step running")
        r = c.run("sattach", steps[0], input="hello\n", timeout=30)
        if (r.returncode, r.stdout) != (0, "got hello\n"):
            srun.kill()  # what srun said, for the report
            out, err = srun.communicate(timeout=30)
            raise AssertionError(
                f"sattach: {r.returncode} {r.stdout!r} {r.stderr!r}; srun: "
                f"{srun.returncode} {out!r} {err!r}")
        out, err = srun.communicate(timeout=30)
        assert (srun.returncode, out) == (0, "got hello\n"), err
    finally:
        if srun.poll() is None:
            srun.kill()
            srun.wait()


def test_sattach_arguments_help_and_usage_as_slurm(cluster):
    c = cluster
    for args, golden in ((["--help"], "help-sattach"),
                         (["--usage"], "usage-sattach")):
        r = c.run("sattach", *args)
        assert r.returncode == 0
        assert r.stdout == (GOLDEN / f"{golden}.stdout").read_text()
    r = c.run("sattach", "12")
    assert r.returncode == 1
    assert r.stderr == ("sattach: error: Did not find a period in the step "
                        "ID string\n")
    assert r.stdout == "Usage: sattach [options] <jobid.stepid>\n"
    r = c.run("sattach")
    assert (r.returncode, r.stderr) == (
        1, "sattach: error: too many parameters\n")
    r = c.run("sattach", "x.0")
    assert r.stderr == "sattach: error: \"x\" does not look like a jobid\n"
    r = c.run("sattach", "-Q", "-v", "1.0")
    assert r.stderr == ("sattach: error: don't specify both --verbose (-v) "
                        "and --quiet (-Q)\n")
    r = c.run("sattach", "--bogus", "1.0")
    assert r.returncode == 1
    assert "Try \"sattach --help\" for more information\n" in r.stderr
