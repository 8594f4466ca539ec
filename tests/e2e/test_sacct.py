# SPDX-License-Identifier: Apache-2.0
"""sacct (issue 5): accounting records of real jobs, read back from
droverdbd through the real command.

The first tests need no accounting daemon (option errors, the version, an
unreachable or disabled database).  The others run jobs and read their
records on both backends (SQLite and PostgreSQL)."""
import datetime
import json
import os
import re
import socket
import sqlite3
import time

import pytest

ONE_NODE = [1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def conf_with_accounting(cluster, tmp_path, lines):
    """A copy of the cluster's slurm.conf (and gres.conf) whose
    AccountingStorage* keys are replaced by 'lines'; its path."""
    kept = [line for line in cluster.conf.read_text().splitlines()
            if not line.strip().lower().startswith("accountingstorage")]
    conf = tmp_path / "slurm.conf"
    conf.write_text("\n".join(kept + lines) + "\n")
    gres = cluster.conf.parent / "gres.conf"
    if gres.exists():
        (tmp_path / "gres.conf").write_text(gres.read_text())
    return str(conf)


# --- without droverdbd ---------------------------------------------------


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_rejects_an_unknown_field_as_slurm_does(cluster):
    r = cluster.run("sacct", "-o", "JobID,NoSuchField")
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == 'sacct: error: Invalid field requested: "NoSuchField"\n'


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_version_and_helpformat(cluster):
    r = cluster.run("sacct", "--version", check=True)
    assert r.stdout.splitlines()[0] == "slurm 22.05.8"
    r = cluster.run("sacct", "--helpformat", check=True)
    names = r.stdout.split()
    for field in ("JobID", "JobIDRaw", "State", "ExitCode", "AllocTRES",
                  "MaxRSS", "TotalCPU", "Elapsed", "NTasks", "WorkDir"):
        assert field in names


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_reports_an_unreachable_database(cluster, tmp_path):
    port = free_port()
    conf = conf_with_accounting(cluster, tmp_path, [
        "AccountingStorageType=accounting_storage/slurmdbd",
        "AccountingStorageHost=127.0.0.1",
        f"AccountingStoragePort={port}"])
    r = cluster.run("sacct", env={"DROVER_CONF": conf})
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.splitlines()[-1] == (
        "sacct: error: Problem talking to the database: Connection refused")


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_without_accounting_storage_says_it_is_disabled(cluster,
                                                              tmp_path):
    conf = conf_with_accounting(
        cluster, tmp_path, ["AccountingStorageType=accounting_storage/none"])
    r = cluster.run("sacct", env={"DROVER_CONF": conf})
    assert r.returncode == 1
    assert r.stderr == "sacct: error: Slurm accounting storage is disabled\n"


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_rejects_bad_job_ids_and_states(cluster):
    r = cluster.run("sacct", "-j", "abc")
    assert r.returncode == 1
    assert r.stderr == "sacct: fatal: Bad job/step specified: abc\n"
    r = cluster.run("sacct", "-s", "nosuch")
    assert r.returncode == 1
    assert r.stderr == "sacct: fatal: unrecognized job state value\n"


# --- with droverdbd ------------------------------------------------------


def sacct_lines(cluster, *args):
    r = cluster.run("sacct", "-P", "-n", *args, check=True)
    return r.stdout.splitlines()


def wait_recorded(cluster, job_id, state, timeout=60):
    """Wait until droverdbd has the job's record in 'state' (events reach
    it asynchronously from the controller)."""
    def recorded():
        lines = sacct_lines(cluster, "-X", "-j", job_id, "-o", "JobID,State")
        return any(line.split("|")[1].startswith(state) for line in lines)
    cluster.wait_until(recorded, timeout=timeout,
                       what=f"sacct showing job {job_id} {state}")


def submit(cluster, tmp_path, *args):
    return cluster.sbatch("-o", "/dev/null", *args, cwd=tmp_path)


def test_sacct_shows_states_and_exit_codes_of_finished_jobs(acct_cluster,
                                                            tmp_path):
    cluster = acct_cluster  # SQLite and PostgreSQL
    ok = submit(cluster, tmp_path, "-J", "ok", "--wrap", "true")
    fail3 = submit(cluster, tmp_path, "-J", "fail3", "--wrap", "exit 3")
    tmo = submit(cluster, tmp_path, "-J", "tmo", "--time=0:02", "--wrap",
                 "sleep 60")
    cancel = submit(cluster, tmp_path, "-J", "cancelme", "--wrap", "sleep 60")
    # a script that traps SIGTERM and exits 3 when cancelled
    trap = submit(cluster, tmp_path, "-J", "trap", "--wrap",
                  "trap 'exit 3' TERM; touch trapping; sleep 60 & wait")
    cluster.wait_job_state(cancel, ["RUNNING"], timeout=30)
    cluster.run("scancel", cancel, check=True)
    cluster.wait_until(lambda: (tmp_path / "trapping").exists(), 30,
                       "the trap set")
    cluster.run("scancel", trap, check=True)
    for job, state in ((ok, "COMPLETED"), (fail3, "FAILED"),
                       (tmo, "TIMEOUT"), (cancel, "CANCELLED"),
                       (trap, "CANCELLED")):
        wait_recorded(cluster, job, state)
    # the batch step carries the script's own status, as Slurm's (the
    # job's record may say CANCELLED before its end is recorded: wait)
    uid = cluster.run("id", "-u", check=True).stdout.strip()
    for job, code in ((trap, "3:0"), (cancel, "0:15")):
        want = [f"{job}|CANCELLED by {uid}|{code}",
                f"{job}.batch|CANCELLED|{code}"]
        cluster.wait_until(lambda: sacct_lines(
            cluster, "-j", job, "-o", "JobID,State,ExitCode") == want, 30,
            f"sacct: {want}")

    ids = ",".join([ok, fail3, tmo, cancel])
    lines = sacct_lines(cluster, "-j", ids, "-o", "JobID,State,ExitCode")
    uid = cluster.run("id", "-u", check=True).stdout.strip()
    assert f"{ok}|COMPLETED|0:0" in lines
    assert f"{ok}.batch|COMPLETED|0:0" in lines
    assert f"{fail3}|FAILED|3:0" in lines
    assert f"{fail3}.batch|FAILED|3:0" in lines
    assert f"{tmo}|TIMEOUT|0:0" in lines
    assert f"{tmo}.batch|CANCELLED|0:15" in lines

    # -X: the allocations only, no steps.
    lines = sacct_lines(cluster, "-X", "-j", ids, "-o", "JobID")
    assert lines == [ok, fail3, tmo, cancel]

    # -s filters by state (with -S so the window covers today).
    lines = sacct_lines(cluster, "-X", "-s", "F,TO", "-S", "today",
                        "-o", "JobID")
    assert sorted(lines) == sorted([fail3, tmo])


def test_sacct_default_columns_and_json(acct_cluster, tmp_path):
    cluster = acct_cluster  # SQLite and PostgreSQL
    job = submit(cluster, tmp_path, "-J", "hello", "--wrap", "true")
    wait_recorded(cluster, job, "COMPLETED")
    r = cluster.run("sacct", check=True)
    header, rule, *rows = r.stdout.splitlines()
    assert header.split() == ["JobID", "JobName", "Partition", "Account",
                              "AllocCPUS", "State", "ExitCode"]
    assert set(rule.replace(" ", "")) == {"-"}
    mine = [row.split() for row in rows if row.split()[0] == job]
    assert mine and mine[0][1] == "hello" and mine[0][-2:] == ["COMPLETED",
                                                                "0:0"]
    assert any(row.split()[0] == f"{job}.batch" for row in rows)

    doc = json.loads(cluster.run("sacct", "--json", "-j", job,
                                 check=True).stdout)
    jobs = doc["jobs"]
    assert [j["job_id"] for j in jobs] == [int(job)]
    assert jobs[0]["name"] == "hello"
    assert jobs[0]["state"]["current"] == "COMPLETED"
    assert jobs[0]["steps"][0]["step"]["name"] == "batch"


def test_sacct_lists_array_tasks_as_job_underscore_task(acct_cluster, tmp_path):
    cluster = acct_cluster  # SQLite and PostgreSQL
    job = submit(cluster, tmp_path, "--array=0-1", "--wrap", "true")
    wait_recorded(cluster, f"{job}_1", "COMPLETED")
    wait_recorded(cluster, f"{job}_0", "COMPLETED")
    lines = sacct_lines(cluster, "-j", job, "-o", "JobID,State")
    assert f"{job}_0|COMPLETED" in lines
    assert f"{job}_1|COMPLETED" in lines
    assert f"{job}_0.batch|COMPLETED" in lines
    assert all(re.match(rf"{job}_[01](\.batch)?\|", line) for line in lines)


def test_names_comments_and_paths_come_back_unchanged(acct_cluster,
                                                      tmp_path):
    """SQL is parameterised: a job named like an injection, a comment with
    quotes and unicode, a working directory with spaces and quotes, all
    submitted with sbatch, come back from sacct byte for byte."""
    cluster = acct_cluster  # SQLite and PostgreSQL
    name = "'; DROP TABLE job; --"
    comment = 'say "hi" it\'s ünïcødé ✓ 日本語'
    work = tmp_path / "dir with 'quotes' and spaces"
    work.mkdir()
    os.chmod(work, 0o777)
    job = cluster.sbatch("-J", name, "--comment", comment, "-o", "/dev/null",
                         "--wrap", "true", cwd=work)
    wait_recorded(cluster, job, "COMPLETED")
    r = cluster.run("sacct", "-X", "-n", "-P", "-j", job, "-o",
                    "JobName,Comment,WorkDir", check=True)
    assert r.stdout == f"{name}|{comment}|{work}\n"
    later = cluster.sbatch("-o", "/dev/null", "--wrap", "true", cwd=work)
    wait_recorded(cluster, later, "COMPLETED")   # the tables are still there


def test_every_step_of_a_long_job_is_recorded(acct_cluster, tmp_path):
    """Each accounting record carries the steps that changed since the
    last one (issue 10: a job's N steps cost O(N), not O(N^2)); droverdbd
    keeps the earlier ones, so sacct still lists every step with its own
    state and exit code, and the job's DerivedExitCode."""
    cluster = acct_cluster
    job = submit(cluster, tmp_path, "--wrap",
                 "for i in $(seq 30); do srun -n1 true; done; "
                 "srun -n1 bash -c 'exit 4' || true; srun -n1 true")
    wait_recorded(cluster, job, "COMPLETED")
    lines = sacct_lines(cluster, "-j", job, "-o", "JobID,State,ExitCode")
    want = [f"{job}|COMPLETED|0:0", f"{job}.batch|COMPLETED|0:0"]
    want += [f"{job}.{i}|COMPLETED|0:0" for i in range(30)]
    want += [f"{job}.30|FAILED|4:0", f"{job}.31|COMPLETED|0:0"]
    assert sorted(lines) == sorted(want)
    derived = sacct_lines(cluster, "-X", "-j", job, "-o", "DerivedExitCode")
    assert derived == ["4:0"]


# --- issue 13: every option of Slurm 22.05's sacct ------------------------

GOLDEN = (os.path.dirname(os.path.abspath(__file__))
          + "/../unit/data/slurm-golden")


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_help_is_slurms_and_missing_data_is_refused(cluster):
    for args, golden in ((["--help"], "help-sacct"),
                         (["--usage"], "usage-sacct")):
        r = cluster.run("sacct", *args)
        assert r.returncode == 0
        with open(f"{GOLDEN}/{golden}.stdout") as f:
            assert r.stdout == f.read()
    refused = {
        ("-B", "-j", "1"): "--batch-script is not supported by Drover: "
                           "droverdbd does not store batch scripts",
        ("--env-vars", "-j", "1"): "--env-vars is not supported by Drover: "
                                   "droverdbd does not store job environments",
        ("-f", "/tmp/x"): "--file is not supported by Drover",
        ("-W", "k"): "--wckeys is not supported by Drover: jobs carry no "
                     "wckey",
        ("--yaml",): "--yaml is not supported by Drover",
        ("-M", "elsewhere"): '--clusters: Drover has one cluster, "drover"; '
                             'not "elsewhere"',
        ("--whole-hetjob=maybe",): 'Invalid --whole-hetjob value "maybe". '
                                   'Valid values: [yes|no].',
        ("-i", "x"): "invalid node range -i 'x'",
        ("-I", "3-1"): "invalid cpu range -i '3-1'",
        ("-N", "node[01"): "Invalid node list -N 'node[01'",
        ("-g", "no_such_group_x"): "Invalid group id: no_such_group_x",
        ("-k", "bad"): "Invalid time limit specification",
        ("-x", "a"): "Invalid association id: a",
    }
    for args, text in refused.items():
        r = cluster.run("sacct", *args)
        assert r.returncode == 1, (args, r.stderr)
        assert r.stdout == ""
        assert text in r.stderr, (args, r.stderr)
    r = cluster.run("sacct", "-c")
    assert (r.returncode, r.stderr) == (1, "Slurm job completion is "
                                           "disabled\n")


def jobs_of(cluster, *args):
    """The job ids sacct -X lists with 'args' (whole day's window)."""
    return set(sacct_lines(cluster, "-X", "-S", "today", "-o", "JobID",
                           *args))


TWO_NODES = {"nodes": 2, "gpus_per_node": 0}


@pytest.mark.parametrize("cluster", [TWO_NODES], indirect=True)
def test_sacct_filters_run_in_droverdbd(cluster, tmp_path):
    c = cluster
    one = submit(c, tmp_path, "-w", "node01", "-n1", "--qos=high", "-t", "10",
                 "--wrap", "true")
    two = submit(c, tmp_path, "-w", "node02", "-n3", "--qos=low", "-t", "30",
                 "--wrap", "true")
    both = submit(c, tmp_path, "-N2", "-n2", "-t", "1:00:00", "--wrap",
                  "true")
    for job in (one, two, both):
        wait_recorded(c, job, "COMPLETED")
    assert jobs_of(c) >= {one, two, both}
    mine = {one, two, both}

    def sel(*args):
        return jobs_of(c, *args) & mine

    assert sel("-N", "node01") == {one, both}
    assert sel("--nodelist=node02") == {two, both}
    assert sel("-N", "node[01-02]") == mine
    assert sel("-q", "high") == {one}
    assert sel("--qos=low,high") == {one, two}
    assert sel("-i", "2") == {both}
    assert sel("--nnodes=1") == {one, two}
    assert sel("-i", "1-2") == mine
    assert sel("-I", "3") == {two}
    assert sel("--ncpus=1-2") == {one, both}
    assert sel("-k", "10") == {one}
    assert sel("-k", "20", "-K", "1:00:00") == {two, both}
    assert sel("--timelimit-max=10") == mine      # ignored by itself
    gid = str(os.getgid())
    assert sel("-g", gid) == mine
    assert sel("--group", "65534") == set()
    assert sel("-L") == mine and sel("-M", "drover") == mine
    assert sel("--local") == mine and sel("--federation") == mine
    assert sel("--whole-hetjob") == mine and sel("--whole-hetjob=no") == mine
    assert sel("-u", str(os.geteuid())) == mine
    assert sel("--uid", "-1") == mine

    # -x: the association the job ran under (droverdbd's own ids).
    db = sqlite3.connect(f"file:{c.dir}/state/acct.sqlite?mode=ro",
                         uri=True)
    ids = [str(row[0]) for row in db.execute("SELECT id FROM assoc")]
    db.close()
    assert sel("-x", ",".join(ids)) == mine
    assert sel("--associations", "999999") == set()


@pytest.mark.parametrize("cluster", ONE_NODE, indirect=True)
def test_sacct_truncate_and_verbose(cluster, tmp_path):
    c = cluster
    job = submit(c, tmp_path, "--wrap", "sleep 300")
    c.wait_job_state(job, ["RUNNING"], timeout=30)
    wait_recorded(c, job, "RUNNING")
    start = sacct_lines(c, "-X", "-j", job, "-o", "Start")[0]
    started = datetime.datetime.fromisoformat(start)
    lo = (started + datetime.timedelta(seconds=1)).isoformat()
    hi = (datetime.datetime.now() + datetime.timedelta(hours=1)).replace(
        microsecond=0).isoformat()
    time.sleep(2)
    window = ("-X", "-j", job, "-S", lo, "-E", hi, "-o", "Start,End")
    assert sacct_lines(c, *window) == [f"{start}|Unknown"]
    assert sacct_lines(c, "-T", *window) == [f"{lo}|{hi}"]
    steps = sacct_lines(c, "--truncate", "-j", job, "-S", lo, "-E", hi,
                        "-o", "JobID,Start")
    assert f"{job}|{lo}" in steps and f"{job}.batch|{lo}" in steps
    r = c.run("sacct", "-v", "-n", "-X", "-j", job, "-S",
              "2026-01-02T03:04:05", check=True)
    assert r.stderr.splitlines()[0] == (
        "sacct: Jobs eligible from Fri Jan  2 03:04:05 2026 - Now")
    r = c.run("sacct", "-vvv", "-n", "-X", "-S", "2026-01-02T03:04:05",
              "-E", "2026-01-03T00:00:00", "-u", "root", check=True)
    assert r.stderr.splitlines() == [
        "sacct: Jobs eligible from Fri Jan  2 03:04:05 2026 - "
        "Sat Jan  3 00:00:00 2026",
        "sacct: debug2: Clusters requested:\tdrover",
        "sacct: debug2: Userids requested:",
        "sacct: debug2: \t: 0"]
    c.run("scancel", job, check=True)
