# SPDX-License-Identifier: Apache-2.0
"""slurm.conf PrologSlurmctld= and EpilogSlurmctld=, run by the controller
as SlurmUser: PrologSlurmctld when a job is allocated (the job is
CONFIGURING, CF, and does not launch until it passed), EpilogSlurmctld
when the job ends, each with Slurm's environment.  A failing
PrologSlurmctld requeues a batch job (where it may requeue) or cancels the
job.  Only the running controller (the Raft leader) runs them, never
twice for one start.

The script records its uid and environment in <root>/<context>.<job>
(and one line per run in <root>/<context>.<job>.runs); it waits while
<root>/hold-<context> exists and fails while <root>/fail-<context> does.
"""
import os
import pwd
import re
import signal
import subprocess

import pytest

from cluster import Cluster

SCRIPT = """#!/bin/sh
ctx=$SLURM_SCRIPT_CONTEXT
f={root}/$ctx.$SLURM_JOB_ID
echo run >> $f.runs
n=0
while [ -e {root}/hold-$ctx ] && [ $n -lt 600 ]; do
    /bin/sleep 0.1; n=$((n+1))
done
{{ printf 'uid=%s\\n' "$(/usr/bin/id -u)"; /usr/bin/env; }} > $f.tmp
/bin/mv $f.tmp $f
[ -e {root}/fail-$ctx ] && exit 3
exit 0
"""


def ctld_cluster(root, nodes=1, extra=()):
    script = root / "pc.sh"
    script.write_text(SCRIPT.format(root=root))
    os.chmod(script, 0o755)
    args = [f"--conf-extra=PrologSlurmctld={script}",
            f"--conf-extra=EpilogSlurmctld={script}", *extra]
    return Cluster(root, nodes=nodes, gpus_per_node=0, up_args=args)


def env_of(root, ctx, job):
    path = root / f"{ctx}.{job}"
    if not path.exists():
        return None
    return dict(line.split("=", 1) for line in
                path.read_text().splitlines() if "=" in line)


def wait_env(c, root, ctx, job):
    c.wait_until(lambda: env_of(root, ctx, job) is not None,
                 timeout=30, what=f"{ctx} of job {job}")
    return env_of(root, ctx, job)


def runs(root, ctx, job):
    path = root / f"{ctx}.{job}.runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


def slurm_uid(c):
    return str(pwd.getpwnam(c.conf_value("SlurmUser") or "root").pw_uid)


@pytest.mark.needs_root
def test_job_is_configuring_until_prolog_slurmctld_passes_then_epilog_runs(
        cluster_root, test_users):
    root, user = cluster_root, test_users[0]
    c = ctld_cluster(root)
    try:
        c.up()
        cfg = c.run("scontrol", "show", "config", check=True).stdout
        assert f"\nPrologSlurmctld         = {root / 'pc.sh'}\n" in cfg, cfg
        assert f"\nEpilogSlurmctld         = {root / 'pc.sh'}\n" in cfg, cfg
        (root / "hold-prolog_slurmctld").touch()
        wd = c.user_workdir(user)
        job = c.sbatch("-J", "pc", "-o", "out.txt", "--wrap",
                       "echo ran; sleep 2; exit 3", user=user,
                       cwd=wd)
        c.wait_until(lambda: runs(root, "prolog_slurmctld", job) == 1,
                     what="PrologSlurmctld started")
        shown = c.run("squeue", "-h", "-j", job, "-o", "%t|%T",
                      check=True).stdout
        only_cf = c.run("squeue", "-h", "-t", "CF", "-o", "%i",
                        check=True).stdout
        state = c.job_state(job)
        # a step of the job waits for it too, as on busy nodes
        err = root / "srun.err"
        with open(err, "w") as ef:
            step = subprocess.Popen(
                [str(c.which("srun")), f"--jobid={job}", "-n1",
                 "/bin/echo", "step"], env=c.env, cwd=wd,
                stdout=subprocess.PIPE, stderr=ef, text=True)
        c.wait_until(lambda: "step creation temporarily disabled"
                     in err.read_text(), what="srun waiting")
        assert shown == "CF|CONFIGURING\n", shown
        assert only_cf == f"{job}\n", only_cf
        assert state == "CONFIGURING", state
        assert not (wd / "out.txt").exists()  # not launched
        assert step.poll() is None
        (root / "hold-prolog_slurmctld").unlink()
        out, _ = step.communicate(timeout=60)
        assert step.returncode == 0 and out == "step\n", err.read_text()
        assert c.wait_job_done(job) == "FAILED"
        assert (wd / "out.txt").read_text() == "ran\n"
        pro = wait_env(c, root, "prolog_slurmctld", job)
        epi = wait_env(c, root, "epilog_slurmctld", job)
        pw = pwd.getpwnam(user)
        for env in (pro, epi):
            assert env["uid"] == slurm_uid(c)  # as SlurmUser
            assert env["SLURM_JOB_ID"] == env["SLURM_JOBID"] == job
            assert env["SLURM_JOB_USER"] == user
            assert env["SLURM_JOB_UID"] == str(pw.pw_uid)
            assert env["SLURM_JOB_GID"] == str(pw.pw_gid)
            assert env["SLURM_JOB_NAME"] == "pc"
            assert env["SLURM_JOB_PARTITION"] == "debug"
            assert env["SLURM_JOB_NODELIST"] == "node01"
            assert env["SLURM_JOB_WORK_DIR"] == str(wd)
            assert env["SLURM_CONF"] == str(c.conf)
            assert "PATH" not in env  # as Slurm: no search path
        assert pro["SLURM_SCRIPT_CONTEXT"] == "prolog_slurmctld"
        assert epi["SLURM_SCRIPT_CONTEXT"] == "epilog_slurmctld"
        assert epi["SLURM_JOB_EXIT_CODE2"] == "3:0"
        assert runs(root, "prolog_slurmctld", job) == 1
        assert runs(root, "epilog_slurmctld", job) == 1
    finally:
        c.down()


