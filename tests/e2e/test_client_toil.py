# SPDX-License-Identifier: Apache-2.0
"""Debian's real Toil (toil 5.9, /usr/bin/python3) with --batchSystem slurm
against a real local Drover cluster, unchanged.

Toil's slurm batch system drives the cluster only through the commands:
`sbatch -J toil_job_N_NAME --export=ALL,K=V... --mem=M --cpus-per-task=C
-o F -e F --wrap=CMD` (it reads the id from 'Submitted batch job N'),
`squeue -h --format '%i %t %M'`, `sacct -n -j IDS --format
JobIDRaw,State,ExitCode -P -S 1970-01-01` (its answer decides when a job
is done and with which exit code), `scontrol show job ID` when sacct
fails, `scontrol show config` (SchedulerTimeSlice, AcctGatherNodeFreq:
the polling interval) and `scancel ID`.  These tests run a small workflow
through all of it, then check the result, the files the jobs wrote and
the jobs' sacct rows; and they call Toil's own parsers on Drover's
answers.
"""

import json
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from cluster import require

PYTHON = "/usr/bin/python3"  # Debian's python3-toil is for this one
TOIL_TIMEOUT = 300


def toil_available():
    if not Path("/usr/bin/_toil_worker").exists():
        return False
    r = subprocess.run([PYTHON, "-c", "import toil.batchSystems.slurm"],
                       capture_output=True, timeout=120)
    return r.returncode == 0


@pytest.fixture(scope="module")
def toil_installed():
    require(toil_available(),
            "Debian's toil (python3-toil: /usr/bin/_toil_worker and the "
            "toil module for /usr/bin/python3) is not installed")


WORKFLOW = textwrap.dedent('''\
    """Root job with two children and a follow-on that adds their values."""
    import os
    from toil.common import Toil
    from toil.job import Job

    SMALL = dict(memory="100M", cores=1, disk="10M")


    def write_child(job, path, text):
        with open(path, "w") as f:
            f.write(text + "\\n")
        return len(text)


    def summarise(job, outdir, a, b):
        with open(os.path.join(outdir, "total.txt"), "w") as f:
            f.write(f"{a + b}\\n")
        return a + b


    def root(job, outdir):
        a = job.addChildJobFn(write_child, os.path.join(outdir, "alpha.txt"),
                              "alpha", **SMALL)
        b = job.addChildJobFn(write_child, os.path.join(outdir, "beta.txt"),
                              "beta-beta", **SMALL)
        return job.addFollowOnJobFn(summarise, outdir, a.rv(), b.rv(),
                                    **SMALL).rv()


    if __name__ == "__main__":
        parser = Job.Runner.getDefaultArgumentParser()
        parser.add_argument("--outdir", required=True)
        options = parser.parse_args()
        with Toil(options) as toil:
            result = toil.start(Job.wrapJobFn(root, options.outdir, **SMALL))
        print(f"RESULT={result}")
    ''')

FAILING = textwrap.dedent('''\
    from toil.common import Toil
    from toil.job import Job


    def boom(job):
        raise RuntimeError("drover-e2e deliberate failure")


    if __name__ == "__main__":
        options = Job.Runner.getDefaultArgumentParser().parse_args()
        with Toil(options) as toil:
            toil.start(Job.wrapJobFn(boom, memory="100M", cores=1, disk="10M"))
    ''')

# Toil's own parsers, called on Drover's answers: the sacct path, the
# scontrol path (Toil's fallback when sacct fails), the running-jobs
# squeue path and the polling interval from `scontrol show config`.
PROBE = textwrap.dedent('''\
    import json, sys
    from toil.batchSystems.slurm import SlurmBatchSystem

    W = SlurmBatchSystem.Worker
    ids = [int(i) for i in sys.argv[1:]]


    class Boss:
        pass


    class FakeWorker:
        """What getRunningJobIDs() reads of its Worker."""
        import threading
        runningJobsLock = threading.Lock()
        runningJobs = set(range(len(ids)))
        batchJobIDs = {n: (i, None) for n, i in enumerate(ids)}
        parse_elapsed = W.parse_elapsed


    sacct = W._getJobDetailsFromSacct(None, ids)
    out = {
        "sacct": {str(k): v for k, v in sacct.items()},
        "rc": {str(k): W._get_job_return_code(None, v)
               for k, v in sacct.items()},
        "scontrol": {str(ids[0]): W._getJobDetailsFromScontrol(
            None, ids[:1])[ids[0]]},
        "scontrol_all": {str(k): v for k, v in
                         W._getJobDetailsFromScontrol(None, ids).items()},
        "running": {str(ids[k]): v for k, v in
                    W.getRunningJobIDs(FakeWorker()).items()},
        "wait": SlurmBatchSystem.getWaitDuration(),
    }
    print(json.dumps(out))
    ''')


def toil_env(cluster, tmp_path):
    """The cluster's environment for Toil: our commands first on PATH,
    then Debian's python3 (for `_toil_worker`, which the job scripts
    find on PATH); HOME and TMPDIR of the test's own."""
    home = tmp_path / "home"
    tmp = tmp_path / "tmp"
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    path = f"{cluster.bin_dir}:/usr/bin:/bin:/usr/sbin:/sbin"
    return {"PATH": path, "HOME": str(home), "TMPDIR": str(tmp),
            "TOIL_CHECK_ENV": "False"}


