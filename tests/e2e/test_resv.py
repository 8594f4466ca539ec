# SPDX-License-Identifier: Apache-2.0
"""Advance reservations (issue 11), as Slurm 22.05 prints and does them
(slurm-golden/resv-*): scontrol create/show/update/delete reservation with
Slurm's texts, sinfo's maint state, a maintenance window that keeps other
jobs off its node (and their -w requests pending with Slurm's reason)
while its users run there, a future window that lets short jobs finish
before it and holds back longer ones, access by Users=, and reservations
surviving a controller restart."""
import re
import time

import pytest

TWO = {"nodes": 2, "gpus_per_node": 0, "up_args": ["--cpus-per-node=4"]}
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def sq(c, job):
    return c.run("squeue", "-h", "-j", job, "-o", "%t|%r|%N",
                 check=True).stdout.strip()


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_maintenance_reservation(cluster, make_user):
    c = cluster
    user = make_user("drresv1")
    r = c.run("scontrol", "show", "reservation", check=True)
    assert r.stdout == "No reservations in the system\n"
    # an ordinary user may not create one (Slurm's text)
    r = c.run("scontrol", "create", "reservation", "ReservationName=mine",
              "StartTime=now", "Duration=60", "Nodes=node01",
              f"Users={user}", user=user)
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "Error creating the reservation: Invalid user id\n")
    r = c.run("scontrol", "create", "reservation", "ReservationName=maint",
              "StartTime=now", "Duration=60", "Nodes=node02", "Users=root",
              "Flags=MAINT")
    assert (r.returncode, r.stdout) == (0, "Reservation created: maint\n")
    out = c.run("scontrol", "show", "reservation", "maint",
                check=True).stdout
    assert re.fullmatch(
        rf"ReservationName=maint StartTime={STAMP} EndTime={STAMP} "
        r"Duration=01:00:00\n"
        r"   Nodes=node02 NodeCnt=1 CoreCnt=4 Features=\(null\) "
        r"PartitionName=\(null\) Flags=MAINT,SPEC_NODES\n"
        r"   TRES=cpu=4\n"
        r"   Users=root Groups=\(null\) Accounts=\(null\) Licenses=\(null\) "
        r"State=ACTIVE BurstBuffer=\(null\) Watts=n/a\n"
        r"   MaxStartDelay=\(null\)\n\n", out), out
    sinfo = c.run("sinfo", "-h", "-o", "%T %N", check=True).stdout.split("\n")
    assert "maint node02" in sinfo
    # another user's -w on it pends with Slurm's reason; others run on node01
    onn2 = c.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", "sleep 30",
                    user=user)
    c.wait_until(lambda: sq(c, onn2).startswith(
        "PD|ReqNodeNotAvail, May be reserved for other job"), 15,
        "the -w job to pend")
    assert c.job_field(onn2, "Reason") == \
        "ReqNodeNotAvail,_May_be_reserved_for_other_job"
    free = c.sbatch("-o", "/dev/null", "--wrap", "sleep 30", user=user)
    c.wait_job_state(free, "RUNNING", timeout=30)
    assert sq(c, free).endswith("|node01")
    # sbatch --reservation: refused for others, runs on it for its users
    r = c.run("sbatch", "--reservation=maint", "--wrap", "true", user=user)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: Batch job submission failed: Access denied to "
           "requested reservation\n")
    r = c.run("sbatch", "--reservation=nosuch", "--wrap", "true", user=user)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: Batch job submission failed: Requested "
           "reservation is invalid\n")
    mine = c.sbatch("--reservation=maint", "-o", "/dev/null", "--wrap",
                    "sleep 30")
    c.wait_job_state(mine, "RUNNING", timeout=30)
    assert sq(c, mine).endswith("|node02")
    # it survives a kill -9 of the controller
    c.kill("droverctld")
    c.up()
    assert "ReservationName=maint" in c.run("scontrol", "show",
                                            "reservation").stdout
    # deleted: the -w job gets its node once the reservation's job ends
    c.run("scancel", mine, check=True)
    r = c.run("scontrol", "delete", "ReservationName=maint")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = c.run("scontrol", "delete", "ReservationName=maint")
    assert (r.returncode, r.stderr) == (
        1, "delete_reservation ReservationName=maint: Requested reservation "
           "is invalid\n")
    c.wait_job_state(onn2, "RUNNING", timeout=30)
    c.run("scancel", "-u", user, check=True)


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_future_window_blocks_only_what_would_overlap(cluster, make_user):
    c = cluster
    user = make_user("drresv1")
    c.run("scontrol", "create", "reservation", "ReservationName=later",
          "StartTime=now+120", "Duration=10", "Nodes=node01", "Users=root",
          "Flags=MAINT", check=True)
    # nothing drained early: node01 is idle and takes a 1-minute job
    short = c.sbatch("-w", "node01", "-t", "1", "-o", "/dev/null", "--wrap",
                     "sleep 5", user=user)
    c.wait_job_state(short, "RUNNING", timeout=30)
    # a 5-minute job would run into the window: it waits
    long = c.sbatch("-w", "node01", "-t", "5", "-o", "/dev/null", "--wrap",
                    "sleep 5", user=user)
    c.wait_until(lambda: sq(c, long).startswith(
        "PD|ReqNodeNotAvail, May be reserved for other job"), 15,
        "the long job to wait")
    assert "State=INACTIVE" in c.run("scontrol", "show", "reservation",
                                     check=True).stdout
    why = c.run("squeue", "-h", "-j", long, "-O", "PendingExplain:300",
                check=True).stdout.strip()
    assert re.fullmatch(r"node01 \(nodes it asked for\) reserved by later "
                        rf"from {STAMP} to {STAMP}", why), why
    # the window moves away: it starts
    r = c.run("scontrol", "update", "ReservationName=later",
              "StartTime=now+3600")
    assert (r.returncode, r.stdout) == (0, "Reservation updated.\n")
    c.wait_job_state(long, "RUNNING", timeout=30)
    # a reservation on a node with a job running past its start is refused
    r = c.run("scontrol", "create", "reservation", "StartTime=now",
              "Duration=10", "Nodes=node01", "Users=root")
    assert (r.returncode, r.stderr) == (
        1, "Error creating the reservation: Requested nodes are busy\n")
    # a name of its own when none is given: Slurm's USER_N
    r = c.run("scontrol", "create", "reservation", "StartTime=now+7200",
              "Duration=10", "NodeCnt=1", f"Users={user}")
    assert (r.returncode, r.stdout) == (0, f"Reservation created: {user}_1\n")
    mine = c.sbatch(f"--reservation={user}_1", "-o", "/dev/null", "--wrap",
                    "true", user=user)
    c.wait_until(lambda: sq(c, mine).startswith("PD|Reservation"), 15,
                 "the job to wait for its reservation")
    c.run("scancel", "-u", user, check=True)


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_flex_magnetic_and_purge_comp(cluster, make_user):
    """FLEX: a job of the reservation starts before it and outside its
    nodes; MAGNETIC: a job that may use it runs in it unasked, others are
    kept out; PURGE_COMP=time: an unused reservation goes once idle that
    long."""
    c = cluster
    user, other = make_user("drresv1"), make_user("drresv2")
    c.run("scontrol", "create", "reservation", "ReservationName=flex",
          "StartTime=now+3600", "Duration=60", "Nodes=node02",
          f"Users={user}", "Flags=FLEX", check=True)
    early = c.sbatch("--reservation=flex", "-t", "5", "-o", "/dev/null",
                     "--wrap", "sleep 30", user=user)
    c.wait_job_state(early, "RUNNING", timeout=30)
    c.run("scancel", early, check=True)
    c.run("scontrol", "delete", "ReservationName=flex", check=True)

    c.run("scontrol", "create", "reservation", "ReservationName=mag",
          "StartTime=now", "Duration=60", "Nodes=node02", f"Users={user}",
          "Flags=MAGNETIC,PURGE_COMP=00:00:04", check=True)
    out = c.run("scontrol", "show", "reservation", "mag", check=True).stdout
    assert "Flags=SPEC_NODES,PURGE_COMP=00:00:04,MAGNETIC\n" in out, out
    # node01 busy: the user's job goes to node02, the other user's waits
    blocker = c.sbatch("-w", "node01", "-n4", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    theirs = c.sbatch("-n4", "-o", "/dev/null", "--wrap", "sleep 300",
                      user=other)
    mine = c.sbatch("-n4", "-o", "/dev/null", "--wrap", "sleep 3", user=user)
    c.wait_until(lambda: sq(c, mine).startswith("R|None|node02"), 30,
                 "the user's job to run in the magnetic reservation")
    assert sq(c, theirs).startswith("PD|")
    # once nothing uses it for 4 s, PURGE_COMP deletes it; then the other
    # user's job gets node02
    c.wait_job_done(mine, timeout=30)
    c.wait_until(lambda: c.run("scontrol", "show", "reservation",
                               check=True).stdout
                 == "No reservations in the system\n", 30,
                 "the idle reservation purged")
    c.wait_job_state(theirs, "RUNNING", timeout=30)
    assert "reservation mag purged" in c.log_file("droverctld").read_text()
    c.run("scancel", blocker, theirs, check=True)


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": ["--cpus-per-node=4", "--conf-extra=SchedulerParameters=drover_backfill=slurm"]}],
                         indirect=True)
