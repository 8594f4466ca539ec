# SPDX-License-Identifier: Apache-2.0
"""sreport (issue 5): usage reports from droverdbd's rollups, on SQLite
and PostgreSQL, after real jobs ran.

sreport asks droverdbd for acct_usage_report, which first rolls the hours
up (docs/protocol.md, "Usage reports"), so the jobs just finished count.
"""
import time
from datetime import datetime

import pytest


def sacct_rows(c, *args):
    r = c.run("sacct", "-a", "-X", "-P", "-n", *args, check=True)
    return [line.split("|") for line in r.stdout.splitlines()]


def run_jobs(c, tmp_path, count=3):
    ids = [c.sbatch("-c", "2", "-o", "/dev/null", "--wrap", "sleep 2",
                    cwd=tmp_path) for _ in range(count)]
    for job_id in ids:
        c.wait_job_done(job_id, timeout=60)

    def recorded():
        rows = sacct_rows(c, "-o", "JobID,State,Start,End,AllocCPUS")
        done = [r for r in rows if r[0] in ids and r[1] == "COMPLETED"]
        return done if len(done) == len(ids) else None
    return c.wait_until(recorded, timeout=60,
                        what="sacct showing the jobs COMPLETED")


def stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()


def hour_floor(t):
    return datetime.fromtimestamp(t - t % 3600).strftime("%Y-%m-%dT%H:%M:%S")