@pytest.mark.needs_root
def test_failing_prolog_slurmctld_requeues_a_batch_job_or_cancels_it(
        cluster_root, tmp_path):
    root = cluster_root
    c = ctld_cluster(root)
    try:
        c.up()
        (root / "fail-prolog_slurmctld").touch()
        job = c.sbatch("-o", "/dev/null", "--wrap", f"touch {tmp_path}/ran",
                       cwd=tmp_path)
        c.wait_until(lambda: (c.show_job(job) or {}).get("Restarts") == "1",
                     what="the job requeued")
        rec = c.show_job(job)
        assert rec["JobState"] == "PENDING", rec
        assert rec["Reason"] == "BeginTime", rec  # not at once again
        wait_env(c, root, "epilog_slurmctld", job)  # its run ended
        log = c.log_file("droverctld").read_text()
        assert (f"PrologSlurmctld {root / 'pc.sh'} exited 3: JobId={job}"
                in log), log
        assert f"JobId={job}: PrologSlurmctld failed: requeued" in log
        # --no-requeue: cancelled; never launched
        other = c.sbatch("--no-requeue", "-o", "/dev/null", "--wrap",
                         f"touch {tmp_path}/ran", cwd=tmp_path)
        assert c.wait_job_done(other) == "CANCELLED"
        # an allocation of srun: cancelled, srun fails
        r = c.run("srun", "-n1", "/bin/true", timeout=60)
        assert r.returncode != 0, r
        assert not (tmp_path / "ran").exists()
        assert runs(root, "prolog_slurmctld", job) == 1
    finally:
        c.down()


@pytest.mark.needs_root
def test_restarted_controller_does_not_run_prolog_slurmctld_again(
        cluster_root, tmp_path):
    """The controller dies while a PrologSlurmctld runs: the one that
    starts again replays the job's start without running it, and requeues
    the job whose prolog it cannot know passed.  A configuring job
    cancelled ends at once."""
    root = cluster_root
    c = ctld_cluster(root)
    try:
        c.up()
        (root / "hold-prolog_slurmctld").touch()
        job = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
        c.wait_until(lambda: runs(root, "prolog_slurmctld", job) == 1,
                     what="PrologSlurmctld started")
        c.restart_alone("droverctld")
        c.wait_until(lambda: (c.show_job(job) or {}).get("Restarts") == "1",
                     what="the job requeued")
        log = c.log_file("droverctld").read_text()
        assert re.search(rf"JobId={job}: PrologSlurmctld or Prolog "
                         r"interrupted by a controller restart or takeover: "
                         r"requeued", log)
        assert runs(root, "prolog_slurmctld", job) == 1
        # scancel of a configuring job: it ends at once (nothing of it
        # runs on its node), the node free again
        other = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
        c.wait_until(lambda: runs(root, "prolog_slurmctld", other) == 1,
                     what="PrologSlurmctld started")
        c.run("scancel", other, check=True)
        assert c.wait_job_done(other, timeout=10) == "CANCELLED"
        c.wait_until(lambda: c.run("sinfo", "-h", "-o", "%t").stdout
                     == "idle\n", timeout=10, what="node01 idle")
        (root / "hold-prolog_slurmctld").unlink()
        assert runs(root, "prolog_slurmctld", job) == 1
    finally:
        c.down()


@pytest.mark.needs_root
def test_three_controllers_only_the_leader_runs_them_never_twice(
        cluster_root, tmp_path):
    """With three controllers (Raft) only the leader runs PrologSlurmctld
    and EpilogSlurmctld; a new leader after a kill -9 of the one running
    a PrologSlurmctld requeues that job without running it again."""
    root = cluster_root
    c = ctld_cluster(root, extra=["--controllers=3"])
    try:
        c.up()
        leader = c.leader()
        job = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
        assert c.wait_job_done(job) == "COMPLETED"
        wait_env(c, root, "epilog_slurmctld", job)
        (root / "hold-prolog_slurmctld").touch()
        held = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
        c.wait_until(lambda: runs(root, "prolog_slurmctld", held) == 1,
                     what="PrologSlurmctld started")
        c.kill(leader, signal.SIGKILL)
        new = c.leader(timeout=30)
        assert new != leader
        c.wait_until(lambda: (c.show_job(held) or {}).get("Restarts") == "1",
                     timeout=60, what="the job requeued by the new leader")
        assert re.search(rf"JobId={held}: PrologSlurmctld or Prolog "
                         r"interrupted by a controller restart or takeover",
                         c.log_file(new).read_text())
        (root / "hold-prolog_slurmctld").unlink()
        assert runs(root, "prolog_slurmctld", job) == 1
        assert runs(root, "epilog_slurmctld", job) == 1
        assert runs(root, "prolog_slurmctld", held) == 1
    finally:
        c.down()
