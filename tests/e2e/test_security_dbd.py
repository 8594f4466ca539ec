# SPDX-License-Identifier: Apache-2.0
"""Issue 19, droverdbd's share: attacks on the accounting daemon fail.

- A usage report over a huge window (start=0, end=2^43) no longer ties up
  droverdbd: reads run beside writes, on their own connection, and only
  over the months that hold data; another user's sacct answers meanwhile.
- A listing never writes: naming a cluster (junk, 64 KiB, with a newline)
  in acct_assoc_list, as an ordinary user or as root, creates nothing;
  names are checked wherever they enter the database.
- An accounting Operator cannot make anyone (itself included) an
  Administrator, nor demote or remove one (Slurm's rule and texts).

Each runs on SQLite and PostgreSQL (acct_cluster).
"""

import threading
import time

from cluster import ClusterError


def dbd_port(c):
    return int(c.conf_value("AccountingStoragePort"))


def dbd(c, msg_type, body, user=None, timeout=10):
    return c.rpc(msg_type, body, port=dbd_port(c), user=user,
                 timeout=timeout)


def mgr(c, *args, user=None):
    return c.run("sacctmgr", *args, user=user)


def ok(c, *args, user=None):
    r = mgr(c, *args, user=user)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def clusters(c):
    """The clusters the database knows, from root's raw listing."""
    return sorted({a["cluster"] for a in dbd(c, "acct_assoc_list",
                                             {})["assocs"]})


def job_record(job_id, cluster_start):
    """A finished two-CPU job of 100 s, for the usage tables."""
    return {
        "job_id": job_id, "array_job_id": 0, "array_task_id": -1,
        "submit_time": cluster_start, "eligible_time": cluster_start,
        "start_time": cluster_start, "end_time": cluster_start + 100,
        "name": "old", "uid": 0, "user": "root", "gid": 0, "group": "root",
        "account": "root", "qos": "normal", "partition": "debug",
        "state": "COMPLETED", "exit_status": 0, "derived_exit_status": 0,
        "nodes": "node01", "nnodes": 1, "ncpus": 2, "req_cpus": 2,
        "req_mem_mib": 100, "req_mem_per_cpu": False, "time_limit_min": 10,
        "priority": 1, "reason": "None", "work_dir": "/tmp", "comment": "",
        "constraints": "", "req_tres": "cpu=2,mem=100M,node=1",
        "alloc_tres": "cpu=2,mem=100M,node=1", "steps": [],
    }


def test_huge_report_does_not_hold_up_others(acct_cluster, test_users):
    c = acct_cluster
    name = c.conf_value("ClusterName")
    # A job of two days ago in the usage tables.
    dbd(c, "acct_send", {"cluster": name, "events": [
        {"seq": 1, "job": job_record(900001, int(time.time()) - 2 * 86400)}]})
    huge = {"report": "cluster_utilization", "start": 0, "end": 2 ** 45}
    got = {}

    def report():
        t0 = time.monotonic()
        try:
            got["answer"] = dbd(c, "acct_usage_report", huge,
                                user=test_users[0], timeout=120)
        except ClusterError as e:
            got["error"] = str(e)
        got["seconds"] = time.monotonic() - t0

    t = threading.Thread(target=report)
    t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    r = c.run("sacct", "-X", "-n", "-P", "-o", "JobID", user=test_users[1],
              timeout=60)
    sacct_s = time.monotonic() - t0
    t.join(130)
    print(f"\nhuge report: {got.get('seconds', 0):.2f} s, concurrent "
          f"sacct: {sacct_s:.2f} s")
    assert r.returncode == 0, r.stderr
    assert sacct_s < 10, sacct_s
    assert "error" not in got, got
    assert got["seconds"] < 10, got
    assert [x["cluster"] for x in got["answer"]["clusters"]] == [name]
    # The job's 200 CPU-seconds are found inside the huge window.
    assert got["answer"]["clusters"][0]["allocated"]["cpu"] == 200, got
    # Times outside 1970..9999 are brought into it, and not walked.
    for asked, answered in (((-2 ** 62, 3600), (0, 3600)),
                            ((0, 2 ** 62), (0, 253402297200))):
        t0 = time.monotonic()
        a = dbd(c, "acct_usage_report", {"report": "cluster_utilization",
                                         "start": asked[0], "end": asked[1]},
                user=test_users[0])
        assert time.monotonic() - t0 < 10
        assert (a["start"], a["end"]) == answered, a
    # sreport's own huge window still works.
    r = c.run("sreport", "-P", "-n", "cluster", "utilization",
              "start=1970-01-02", "end=2200-01-01", user=test_users[0],
              timeout=60)
    assert r.returncode == 0, r.stderr


