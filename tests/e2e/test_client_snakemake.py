# SPDX-License-Identifier: Apache-2.0
"""Debian's real snakemake 7.21 (/usr/bin/snakemake) and its --slurm
executor, unchanged, on a real Drover cluster.

snakemake drives the Slurm commands the way it drives a real Slurm 22.05:
it reads the default partition with `sinfo -o %P`, checks a given account
with `sacctmgr -n -s list user USER format=account%20` or guesses one with
`sacct -nu USER -o Account%20`, submits each rule with
`sbatch -J ... -o .snakemake/slurm_logs/rule_R/%j.log --export=ALL -A ...
-p ... -t MIN --mem MB --cpus-per-task=N -D DIR --wrap=...`, takes the job
id as the last word of what sbatch prints, polls
`sacct -P -n --format=JobIdRaw,State -j ID` (`scontrol show jobid -dd ID`
while sacct has no row), and inside the job runs the rule with
`srun -n1 --cpu-bind=q python3 -m snakemake ...`.

Three tests run a three-rule workflow (one rule needs another's output,
one asks for threads, mem_mb and runtime) and check what Drover did: the
outputs and what the jobs saw of their allocation, the Slurm log files
where snakemake asked for them, and the jobs in sacct afterwards.  The
last interrupts snakemake, which then cancels its running job with
`scancel ID`.
"""

import os
import pwd
import re
import signal
import subprocess
from pathlib import Path

import pytest

from cluster import require

SNAKEMAKE = "/usr/bin/snakemake"
SNAKEMAKE_TIMEOUT = 600        # the whole workflow, three jobs in turn

# The commands snakemake's --slurm executor and its job step run.
USED = ("sbatch", "sacct", "sacctmgr", "sinfo", "scontrol", "squeue",
        "scancel", "srun")

SNAKEFILE = r'''
localrules: all

rule all:
    input: "result.txt", "hello.txt"

rule make_data:
    output: data="data.txt", alloc="alloc.txt"
    threads: 2
    resources: mem_mb=300, runtime=7
    shell:
        "printf 'alpha\\nbeta\\ngamma\\n' > {output.data}; "
        "echo cpus=$SLURM_CPUS_PER_TASK mem=$SLURM_MEM_PER_NODE "
        "account=$SLURM_JOB_ACCOUNT step=$SLURM_STEP_ID "
        "job=$SLURM_JOB_ID > {output.alloc}"

rule count:
    input: "data.txt"
    output: "result.txt"
    resources: runtime=3
    shell: "wc -l < {input} > {output}; tr a-z A-Z < {input} >> {output}"

rule hello:
    output: "hello.txt"
    shell: "echo hello from $SLURM_JOB_ID > {output}"
'''

RULES = ("make_data", "count", "hello")


def snakemake_env(cluster, wd, user=None):
    """What snakemake needs beside the cluster's environment: a cache
    directory it may write, and USER (its account checks name it).  An
    ordinary user keeps the HOME that runuser gives."""
    env = {"XDG_CACHE_HOME": str(wd / ".cache")}
    if user is None:
        home = wd / "home"
        home.mkdir(exist_ok=True)
        env.update(HOME=str(home), USER=cluster.user, LOGNAME=cluster.user)
    return env


def check_commands(cluster):
    require(os.access(SNAKEMAKE, os.X_OK), f"{SNAKEMAKE} (Debian's "
            "snakemake) is not installed")
    for name in USED:
        path = cluster.which(name)
        assert path and path.parent == cluster.bin_dir.resolve(), \
            f"snakemake would run {path} for {name}, not Drover's"


def snakemake_args(*args):
    # snakemake 7.21 turns any rate above 1 (the default is 10) into one
    # sacct every 33 s; 1 a second keeps the test short.
    return (SNAKEMAKE, "--slurm", "--jobs", "3", "--latency-wait", "30",
            "--max-status-checks-per-second", "1", "--printshellcmds", *args)


def submitted(log):
    """{rule: Slurm job id} from snakemake's 'Job N has been submitted
    with SLURM jobid J (log: .snakemake/slurm_logs/rule_R/J.log)' lines."""
    found = {}
    for m in re.finditer(r"has been submitted with SLURM jobid (\S+) \(log: "
                         r"\.snakemake/slurm_logs/rule_(\w+)/(\S+)\.log\)",
                         log):
        assert m.group(1) == m.group(3), m.group(0)
        found[m.group(2)] = m.group(1)
    return found