def test_jobs_are_planned_around_a_future_reservation(cluster, make_user):
    """A maintenance window in 10 minutes on the only node: a job that
    would run into it is planned to start when it ends (squeue --start,
    scontrol StartTime=, sbatch --test-only agree); a short one runs now.
    Under Slurm's backfill (drover_backfill=slurm), where every waiting job
    gets a planned start; Drover's default plans only the jobs that lead
    (tests/e2e/test_backfill_policy.py)."""
    c = cluster
    user = make_user("drresv1")
    c.run("scontrol", "create", "reservation", "ReservationName=maint",
          "StartTime=now+600", "Duration=10", "Nodes=ALL", "Users=root",
          "Flags=MAINT", check=True)
    out = c.run("scontrol", "show", "reservation", "maint", check=True).stdout
    end = re.search(rf"EndTime=({STAMP})", out).group(1)
    long = c.sbatch("-t", "20", "-o", "/dev/null", "--wrap", "true",
                    user=user)
    c.wait_until(lambda: c.job_field(long, "StartTime") != "Unknown", 15,
                 "a planned start")
    planned = c.job_field(long, "StartTime")
    # the window ends at `end`; the plan counts it on a 60 s step
    assert end <= planned, (end, planned)
    assert sq(c, long).startswith(
        "PD|ReqNodeNotAvail, Reserved for maintenance")
    start = c.run("squeue", "-h", "--start", "-j", long, "-o", "%S",
                  check=True).stdout.strip()
    assert start == planned
    r = c.run("sbatch", "--test-only", "-t", "20", "--wrap", "true",
              user=user, check=True)
    assert f"to start at {planned}" in r.stderr, r.stderr
    short = c.sbatch("-t", "5", "-o", "/dev/null", "--wrap", "true",
                     user=user)
    c.wait_job_done(short, timeout=30)
    c.run("scancel", long, check=True)
    # one that has begun: the job is planned for its end too
    c.run("scontrol", "delete", "ReservationName=maint", check=True)
    c.run("scontrol", "create", "reservation", "ReservationName=now",
          "StartTime=now", "Duration=5", "Nodes=ALL", "Users=root",
          check=True)
    out = c.run("scontrol", "show", "reservation", "now", check=True).stdout
    end = re.search(rf"EndTime=({STAMP})", out).group(1)
    after = c.sbatch("-t", "5", "-o", "/dev/null", "--wrap", "true",
                     user=user)
    c.wait_until(lambda: c.job_field(after, "StartTime") != "Unknown", 15,
                 "a planned start after the active reservation")
    assert end <= c.job_field(after, "StartTime")
    assert sq(c, after).startswith("PD|Resources")
    c.run("scancel", after, check=True)


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 2,
                                      "up_args": ["--cpus-per-node=4"]}],
                         indirect=True)