def report(c, *args):
    r = c.run("sreport", *args, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_cluster_utilization_counts_the_jobs_cpu_seconds(acct_cluster,
                                                         tmp_path):
    c = acct_cluster
    rows = run_jobs(c, tmp_path)
    want = sum((stamp(r[3]) - stamp(r[2])) * int(r[4]) for r in rows)
    first = min(stamp(r[2]) for r in rows)
    lines = report(c, "-P", "-t", "seconds", "cluster", "utilization",
                   f"start={hour_floor(first)}", "end=now+1hour")
    assert lines[0] == "-" * 80 and lines[3] == "-" * 80
    assert lines[1].startswith("Cluster Utilization ")
    assert lines[2] == "Usage reported in CPU Seconds"
    assert lines[4] == "Cluster|Allocated|Down|PLND Down|Idle|Planned|" \
                       "Reported"
    cluster, alloc, down, pdown, idle, planned, reported = \
        lines[5].split("|")
    assert cluster == c.conf_value("ClusterName")
    # Each job's Start/End are whole seconds: allow one second per end.
    assert abs(int(alloc) - want) <= 2 * 2 * len(rows), (alloc, want)
    # The jobs may wait for each other's CPUs: that is Planned time.
    assert (down, pdown) == ("0", "0")
    assert int(reported) == int(alloc) + int(idle) + int(planned)
    assert int(reported) > int(alloc)


def test_planned_counts_a_waiting_jobs_cpus(acct_cluster, tmp_path):
    """A job held back behind a blocker waits from its eligible time to its
    start: Slurm's Planned counts its requested CPUs over the wait (capped
    at the hour's idle time), and Allocated + Down + PLND Down + Idle +
    Planned = Reported, as in Slurm's sreport."""
    c = acct_cluster
    cpus = int(c.run("sinfo", "-h", "-o", "%c", check=True).stdout.split()[0])
    blocker = c.sbatch("-c", str(cpus), "-o", "/dev/null", "--wrap",
                       "sleep 6", cwd=tmp_path)
    c.wait_job_state(blocker, ["RUNNING"], timeout=60)
    waiter = c.sbatch("-c", "1", "-o", "/dev/null", "--wrap", "sleep 1",
                      cwd=tmp_path)
    for job_id in (blocker, waiter):
        c.wait_job_done(job_id, timeout=60)

    def recorded():
        rows = sacct_rows(c, "-o", "JobID,State,Eligible,Start,End")
        done = {r[0]: r for r in rows if r[1] == "COMPLETED"}
        return done if blocker in done and waiter in done else None
    done = c.wait_until(recorded, timeout=60,
                        what="sacct showing both jobs COMPLETED")
    wait = stamp(done[waiter][3]) - stamp(done[waiter][2])
    assert wait >= 3, done[waiter]
    lines = report(c, "-n", "-P", "-t", "seconds", "cluster", "utilization",
                   f"start={hour_floor(stamp(done[blocker][2]))}",
                   "end=now+1hour")
    _, alloc, down, pdown, idle, planned, reported = lines[0].split("|")
    assert int(reported) == (int(alloc) + int(down) + int(pdown) + int(idle)
                             + int(planned))
    # 1 CPU over the wait, the blocker's own short wait aside; Planned
    # stops at the idle time when the hour has just begun.
    assert int(planned) >= wait - 2 or int(idle) == 0, (planned, wait)
    assert int(planned) <= wait + 2 * cpus + 2, (planned, wait)


def test_plnd_down_counts_a_maintenance_reservation(acct_cluster):
    """A MAINT reservation of the whole node for a few seconds, deleted: its
    CPUs x its time (to the deletion) are PLND Down, as Slurm's sreport
    counts maintenance reservations; Allocated + Down + PLND Down + Idle +
    Planned = Reported."""
    c = acct_cluster
    cpus = int(c.run("sinfo", "-h", "-o", "%c", check=True).stdout.split()[0])
    c.run("scontrol", "create", "reservation", "ReservationName=maint",
          "StartTime=now", "Duration=60", "Nodes=ALL", "Users=root",
          "Flags=MAINT", check=True)
    out = c.run("scontrol", "show", "reservation", check=True).stdout
    start = datetime.strptime(out.split("StartTime=")[1].split()[0],
                              "%Y-%m-%dT%H:%M:%S").timestamp()
    time.sleep(4)
    c.run("scontrol", "delete", "ReservationName=maint", check=True)
    held = time.time() - start

    def pdown():
        lines = report(c, "-n", "-P", "-t", "seconds", "cluster",
                       "utilization", f"start={hour_floor(start)}",
                       "end=now+1hour")
        f = lines[0].split("|")
        return (int(f[3]), f) if int(f[3]) > 0 else None
    got, f = c.wait_until(pdown, 30, "PLND Down from the reservation")
    _, alloc, down, _, idle, planned, reported = f
    assert int(reported) == (int(alloc) + int(down) + got + int(idle)
                             + int(planned))
    # its CPUs over its time, within a second or two at each end (or less
    # when the hour has just begun: within the idle time)
    assert got <= cpus * (held + 2), (got, held)
    assert got >= cpus * (held - 3) or int(idle) == 0, (got, held)


def test_user_topusage_and_account_report_list_the_user(acct_cluster,
                                                        tmp_path):
    c = acct_cluster
    rows = run_jobs(c, tmp_path, count=1)
    user = c.run("sacct", "-X", "-P", "-n", "-o", "User", "-j", rows[0][0],
                 check=True).stdout.split()[0]
    start = f"start={hour_floor(stamp(rows[0][2]))}"
    lines = report(c, "-P", "-t", "seconds", "user", "topusage", start,
                   "end=now+1hour")
    assert lines[1].startswith("Top 10 Users ")
    assert lines[4] == "Cluster|Login|Proper Name|Account|Used|Energy"
    assert [line.split("|")[1] for line in lines[5:]] == [user]
    assert int(lines[5].split("|")[4]) >= 2 * 2 - 2
    lines = report(c, "-n", "-P", "cluster", "AccountUtilizationByUser",
                   start, "end=now+1hour", "format=Login,Used")
    assert any(line.split("|")[0] == user for line in lines)


@pytest.mark.parametrize("acct_cluster", ["sqlite"], indirect=True)
def test_default_layout_and_bad_words(acct_cluster):
    """The layout does not depend on the backend: checked on SQLite."""
    c = acct_cluster
    lines = report(c, "cluster", "utilization")
    assert lines[4] == ("  Cluster Allocate     Down PLND Dow     Idle "
                        " Planned Reported ")
    assert lines[5].startswith("--------- -------- ")
    lines = report(c, "-t", "percent", "cluster", "utilization")
    assert lines[2] == "Usage reported in Percentage of Total"
    r = c.run("sreport", "cluster", "utilization", "bogus=1")
    assert r.returncode == 1 and "Unknown condition: bogus=1" in r.stderr
    r = c.run("sreport", "cluster", "utilization", "format=nosuch")
    assert r.returncode == 1 and "Unknown field 'nosuch'" in r.stderr
    r = c.run("sreport", "-t", "fortnights", "cluster", "utilization")
    assert r.returncode == 1 and "unknown time format" in r.stderr
