# SPDX-License-Identifier: Apache-2.0
"""droverdbd: accounting records stored in SQLite and PostgreSQL.

Records go in with acct_send and come back with acct_job_query over the
real wire protocol (docs/protocol.md, "Accounting daemon"), on a cluster
made by `drover up`.  The PostgreSQL cases run against a private server
started by tests/pg_private.sh, and are skipped, with the reason, when
none can be started.
"""

import copy
import os
import pwd
import subprocess
from pathlib import Path

import pytest

from cluster import PG_PRIVATE, Cluster, ClusterError, pg_conf_args

REPO = Path(__file__).resolve().parents[2]
STEP_BATCH = 4294967291
STEP_EXTERN = 4294967292
INJECTION = "'; DROP TABLE job; --"
COMMENT = 'say "hi" it\'s ünïcødé ✓ 日本語 \\ back'


def job_record(job_id, uid=0, user="root", **kw):
    rec = {
        "job_id": job_id, "array_job_id": 0, "array_task_id": -1,
        "array_task_str": "",
        "submit_time": 1_700_000_000 + job_id, "eligible_time":
        1_700_000_000 + job_id, "start_time": 1_700_000_100 + job_id,
        "end_time": 1_700_000_200 + job_id, "name": f"job{job_id}",
        "uid": uid, "user": user, "gid": uid, "group": user,
        "account": "physics", "qos": "normal", "partition": "debug",
        "state": "COMPLETED", "exit_status": 0, "derived_exit_status": 0,
        "nodes": "node01", "nnodes": 1, "ncpus": 2, "req_cpus": 2,
        "req_mem_mib": 1000, "req_mem_per_cpu": False, "time_limit_min": 60,
        "priority": 4294901000, "reason": "None", "work_dir": "/tmp/w",
        "suspended_s": 7, "suspend_time": 0,
        "comment": "", "constraints": "", "req_tres":
        "billing=2,cpu=2,mem=1000M,node=1", "alloc_tres":
        "billing=2,cpu=2,mem=1000M,node=1",
        "steps": [
            {"step_id": 0, "name": "hostname", "state": "COMPLETED",
             "exit_status": 0, "start_time": 1_700_000_110 + job_id,
             "end_time": 1_700_000_120 + job_id, "nodes": "node01",
             "nnodes": 1, "ntasks": 1, "ncpus": 2, "alloc_tres": "cpu=2",
             "max_rss_kib": 2048, "max_rss_node": "node01",
             "max_rss_task": 0, "user_cpu_us": 1500, "sys_cpu_us": 700},
            {"step_id": STEP_BATCH, "name": "batch", "state": "COMPLETED",
             "exit_status": 0, "start_time": 1_700_000_100 + job_id,
             "end_time": 1_700_000_200 + job_id, "nodes": "node01",
             "nnodes": 1, "ntasks": 1, "ncpus": 2, "alloc_tres": "cpu=2",
             "max_rss_kib": -1, "max_rss_node": "", "max_rss_task": -1,
             "user_cpu_us": 0, "sys_cpu_us": 0},
        ],
    }
    rec.update(kw)
    return rec


def dbd_port(c):
    return int(c.conf_value("AccountingStoragePort"))


def dbd(c, msg_type, body=None, user=None):
    return c.rpc(msg_type, body or {}, port=dbd_port(c), user=user)


def send(c, records, cluster="drover", first_seq=1):
    events = [{"seq": first_seq + i, "job": r} for i, r in enumerate(records)]
    return dbd(c, "acct_send", {"cluster": cluster, "events": events})


def query(c, user=None, **flt):
    return dbd(c, "acct_job_query", flt, user=user)["jobs"]


def strip(rec):
    """A returned record without the keys the query adds."""
    rec = copy.deepcopy(rec)
    assert rec.pop("cluster") == "drover"
    return rec


def expected(rec):
    """What a stored record reads back as: steps batch first, then ids;
    the time suspended (schema v4) 0 when the record had none."""
    rec = copy.deepcopy(rec)
    rec.setdefault("suspended_s", 0)
    rec.setdefault("suspend_time", 0)
    rec["steps"].sort(key=lambda s: (s["step_id"] != STEP_BATCH,
                                     s["step_id"]))
    return rec