def test_listing_never_creates_clusters(acct_cluster, test_users):
    c = acct_cluster
    name = c.conf_value("ClusterName")
    ok(c, "-i", "add", "account", "physics")  # root's sacctmgr registers
    before = clusters(c)
    assert before == [name]
    shown = ok(c, "-n", "-P", "show", "cluster", "format=Cluster")
    for user in (test_users[0], None):
        r = mgr(c, "-n", "-P", "show", "assoc", "cluster=junk", user=user)
        assert r.returncode == 0, r.stderr
        assert "junk" not in r.stdout
        for bad in ("junk", "x" * 65536, "new\nline", "junk2"):
            for body in ({"cluster": bad}, {"cluster": bad, "register": True,
                                            "if_changed_since": -2}):
                if user is None and body.get("register"):
                    continue  # root's registration is the controller's
                try:
                    answer = dbd(c, "acct_assoc_list", body, user=user)
                except ClusterError:
                    continue
                assert not [a for a in answer["assocs"]
                            if a["cluster"] != name], answer
    assert clusters(c) == before
    assert ok(c, "-n", "-P", "show", "cluster", "format=Cluster") == shown
    # A daemon's registration checks the name too.
    for bad in ("x" * 65536, "new\nline", "a,b"):
        try:
            dbd(c, "acct_assoc_list", {"cluster": bad, "register": True})
            raise AssertionError(f"{bad[:10]!r} was registered")
        except ClusterError as e:
            assert "Invalid cluster name" in str(e), e
    assert clusters(c) == before


def test_bad_names_are_refused(acct_cluster):
    c = acct_cluster
    accounts = ok(c, "-n", "-P", "show", "account", "format=Account")
    for entity, bad in (("account", "a" * 65), ("account", "tab\there"),
                        ("account", "quo'te"), ("qos", "new\nline"),
                        ("user", "sp ace")):
        extra = ("account=root",) if entity == "user" else ()
        r = mgr(c, "-i", "add", entity, bad, *extra)
        assert r.returncode != 0, (entity, bad, r.stdout)
        label = "QOS" if entity == "qos" else entity
        assert f"Invalid {label} name" in r.stderr, r.stderr
    for bad in ("x" * 65536, "new\nline"):
        try:
            dbd(c, "acct_modify", {"op": "add", "entity": "cluster",
                                   "names": [bad]})
            raise AssertionError(f"cluster {bad[:10]!r} was added")
        except ClusterError as e:
            assert "Invalid cluster name" in str(e), e
    assert ok(c, "-n", "-P", "show", "account",
              "format=Account") == accounts
    assert "new" not in ok(c, "-n", "-P", "show", "qos", "format=Name")
    assert clusters(c) in ([], [c.conf_value("ClusterName")])
    # Good names still go in.
    ok(c, "-i", "add", "account", "good-name_1.x")


def levels(c):
    out = ok(c, "-n", "-P", "show", "user", "format=User,AdminLevel")
    return dict(line.split("|") for line in out.splitlines())


def test_operator_cannot_make_administrators(acct_cluster, test_users):
    c = acct_cluster
    u1, u2 = test_users
    ok(c, "-i", "add", "user", f"{u1},{u2}", "account=root")
    ok(c, "-i", "modify", "user", u1, "set", "adminlevel=Operator")
    assert (levels(c)[u1], levels(c)[u2]) == ("Operator", "None")
    higher = (" Error with request: You have to be the same or higher "
              "admin level to change another persons\n")
    for target in (u2, u1):
        for level in ("Administrator", "admin"):
            r = mgr(c, "-i", "modify", "user", target, "set",
                    f"adminlevel={level}", user=u1)
            assert (r.returncode, r.stderr) == (1, higher), (target, r)
    r = mgr(c, "-i", "add", "user", "newadmin", "account=root",
            "adminlevel=Administrator", user=u1)
    assert (r.returncode, r.stderr) == (
        1, " Problem adding users: Only Administrators can add an "
           "Administrator\n"), r
    # Nor demote or remove an Administrator.
    r = mgr(c, "-i", "modify", "user", "root", "set", "adminlevel=None",
            user=u1)
    assert (r.returncode, r.stderr) == (1, higher), r
    r = mgr(c, "-i", "delete", "user", "root", user=u1)
    assert (r.returncode, r.stderr) == (
        1, " Error with request: Only Administrators can remove an "
           "Administrator\n"), r
    after = levels(c)
    assert (after[u1], after[u2], after["root"]) == (
        "Operator", "None", "Administrator")
    assert "newadmin" not in after
    # What an Operator may do: make another Operator (Slurm's rule).
    ok(c, "-i", "modify", "user", u2, "set", "adminlevel=Operator", user=u1)
    assert levels(c)[u2] == "Operator"
    # An Administrator may grant Administrator.
    ok(c, "-i", "modify", "user", u1, "set", "adminlevel=Administrator")
    ok(c, "-i", "modify", "user", u2, "set", "adminlevel=Administrator",
       user=u1)
    assert levels(c)[u2] == "Administrator"