def test_core_and_gpu_reservations_hold_part_of_a_node(cluster, make_user):
    """CoreCnt= and TRES=gres/gpu= hold part of a node: other jobs use the
    rest of it, not the reserved CPUs or GPUs; the reservation's own jobs
    run there."""
    c = cluster
    user, other = make_user("drresv1"), make_user("drresv2")
    c.run("scontrol", "create", "reservation", "ReservationName=cores",
          "StartTime=now", "Duration=60", "Nodes=node01", "CoreCnt=2",
          f"Users={user}", check=True)
    c.run("scontrol", "create", "reservation", "ReservationName=gpus",
          "StartTime=now", "Duration=60", "Nodes=node02",
          "TRES=cpu=1,gres/gpu=1", f"Users={user}", check=True)
    out = c.run("scontrol", "show", "reservation", check=True).stdout
    assert "ReservationName=cores " in out and "CoreCnt=2 " in out
    assert "TRES=cpu=1,gres/gpu=1\n" in out, out
    # a node in part reserved is not shown as reserved
    assert c.run("sinfo", "-h", "-n", "node01", "-o", "%T",
                 check=True).stdout.strip() == "idle"
    # the other user: 2 of node01's 4 CPUs, 1 of node02's 2 GPUs (the
    # larger requests are planned after the reservations end: the smaller,
    # short ones run now)
    three = c.sbatch("-w", "node01", "-n3", "-t", "5", "-o", "/dev/null",
                     "--wrap", "sleep 300", user=other)
    two = c.sbatch("-w", "node01", "-n2", "-t", "5", "-o", "/dev/null",
                   "--wrap", "sleep 300", user=other)
    gpu2 = c.sbatch("-w", "node02", "--gres=gpu:2", "-t", "5", "-o",
                    "/dev/null", "--wrap", "sleep 300", user=other)
    gpu1 = c.sbatch("-w", "node02", "--gres=gpu:1", "-t", "5", "-o",
                    "/dev/null", "--wrap", "sleep 300", user=other)
    c.wait_job_state(two, "RUNNING", timeout=30)
    c.wait_job_state(gpu1, "RUNNING", timeout=30)
    assert sq(c, three).startswith("PD|")
    assert sq(c, gpu2).startswith("PD|")
    # the reservation's user runs in it
    mine = c.sbatch("--reservation=cores", "-n2", "-o", "/dev/null",
                    "--wrap", "sleep 300", user=user)
    c.wait_until(lambda: sq(c, mine).startswith("R|None|node01"), 30,
                 "the reservation's job to run on node01")
    # survives a restart of the controller
    c.kill("droverctld")
    c.up()
    out = c.run("scontrol", "show", "reservation", "gpus",
                check=True).stdout
    assert "TRES=cpu=1,gres/gpu=1\n" in out, out
    assert sq(c, gpu2).startswith("PD|")
    c.run("scancel", three, two, gpu2, gpu1, mine, check=True)
    r = c.run("scontrol", "create", "reservation", "StartTime=now",
              "Duration=60", "Nodes=node01", "CoreCnt=9", "Users=root")
    assert (r.returncode, r.stderr) == (
        1, "Error creating the reservation: CPU count specification "
           "invalid\n")


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_scancel_by_reservation(cluster):
    """scancel -R NAME: only the jobs that name the reservation."""
    c = cluster
    c.run("scontrol", "create", "reservation", "ReservationName=later",
          "StartTime=now+3600", "Duration=10", "Nodes=ALL", "Users=root",
          check=True)
    inside = c.sbatch("-H", "--reservation=later", "--wrap", "true")
    outside = c.sbatch("-H", "--wrap", "true")
    c.run("scancel", "-R", "later", check=True)
    c.wait_until(lambda: c.job_state(inside) == "CANCELLED", 10,
                 "the reservation's job cancelled")
    assert c.job_state(outside) == "PENDING"
    c.run("scancel", outside, check=True)
    c.run("scontrol", "delete", "ReservationName=later", check=True)