def test_drover_up_starts_droverdbd_on_sqlite(cluster_root):
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    try:
        c.up()
        rc, daemons = c.status()
        assert rc == 0 and daemons.get("droverdbd"), daemons
        mode = (c.dir / "etc" / "slurmdbd.conf").stat().st_mode & 0o777
        assert mode == 0o600
        assert c.conf_value("AccountingStorageType") == \
            "accounting_storage/slurmdbd"
        # droverdbd connects and migrates on its worker: version 0 until
        # then
        pong = c.wait_until(lambda: (lambda p: p if p["schema_version"]
                                     else None)(dbd(c, "ping")),
                            30, "droverdbd connected")
        assert pong["storage"] == "sqlite" and pong["schema_version"] == 7
        assert (c.dir / "state" / "acct.sqlite").exists()
        c.down()
        rc, daemons = c.status()
        assert daemons.get("droverdbd", "absent") is None
    finally:
        c.down()


def test_records_round_trip_unchanged(acct_cluster):
    c = acct_cluster
    recs = [job_record(101, name=INJECTION, comment=COMMENT,
                       work_dir="/tmp/it's \"quoted\" ✓"),
            job_record(102, state="CANCELLED", cancelled_by=0,
                       exit_status=15, req_mem_per_cpu=True)]
    assert send(c, recs) == {"acked_seq": 2}
    got = query(c)
    assert [strip(r) for r in got] == [expected(r) for r in recs]
    # The injection was stored as text: the job table is still there.
    assert len(query(c, names=[INJECTION])) == 1
    assert dbd(c, "ping")["schema_version"] == 7


def test_a_record_sent_twice_is_stored_once(acct_cluster):
    c = acct_cluster
    rec = job_record(201, state="RUNNING", end_time=0, steps=[])
    send(c, [rec], first_seq=1)
    done = job_record(201)
    assert send(c, [done, done], first_seq=2) == {"acked_seq": 3}
    got = query(c, job_ids=[{"job_id": 201}])
    assert [strip(r) for r in got] == [expected(done)]


def test_filters_select_jobs(acct_cluster):
    c = acct_cluster
    t0 = 1_700_000_000
    recs = [
        job_record(301, account="bio", partition="gpu"),
        job_record(302, state="FAILED", exit_status=256),
        job_record(303, state="PENDING", start_time=0, end_time=0, steps=[]),
        job_record(305, array_job_id=304, array_task_id=1),
        job_record(304, array_job_id=304, array_task_id=0),
    ]
    send(c, recs)

    def ids(**flt):
        return [(r["job_id"], r["array_task_id"]) for r in query(c, **flt)]

    assert ids() == [(301, -1), (302, -1), (303, -1), (304, 0), (305, 1)]
    assert ids(accounts=["bio"]) == [(301, -1)]
    assert ids(partitions=["gpu"]) == [(301, -1)]
    assert ids(states=["FAILED"]) == [(302, -1)]
    assert ids(job_ids=[{"job_id": 304}]) == [(304, 0), (305, 1)]
    assert ids(job_ids=[{"job_id": 304, "array_task_id": 1}]) == [(305, 1)]
    assert ids(job_ids=[{"job_id": 302},
                        {"job_id": 304, "array_task_id": 0}]) == [
        (302, -1), (304, 0)]
    # sacct -j with thousands of ids (SQLite refused a chain of 1,000 ORs)
    many = [{"job_id": i} for i in range(1000, 4000)] + [
        {"job_id": 301}] + [{"job_id": 304, "array_task_id": t}
                            for t in range(1, 1500)]
    assert ids(job_ids=many) == [(301, -1), (305, 1)]
    # Job N ends at t0 + 200 + N: 301 and 302 end before the window;
    # 303 is still pending.
    assert ids(start=t0 + 503, end=t0 + 600) == [(303, -1), (304, 0),
                                                 (305, 1)]
    assert ids(start=t0 + 503, states=["PENDING"]) == [(303, -1)]
    assert ids(start=t0 + 505, states=["COMPLETED"]) == [(305, 1)]
    assert ids(start=t0 + 700, states=["COMPLETED"]) == []