def run_toil(cluster, tmp_path, script_text, *args):
    """Run a Toil workflow script with --batchSystem slurm; returns the
    CompletedProcess."""
    script = tmp_path / "workflow.py"
    script.write_text(script_text)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = toil_env(cluster, tmp_path)
    for cmd in ("sbatch", "squeue", "sacct", "scontrol", "scancel"):
        found = subprocess.run(["sh", "-c", f"command -v {cmd}"],
                               env=dict(cluster.env, **env),
                               capture_output=True, text=True, timeout=30)
        assert found.stdout.strip() == str(cluster.bin_dir / cmd), \
            f"Toil would run {found.stdout.strip()!r}, not our {cmd}"
    return cluster.run(
        PYTHON, str(script), f"file:{tmp_path / 'jobstore'}",
        "--batchSystem", "slurm", "--workDir", str(work),
        "--disableCaching", "--retryCount", "0",
        # Toil polls sacct every statePollingWait seconds (by default
        # 1.2 x SchedulerTimeSlice = 36 s): poll each second instead.
        "--statePollingWait", "1", "--logLevel", "INFO", *args,
        cwd=tmp_path, env=env, timeout=TOIL_TIMEOUT)


def toil_jobs(cluster):
    """sacct rows (JobID, JobName, State, ExitCode) of Toil's jobs."""
    r = cluster.run("sacct", "-X", "-n", "-P", "-S", "1970-01-01",
                    "--format", "JobID,JobName,State,ExitCode", check=True)
    rows = [line.split("|") for line in r.stdout.splitlines()]
    return [row for row in rows if row[1].startswith("toil_job_")]


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_toil_workflow_runs_on_drover_and_its_jobs_complete_in_sacct(
        cluster, tmp_path, toil_installed):
    out = tmp_path / "out"
    out.mkdir()
    r = run_toil(cluster, tmp_path, WORKFLOW, "--outdir", str(out))
    assert r.returncode == 0, f"toil failed:\n{r.stdout}\n{r.stderr}"
    assert "RESULT=14" in r.stdout.splitlines(), r.stdout
    assert (out / "alpha.txt").read_text() == "alpha\n"
    assert (out / "beta.txt").read_text() == "beta-beta\n"
    assert (out / "total.txt").read_text() == "14\n"
    assert "Finished toil run successfully" in r.stderr

    # Every job of the workflow ran as a batch job of this cluster: root,
    # two children and the follow-on, each its own sbatch.
    jobs = toil_jobs(cluster)
    assert len(jobs) == 4, jobs
    for job_id, name, state, exit_code in jobs:
        assert re.fullmatch(r"toil_job_\d+_\S+", name), name
        assert (state, exit_code) == ("COMPLETED", "0:0"), (job_id, name)
    # Toil's -o/-e files, named with the job id (%j) Drover substituted.
    work_logs = sorted(p.name for p in (tmp_path / "work").iterdir()
                       if p.name.endswith(".log"))
    for job_id, *_ in jobs:
        assert any(f".{job_id}.out.log" in n for n in work_logs), work_logs
        assert any(f".{job_id}.err.log" in n for n in work_logs), work_logs
    # What Toil asked for, as it asked for it: memory="100M" is 10^8
    # bytes, which Toil rounds up to --mem=96 (MiB).
    rec = cluster.show_job(jobs[0][0])
    assert rec["MinMemoryNode"] == "96M"
    assert rec["NumCPUs"] == "1"


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_toil_reports_a_failed_job_with_its_exit_code(cluster, tmp_path,
                                                       toil_installed):
    r = run_toil(cluster, tmp_path, FAILING)
    assert r.returncode != 0
    assert "Job failed with exit value 1" in r.stderr, r.stderr
    assert "drover-e2e deliberate failure" in r.stderr
    jobs = toil_jobs(cluster)
    assert len(jobs) == 1, jobs
    assert jobs[0][2:] == ["FAILED", "1:0"]


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_toil_parses_drovers_sacct_scontrol_and_squeue_answers(
        cluster, tmp_path, toil_installed):
    done = cluster.sbatch("--wrap", "exit 3", cwd=tmp_path)
    cluster.wait_job_done(done)
    killed = cluster.sbatch("--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(killed, ("RUNNING",))
    running = cluster.sbatch("--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(running, ("RUNNING",))
    cluster.run("scancel", killed, check=True)
    cluster.wait_job_done(killed)

    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    r = cluster.run(PYTHON, str(probe), done, killed, running, cwd=tmp_path,
                    env=toil_env(cluster, tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    # (state, return code) as Toil reads them from sacct's State and
    # ExitCode (a signal s reads as 128 + s); a job that is still going
    # has no return code yet.
    assert got["sacct"] == {done: ["FAILED", 3],
                            killed: ["CANCELLED by 0", 128 + 15],
                            running: ["RUNNING", 0]}
    assert got["rc"] == {done: 3, killed: 128 + 15, running: None}
    assert got["scontrol"] == {done: ["FAILED", 3]}
    assert got["scontrol_all"][done] == ["FAILED", 3]
    assert got["scontrol_all"][running] == ["RUNNING", 0]
    assert got["scontrol_all"][killed] == ["CANCELLED", 128 + 15]
    # Only the running job is running, for a few seconds by now.
    assert list(got["running"]) == [running]
    assert 0 <= got["running"][running] < 120
    # SchedulerTimeSlice (30 s by default) x 1.2.
    assert got["wait"] == 36
    cluster.run("scancel", running, check=True)