def workflow_dir(base, snakefile, user=None):
    """A fresh directory under 'base' holding the Snakefile, owned by
    'user' when one is given."""
    wd = Path(base) / "wf"
    wd.mkdir()
    (wd / "Snakefile").write_text(snakefile)
    if user is not None:
        pw = pwd.getpwnam(user)
        for p in (wd, wd / "Snakefile"):
            os.chown(p, pw.pw_uid, pw.pw_gid)
    return wd


def run_workflow(cluster, base, *args, user=None):
    """Run the workflow in a fresh directory under 'base' (as 'user', or
    as the test's user); check its outputs and return ({rule: job id},
    the directory, snakemake's output, what make_data saw of its
    allocation)."""
    check_commands(cluster)
    wd = workflow_dir(base, SNAKEFILE, user)
    r = cluster.run(*snakemake_args(*args), user=user, cwd=wd,
                    env=snakemake_env(cluster, wd, user),
                    timeout=SNAKEMAKE_TIMEOUT)
    log = r.stdout + r.stderr
    assert r.returncode == 0, f"snakemake failed ({r.returncode}):\n{log}"
    jobs = submitted(log)
    assert sorted(jobs) == sorted(RULES), log
    assert len(set(jobs.values())) == len(RULES), jobs

    assert (wd / "data.txt").read_text() == "alpha\nbeta\ngamma\n"
    assert (wd / "result.txt").read_text() == "3\nALPHA\nBETA\nGAMMA\n"
    assert (wd / "hello.txt").read_text() == \
        f"hello from {jobs['hello']}\n"
    # The rule's shell ran in srun's step 0 of its job, with the
    # allocation snakemake asked for.
    alloc = dict(kv.split("=", 1)
                 for kv in (wd / "alloc.txt").read_text().split())
    assert alloc["cpus"] == "2", alloc
    assert alloc["mem"] == "300", alloc
    assert alloc["step"] == "0", alloc
    assert alloc["job"] == jobs["make_data"], alloc
    for rule, job in jobs.items():
        slurm_log = wd / ".snakemake" / "slurm_logs" / f"rule_{rule}" / \
            f"{job}.log"
        assert slurm_log.is_file(), f"no Slurm log {slurm_log}"
        if user is not None:
            assert slurm_log.stat().st_uid == pwd.getpwnam(user).pw_uid
    return jobs, wd, log, alloc


def check_sacct(cluster, jobs, account, user="root"):
    """Every job, and its batch and srun steps, is COMPLETED in sacct,
    under 'account' and 'user', with the resources snakemake asked for."""
    ids = ",".join(jobs.values())

    def rows():
        r = cluster.run("sacct", "-P", "-n", "-j", ids, "-o",
                        "JobIDRaw,JobName,Account,Partition,State,ExitCode,"
                        "AllocCPUS,ReqMem,Timelimit,User", check=True)
        return [line.split("|") for line in r.stdout.splitlines()]

    def settled():
        got = rows()
        ended = {row[0] for row in got if row[4] == "COMPLETED"}
        want = {f"{j}{s}" for j in jobs.values() for s in ("", ".batch",
                                                           ".0")}
        return got if want <= ended else None

    got = cluster.wait_until(settled, 60, "every job and step COMPLETED "
                             "in sacct")
    by_id = {row[0]: row for row in got}
    for rule, job in jobs.items():
        row = by_id[job]
        assert row[1].startswith(f"snakejob_{rule}_"), row
        assert row[2] == account, row
        assert row[3] == "debug", row
        assert row[5] == "0:0", row
        assert row[9] == user, row
        assert by_id[f"{job}.batch"][2] == account
        assert by_id[f"{job}.0"][4] == "COMPLETED"
    make = by_id[jobs["make_data"]]
    assert make[6] == "2" and make[7] == "300M" and make[8] == "00:07:00", \
        make
    assert by_id[jobs["count"]][8] == "00:03:00"
    # What snakemake itself polls with: one line per job and step.
    for job in jobs.values():
        r = cluster.run("sacct", "-P", "-n", "--format=JobIdRaw,State",
                        "-j", job, check=True)
        states = dict(line.split("|") for line in r.stdout.splitlines())
        assert states == {job: "COMPLETED", f"{job}.batch": "COMPLETED",
                          f"{job}.0": "COMPLETED"}, r.stdout


SMALL = [{"nodes": 2, "gpus_per_node": 0}]