def test_a_user_sees_only_their_own_jobs(acct_cluster, test_users):
    c = acct_cluster
    u1, u2 = (pwd.getpwnam(u) for u in test_users)
    send(c, [job_record(401, uid=u1.pw_uid, user=u1.pw_name),
             job_record(402, uid=u2.pw_uid, user=u2.pw_name),
             job_record(403, uid=u1.pw_uid, user=u1.pw_name)])
    mine = query(c, user=u1.pw_name)
    assert [r["job_id"] for r in mine] == [401, 403]
    # Asking for someone else's jobs gives nothing, not their jobs.
    assert query(c, user=u1.pw_name, user_ids=[u2.pw_uid]) == []
    assert [r["job_id"] for r in query(c)] == [401, 402, 403]  # root
    with pytest.raises(ClusterError, match="2002"):
        dbd(c, "acct_send", {"cluster": "drover", "events": []},
            user=u1.pw_name)


def test_bad_requests_get_errors_and_droverdbd_stays_up(acct_cluster):
    c = acct_cluster
    with pytest.raises(ClusterError, match="job_id"):
        send(c, [{"name": "no id"}])
    with pytest.raises(ClusterError, match="uid"):
        send(c, [job_record(501, uid="root")])
    with pytest.raises(ClusterError, match="states"):
        query(c, states="RUNNING")
    assert query(c) == []  # the failed batch stored nothing
    assert dbd(c, "ping")["schema_version"] == 7


def test_droverdbd_refuses_a_readable_slurmdbd_conf(cluster, drover_bin):
    conf = cluster.dir / "etc" / "slurmdbd.conf"
    os.chmod(conf, 0o644)
    r = subprocess.run([drover_bin("droverdbd"), "-D", "-f", str(conf)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert f"slurmdbd.conf file {conf} should be 600 is 644 accessible " \
           "for group or others" in r.stderr


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0}],
                         indirect=True)
def test_droverdbd_refuses_a_slurmdbd_conf_of_another_user(cluster,
                                                           drover_bin,
                                                           test_user):
    conf = cluster.dir / "etc" / "slurmdbd.conf"
    os.chown(conf, pwd.getpwnam(test_user).pw_uid, -1)
    r = subprocess.run([drover_bin("droverdbd"), "-D", "-f", str(conf)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "not by uid 0 that droverdbd runs as" in r.stderr


def test_mysql_storage_is_refused_with_a_reason(cluster, drover_bin):
    conf = cluster.dir / "etc" / "slurmdbd.conf"
    text = conf.read_text().replace("accounting_storage/sqlite",
                                    "accounting_storage/mysql")
    conf.write_text(text)
    r = subprocess.run([drover_bin("droverdbd"), "-D", "-f", str(conf)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "Drover stores accounting in SQLite or PostgreSQL" in r.stderr


def test_droverdbd_waits_for_an_unreachable_postgresql(pg_server,
                                                      cluster_root):
    """The server is down when droverdbd starts: it keeps running, answers
    requests with Slurm's "Unable to connect to database", and stores
    once the server is back."""
    def pg(cmd):
        r = subprocess.run([str(PG_PRIVATE), cmd, str(pg_server["dir"])],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr

    pg("pause")
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0,
                up_args=pg_conf_args(pg_server))
    try:
        c.up()
        with pytest.raises(ClusterError, match="7000: .*connect"):
            send(c, [job_record(601)])
        assert dbd(c, "ping")["connected"] is False
        pg("resume")
        c.wait_until(lambda: dbd(c, "ping")["connected"], timeout=30,
                     what="droverdbd to reconnect to PostgreSQL")
        assert send(c, [job_record(601)]) == {"acked_seq": 1}
        assert [r["job_id"] for r in query(c)] == [601]
    finally:
        c.down()
        subprocess.run([str(PG_PRIVATE), "resume", str(pg_server["dir"])],
                       capture_output=True, timeout=60)
