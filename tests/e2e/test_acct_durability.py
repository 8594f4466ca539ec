# SPDX-License-Identifier: Apache-2.0
"""Nothing lost: accounting events wait on the controller's disk while
droverdbd is down (killed with -9, and across a controller restart), then
drain in order, and every job appears in sacct exactly once."""
import json
import signal
import subprocess
import time

import pytest

from cluster import PG_PRIVATE, wait_until


JOBS = 200


def sacct_states(cluster, ids):
    """{job id: [states]} for 'ids' from sacct (allocations only)."""
    r = cluster.run("sacct", "-X", "-n", "-P", "-o", "JobID,State", "-j",
                    ",".join(ids), check=True, timeout=60)
    seen = {}
    for line in r.stdout.splitlines():
        job, state = line.split("|")
        seen.setdefault(job, []).append(state)
    return seen


def submit_many(cluster, tmp_path, n):
    ids = []
    for i in range(n):
        ids.append(cluster.sbatch("-J", f"d{i}", "-o", "/dev/null", "--wrap",
                                  "exit 3" if i % 10 == 0 else "true",
                                  cwd=tmp_path))
    return ids


def wait_all_final(cluster, ids, timeout=180):
    def done():
        r = cluster.run("squeue", "-h", "-t", "all", "-o", "%i %T",
                        check=True)
        states = dict(l.split() for l in r.stdout.splitlines())
        return all(states.get(j) in ("COMPLETED", "FAILED") for j in ids)
    cluster.wait_until(done, timeout=timeout, what=f"{len(ids)} jobs ended")


def expected_state(i):
    return "FAILED" if i % 10 == 0 else "COMPLETED"


def check_all_recorded(cluster, ids, expect, timeout=120):
    """Every job of 'ids' is in sacct exactly once, in state expect(i)."""
    def recorded():
        seen = sacct_states(cluster, ids)
        return all(seen.get(j) in (["COMPLETED"], ["FAILED"]) for j in ids)
    cluster.wait_until(recorded, timeout=timeout,
                       what="every job in sacct with its final state")
    seen = sacct_states(cluster, ids)
    assert sorted(seen) == sorted(ids), "jobs missing or extra in sacct"
    for i, j in enumerate(ids):
        assert seen[j] == [expect(i)], j


def test_dbd_killed_and_controller_restarted_during_outage(acct_cluster,
                                                          tmp_path):
    cluster = acct_cluster
    before = cluster.sbatch("--wrap", "true", cwd=tmp_path)
    cluster.wait_job_state(before, ["COMPLETED"], timeout=30)
    check_all_recorded(cluster, [before], lambda i: "COMPLETED")

    cluster.kill("droverdbd", signal.SIGKILL)
    first = submit_many(cluster, tmp_path, JOBS // 2)
    cluster.restart_alone("droverctld")          # restart during the outage
    second = submit_many(cluster, tmp_path, JOBS - JOBS // 2)
    ids = first + second
    wait_all_final(cluster, ids)
    r = cluster.run("sacct", "-X", "-n", "-P", "-j", ids[0])
    assert r.returncode == 1 and "error" in r.stderr, r

    cluster.start()                              # droverdbd comes back
    check_all_recorded(cluster, ids, expected_state)


@pytest.mark.parametrize("acct_cluster", ["pgsql"], indirect=True)
def test_database_stopped_while_jobs_run(acct_cluster, pg_server, tmp_path):
    """PostgreSQL itself goes away (droverdbd stays up) while 200 jobs run
    through; once it is back every job is recorded exactly once."""
    cluster = acct_cluster

    def pg(cmd):
        r = subprocess.run([str(PG_PRIVATE), cmd, str(pg_server["dir"])],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr

    pg("pause")
    try:
        ids = submit_many(cluster, tmp_path, JOBS)
        wait_all_final(cluster, ids)
        r = cluster.run("sacct", "-X", "-n", "-P", "-j", ids[0])
        assert r.returncode == 1, r
    finally:
        pg("resume")
    check_all_recorded(cluster, ids, expected_state)


def spool_queue(cluster):
    """Accounting events the controller holds for droverdbd (sdiag)."""
    r = cluster.run("sdiag", "--json", check=True)
    return json.loads(r.stdout)["dbd_agent_queue_size"]


def test_spool_compacted_while_it_drains_loses_nothing(acct_cluster,
                                                       tmp_path):
    """A long outage leaves 21,000 events in the spool's log.  Once
    droverdbd has taken half of them, the controller compacts the log
    (with that many pending, in a forked child, as the state's snapshot)
    and keeps only the pending ones; a kill -9 of the controller
    afterwards replays it with the acknowledgements after it; every job
    reaches sacct once."""
    c = acct_cluster
    spool = c.dir / "state" / "acct_spool"
    c.kill("droverdbd", signal.SIGKILL)
    c.run("scontrol", "update", "PartitionName=debug", "State=DOWN",
          check=True)
    ids = [c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
           for _ in range(500)]
    for _ in range(21):  # a record for each job at each hold and release
        c.run("scontrol", "release", ",".join(ids), check=True)
        c.run("scontrol", "hold", ",".join(ids), check=True)
    assert spool_queue(c) >= 21000
    c.start()  # droverdbd drains; killed once it took half
    wait_until(lambda: spool_queue(c) <= 10000, 120,
               "droverdbd taking half the spool", interval=0.02)
    c.kill("droverdbd", signal.SIGKILL)
    time.sleep(0.5)  # an acknowledgement already on its way is taken
    pending = spool_queue(c)
    assert pending > 200  # the child's share (COMPACT_FORK_EVENTS)

    def compacted():  # the snapshot's first line counts its events
        snap = spool / "snapshot.json"
        if not snap.exists() or (spool / "journal.old").exists():
            return False
        head = json.loads(snap.read_text().split("\n", 1)[0])
        # made now, or in the moment before droverdbd was killed
        return dict(head["arrays"]).get("pending", 0) >= pending
    c.wait_until(compacted, timeout=30, what="the spool compacted")
    assert (spool / "journal").stat().st_size < 100000
    c.restart_alone("droverctld")  # kill -9: replays the snapshot
    # every pending event back; the jobs its state journal replayed are
    # spooled again besides (state_respool_replayed: droverdbd upserts)
    assert pending <= spool_queue(c) <= pending + len(ids)
    c.run("scontrol", "update", "PartitionName=debug", "State=UP",
          check=True)
    c.run("scontrol", "release", ",".join(ids), check=True)
    wait_all_final(c, ids)
    c.start()  # droverdbd back: the rest drains
    check_all_recorded(c, ids, lambda i: "COMPLETED")
