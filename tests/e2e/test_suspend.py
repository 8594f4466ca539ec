# SPDX-License-Identifier: Apache-2.0
"""scontrol suspend/resume (issue 11): a suspended job's processes really
stop on every node (batch script and srun steps), it keeps its nodes,
shows SUSPENDED/S with Slurm's fields and messages, resumes where it was,
and its time suspended counts neither in RunTime nor against its time
limit; a suspended job can still be cancelled."""
import time

import pytest

TICKER = ('srun -N2 bash -c "for i in \\$(seq 600); do echo tick '
          '\\$SLURM_PROCID \\$i; sleep 0.2; done"')


def proc_state(pid):
    """The one-letter state of /proc/PID/stat (T: stopped), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def ticks(path):
    """How many lines each rank printed: {rank: count}."""
    counts = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "tick":
            counts[parts[1]] = counts.get(parts[1], 0) + 1
    return counts


def show(c, job, key):
    return c.job_field(job, key)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_suspend_stops_every_process_and_resume_goes_on(cluster, make_user):
    c = cluster
    user = make_user("drsusp1")
    out = c.user_workdir(user) / "ticks.out"
    job = c.sbatch("-N2", "-o", str(out), "--wrap", TICKER, user=user)
    c.wait_until(lambda: out.exists() and len(ticks(out)) == 2
                 and min(ticks(out).values()) >= 10, 30,
                 "both ranks ticking for two seconds")

    # only an operator suspends (Slurm's text and exit code)
    r = c.run("scontrol", "suspend", job, user=user)
    assert (r.returncode, r.stderr) == (
        1, f"Access/permission denied for job {job}\n")
    r = c.run("scontrol", "suspend", job)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    time.sleep(0.5)
    pids = c.job_pids(job)
    assert len(pids) >= 3  # the script, and a task on each node at least
    c.wait_until(lambda: all(proc_state(p) in ("T", None) for p in pids),
                 10, "every process of the job stopped")
    before = ticks(out)
    time.sleep(2)
    assert ticks(out) == before  # nothing ran on either node
    q = c.run("squeue", "-h", "-j", job, "-o", "%t %D %N", check=True)
    assert q.stdout.split()[:2] == ["S", "2"]  # keeps its two nodes
    assert show(c, job, "JobState") == "SUSPENDED"
    assert show(c, job, "Priority") == "0"
    assert int(show(c, job, "SecsPreSuspend")) >= 1
    assert show(c, job, "SuspendTime") != "None"
    used = show(c, job, "RunTime")

    r = c.run("scontrol", "resume", job)
    assert (r.returncode, r.stderr) == (0, "")
    r = c.run("scontrol", "resume", job)
    assert (r.returncode, r.stderr) == (
        1, f"Job is not suspended for job {job}\n")
    c.wait_until(lambda: all(n > before[k] + 3 for k, n in ticks(out).items()),
                 15, "both ranks ticking again")
    assert show(c, job, "JobState") == "RUNNING"
    # two seconds and more were suspended: RunTime left them out
    h, m, s = (int(x) for x in show(c, job, "RunTime").split(":"))
    h0, m0, s0 = (int(x) for x in used.split(":"))
    assert (h * 3600 + m * 60 + s) - (h0 * 3600 + m0 * 60 + s0) <= 2
    c.run("scancel", job, check=True)
    c.wait_job_done(job, timeout=30)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_suspended_time_does_not_count_against_the_limit(cluster, make_user):
    c = cluster
    user = make_user("drsusp1")
    job = c.sbatch("-o", "/dev/null", "--wrap", "sleep 120", user=user)
    c.wait_job_state(job, "RUNNING", timeout=30)
    c.run("scontrol", "update", f"JobId={job}", "TimeLimit=0:08", check=True)
    c.run("scontrol", "suspend", job, check=True)
    time.sleep(10)
    assert show(c, job, "JobState") == "SUSPENDED"
    c.run("scontrol", "resume", job, check=True)
    time.sleep(1)
    assert show(c, job, "JobState") == "RUNNING"  # 10 s past its 8 s
    c.wait_job_state(job, "TIMEOUT", timeout=20)
    # sacct: Elapsed leaves the suspended time out, Suspended shows it
    def acct():
        out = c.run("sacct", "-X", "-n", "-P", "-j", job, "-o",
                    "State,ElapsedRaw,Suspended").stdout.split("|")
        return out if out[0] == "TIMEOUT" else None
    state, elapsed, suspended = c.wait_until(acct, 30, "sacct: TIMEOUT")
    assert 8 <= int(elapsed) <= 12
    assert "00:00:10" <= suspended.strip() <= "00:00:12"


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_cancel_a_suspended_job(cluster, make_user):
    c = cluster
    user = make_user("drsusp1")
    job = c.sbatch("-o", "/dev/null", "--wrap",
                   "srun bash -c 'trap \"\" TERM; sleep 300'", user=user)
    c.wait_until(lambda: len(c.job_pids(job, steps_only=True)) > 0, 30,
                 "the step's task")
    c.run("scontrol", "suspend", job, check=True)
    r = c.run("scontrol", "suspend", job)
    assert (r.returncode, r.stderr) == (1, f"Job is not running for job {job}\n")
    c.run("scancel", job, check=True)
    c.wait_job_state(job, "CANCELLED", timeout=60)
    c.wait_until(lambda: not c.job_pids(job), 30, "no process of the job left")