@pytest.mark.parametrize("cluster", SMALL, indirect=True)
def test_snakemake_runs_a_workflow_with_account_root(cluster, tmp_path):
    """--default-resources slurm_account=root: snakemake checks the
    account with sacctmgr, then passes -A root."""
    jobs, wd, log, alloc = run_workflow(
        cluster, tmp_path, "--default-resources", "slurm_account=root")
    assert alloc["account"] == "root"
    check_sacct(cluster, jobs, "root")


@pytest.mark.parametrize("cluster", SMALL, indirect=True)
def test_snakemake_runs_a_workflow_without_an_account(cluster, tmp_path):
    """No account given: snakemake guesses one from the user's jobs in
    sacct; on a fresh cluster there are none, so it submits without -A and
    the jobs get root's default account.  A second run then guesses root
    from the first run's jobs."""
    jobs, wd, log, alloc = run_workflow(cluster, tmp_path)
    assert "Unable to guess SLURM account" in log, log
    assert alloc["account"] == "root"
    check_sacct(cluster, jobs, "root")

    again = tmp_path / "again"
    again.mkdir()
    jobs2, wd2, log2, _ = run_workflow(cluster, again)
    assert "Guessed SLURM account: root" in log2, log2
    assert not set(jobs2.values()) & set(jobs.values())
    check_sacct(cluster, jobs2, "root")


@pytest.mark.parametrize("cluster", SMALL, indirect=True)
def test_snakemake_runs_a_workflow_under_an_added_account(cluster,
                                                           test_user):
    """An account made with sacctmgr and an association for the ordinary
    user who runs snakemake: sacctmgr lists it for them, the jobs run as
    them and are charged to it."""
    cluster.run("sacctmgr", "-i", "add", "account", "genomics",
                "Description=snakemake test", "Organization=lab",
                check=True)
    cluster.run("sacctmgr", "-i", "add", "user", test_user,
                "account=genomics", check=True)
    # What snakemake runs to check the account, as that user.
    r = cluster.run("sacctmgr", "-n", "-s", "list", "user", test_user,
                    "format=account%20", user=test_user, check=True)
    assert r.stdout == f"{'genomics':>20} \n", repr(r.stdout)
    base = cluster.user_workdir(test_user)
    jobs, wd, log, alloc = run_workflow(
        cluster, base, "--default-resources", "slurm_account=genomics",
        user=test_user)
    assert alloc["account"] == "genomics"
    assert (wd / "data.txt").stat().st_uid == pwd.getpwnam(test_user).pw_uid
    check_sacct(cluster, jobs, "genomics", user=test_user)


@pytest.mark.parametrize("cluster", SMALL, indirect=True)
def test_snakemake_interrupted_cancels_its_job(cluster, tmp_path):
    """Ctrl-C: snakemake runs `scancel ID` for each of its jobs; the job
    ends CANCELLED in sacct and leaves the queue."""
    check_commands(cluster)
    wd = workflow_dir(tmp_path, SLOW_SNAKEFILE)
    out = wd / "snakemake.out"
    with open(out, "w") as f:
        p = subprocess.Popen(snakemake_args(), cwd=wd, stdout=f,
                             stderr=subprocess.STDOUT,
                             env=dict(cluster.env,
                                      **snakemake_env(cluster, wd)))
    try:
        def running():
            jobs = submitted(out.read_text())
            if "slow" not in jobs:
                return None
            r = cluster.run("squeue", "-h", "-j", jobs["slow"], "-o", "%T")
            return jobs["slow"] if r.stdout.strip() == "RUNNING" else None

        job = cluster.wait_until(running, 120, "snakemake's job RUNNING")
        # the rule itself has started inside the job
        cluster.wait_until((wd / "started").exists, 120, "the rule started")
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=180)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    log = out.read_text()
    assert rc != 0, log
    assert "Terminating processes on user request" in log, log

    def states():
        r = cluster.run("sacct", "-P", "-n", "--format=JobIdRaw,State",
                        "-j", job, check=True)
        got = dict(line.split("|") for line in r.stdout.splitlines())
        return got if got.get(f"{job}.batch") == "CANCELLED" else None

    got = cluster.wait_until(states, 60, "the job CANCELLED in sacct")
    assert got[job] == "CANCELLED by 0", got
    r = cluster.run("squeue", "-h", "-j", job, "-o", "%i", check=True)
    assert r.stdout == "", r.stdout
    assert not (wd / "slow.txt").exists()


SLOW_SNAKEFILE = r'''
rule slow:
    output: "slow.txt"
    resources: runtime=10
    shell: "touch started; sleep 600; touch {output}"
'''
