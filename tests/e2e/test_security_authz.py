# SPDX-License-Identifier: Apache-2.0
"""The authorization matrix (issue 17): every RPC type of every daemon and
every droverrestd path, tried by every kind of caller and credential.

Callers: the owner of the target (druser1, whose jobs the job operations
name), another ordinary user (druser2), an operator (DroverOperators= in
slurm.conf, accounting Operator in droverdbd), root (admin and daemon)
with MUNGE and with root's JWT.  Credentials refused before any handler
runs: none, an expired MUNGE credential, a replayed one (the very frame
droverd/droverctld/droverdbd already accepted from druser2, sent again),
one from another MUNGE key (a private munged of the test's), a JWT signed
with another key, one with alg none, an expired JWT.  Every answer must be
the expected one (EXPECTED_RPC, EXPECTED_REST; words in authz.py), and
after every refusal the cluster's state (the target's job records, the
number of jobs, nodes, reservations, partitions, accounting associations) must be as before.

The cases come from the daemons' own handler tables, written by each
daemon started with DROVER_DEBUG_HANDLERS (src/proto/server.h), checked
against docs/protocol-messages.md (generated from the schema), and from
`droverrestd --openapi`.  A new message type or REST path makes this test
fail until its row is added to EXPECTED_RPC / EXPECTED_REST (and a body
to RPC_CASES / a fill to rest_path); then DROVER_AUTHZ_WRITE=1 rewrites
the table in docs/security.md ("Authorization matrix"), which
test_docs_table otherwise checks.
"""

import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from authz import PrivateMunged, forged_jwts, frame, mint, outcome, send
from cluster import REPO, Cluster, binary
from conftest import create_user, sanitizer_reports
from test_rest import call, token

OWNER, OTHER, OPERATOR = "druser1", "druser2", "drauthzop"
BATCH_STEP = 0xFFFFFFFB
SECURITY_MD = REPO / "docs" / "security.md"
BEGIN, END = "<!-- authz-matrix:begin -->", "<!-- authz-matrix:end -->"

# Columns: the callers, then the credentials refused for themselves.
PRINCIPALS = ("owner", "other", "operator", "admin", "admin_jwt")
BAD_CREDS = ("no_cred", "munge_expired", "munge_replayed",
             "munge_other_key", "jwt_other_key", "jwt_alg_none",
             "jwt_expired")
HEADINGS = {
    "owner": "owner", "other": "other user", "operator": "operator",
    "admin": "root", "admin_jwt": "root's JWT", "no_cred": "no cred",
    "munge_expired": "expired", "munge_replayed": "replayed",
    "munge_other_key": "other MUNGE key", "jwt_other_key": "JWT other key",
    "jwt_alg_none": "JWT alg none", "jwt_expired": "expired JWT",
    "no_token": "no token",
}

# Expected answers to each caller of PRINCIPALS, per daemon and row.  A row
# is a message type, or "type (variant)" for a second body of that type.
# Every bad credential is answered "auth" in every row.
EXPECTED_RPC = {
    "droverctld": {
        # everyone; PrivateData=usage|users would narrow what it lists
        "assoc_mgr_info": "ok ok ok ok ok",
        "config_info": "ok ok ok ok ok",
        "reconfigure": "denied denied denied ok ok",
        "crontab_get (as druser1: user_id)": "ok denied ok ok ok",
        "crontab_remove": "ok ok ok ok ok",
        "crontab_remove (as druser1: user_id)": "ok denied denied ok ok",
        "crontab_set": "ok ok ok ok ok",
        "crontab_set (as druser1: user_id)": "ok denied denied ok ok",
        "job_cancel": "ok denied ok ok ok",
        "job_complete": "role role role ok role",
        "job_hold": "ok denied ok ok ok",
        "job_info": "ok ok ok ok ok",
        "job_alive": "ok denied ok ok ok",
        "job_release": "ok denied ok ok ok",
        "job_requeue": "ok denied ok ok ok",
        "job_script": "ok denied ok ok ok",
        "job_stat": "ok denied ok ok ok",
        "job_submit": "ok ok ok ok ok",
        "job_submit (as druser1: user_id)": "denied denied denied ok ok",
        "job_suspend": "denied denied ok ok ok",
        "job_top": "denied denied ok ok ok",
        "job_update": "ok denied ok ok ok",
        "job_update (priority)": "denied denied ok ok ok",
        "node_info": "ok ok ok ok ok",
        "node_register": "role role role ok role",
        "node_update": "denied denied ok ok ok",
        "partition_info": "ok ok ok ok ok",
        # administrators only, as Slurm's validate_super_user()
        "part_create": "denied denied denied ok ok",
        "part_delete": "denied denied denied ok ok",
        "part_update": "denied denied denied ok ok",
        "ping": "ok ok ok ok ok",
        "priority_info": "ok ok ok ok ok",
        "resv_create": "denied denied ok ok ok",
        "resv_delete": "denied denied ok ok ok",
        "resv_info": "ok ok ok ok ok",
        "resv_update": "denied denied ok ok ok",
        "share_info": "ok ok ok ok ok",
        "stats_info": "denied denied ok ok ok",
        "step_cancel": "ok denied ok ok ok",
        "step_complete": "role role role ok role",
        "step_create": "ok denied ok ok ok",
        "step_info": "ok ok ok ok ok",
        "takeover": "role role role error error",
        "token_issue": "ok denied denied ok ok",
        "trigger_clear": "ok denied denied ok ok",
        "trigger_info": "ok ok ok ok ok",
        "trigger_set": "ok denied denied ok ok",
        "trigger_set (node)": "denied denied denied ok ok",
    },
    "droverd": {
        # "error": authorized, then refused as no real launch.
        "batch_launch": "role role role error auth",
        # written as the job's user; others (the operator too) refused
        "file_bcast": "ok denied denied ok auth",
        "job_limit": "role role role ok auth",
        "job_signal": "role role role ok auth",
        "job_prolog": "role role role ok auth",
        "node_reconfigure": "role role role ok auth",
        "ping": "ok ok ok ok auth",
        "step_launch": "role role role error auth",
        "step_signal": "role role role ok auth",
        # the step's user or root (Slurm's slurmd); the batch step has no
        # I/O to attach to, so those two get that error
        "step_attach": "error denied denied error auth",
        "step_stat": "role role role ok auth",
        # scontrol listpids: the step's user or root (its droverstepd
        # decides, as for step_attach)
        "step_pids": "ok denied denied ok auth",
    },
    "droverdbd": {
        "acct_assoc_list": "ok ok ok ok ok",
        "acct_job_query": "ok hidden ok ok ok",
        "acct_modify": "denied denied ok ok ok",
        "acct_send": "role role role ok role",
        "acct_usage_report": "ok ok ok ok ok",
        "ping": "ok ok ok ok ok",
    },
}

# droverrestd: the HTTP status per REST_CALLERS, per "METHOD path".
REST_CALLERS = ("owner", "other", "operator", "admin", "no_token",
                "jwt_expired", "jwt_other_key", "jwt_alg_none")
EXPECTED_REST = {
    "GET /slurm/v0.0.38/ping": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/diag": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/jobs": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/job/{job_id}": "200 200 200 200 401 401 401 401",
    "DELETE /slurm/v0.0.38/job/{job_id}": "200 403 200 200 401 401 401 401",
    "POST /slurm/v0.0.38/job/submit": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/nodes": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/node/{node_name}": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/partitions": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/partition/{partition_name}":
        "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/reservations": "200 200 200 200 401 401 401 401",
    "GET /slurm/v0.0.38/reservation/{reservation_name}":
        "200 200 200 200 401 401 401 401",
    "GET /slurmdb/v0.0.38/jobs": "200 200 200 200 401 401 401 401",
    # PrivateData=jobs: another user's job is not found.
    "GET /slurmdb/v0.0.38/job/{job_id}": "200 404 200 200 401 401 401 401",
    "GET /slurmdb/v0.0.38/qos": "200 200 200 200 401 401 401 401",
    "GET /slurmdb/v0.0.38/associations": "200 200 200 200 401 401 401 401",
    "GET /slurmdb/v0.0.38/accounts": "200 200 200 200 401 401 401 401",
    "GET /slurmdb/v0.0.38/users": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/jobs": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/job/{job_id}": "200 200 200 200 401 401 401 401",
    "DELETE /drover/v1/job/{job_id}": "200 403 200 200 401 401 401 401",
    "POST /drover/v1/job/submit": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/nodes": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/node/{node_name}": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/partitions": "200 200 200 200 401 401 401 401",
    # The REST target job is pending: it uses nothing (200, no nodes), and
    # another user is refused.
    "GET /drover/v1/job/{job_id}/usage": "200 403 200 200 401 401 401 401",
    "GET /drover/v1/partition/{partition_name}":
        "200 200 200 200 401 401 401 401",
    "GET /drover/v1/job/{job_id}/steps": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/accounting/jobs": "200 200 200 200 401 401 401 401",
    "GET /drover/v1/accounting/job/{job_id}":
        "200 404 200 200 401 401 401 401",
    # sreport's cluster utilization, which any user may run.
    "GET /drover/v1/utilization": "200 200 200 200 401 401 401 401",
    "GET /metrics": "200 200 200 200 401 401 401 401",
    # Public: the API's description and the dashboard's files.
    "GET /openapi.json": "200 200 200 200 200 200 200 200",
    "GET /openapi/v3": "200 200 200 200 200 200 200 200",
    "GET /": "200 200 200 200 200 200 200 200",
    "GET /ui/{file}": "200 200 200 200 200 200 200 200",
}
# slurmrestd's later versions (docs/rest.md "API versions") answer the
# same requests in other shapes, authorized alike.
for _version in ("v0.0.39", "v0.0.40"):
    for _row, _want in list(EXPECTED_REST.items()):
        _method, _path = _row.split(" ", 1)
        if _path.startswith(("/slurm/v0.0.38/", "/slurmdb/v0.0.38/")):
            EXPECTED_REST[f"{_method} {_path.replace('v0.0.38', _version)}"] \
                = _want


# --- the cluster --------------------------------------------------------

@pytest.fixture(scope="module")
def world(test_users):
    """One 1-node cluster for the module (controller, node, droverdbd,
    droverrestd) with druser1, druser2 and the operator, the handler
    tables its daemons wrote, and a private munged with another key."""
    create_user(OPERATOR)
    root = Path(tempfile.mkdtemp(prefix="drover-e2e-authz-", dir="/tmp"))
    root.chmod(0o755)
    tables = root / "handlers"
    tables.mkdir()
    c = Cluster(root, nodes=1, gpus_per_node=0, up_args=[
        f"--conf-extra=DroverOperators={OPERATOR}",
        "--conf-extra=ScronParameters=enable"])
    c.env["DROVER_DEBUG_HANDLERS"] = str(tables)
    other_munged = None
    try:
        c.up()
        c.run("sacctmgr", "-i", "add", "user", OPERATOR, "account=root",
              "adminlevel=Operator", check=True)
        other_munged = PrivateMunged(root / "other-munge")
        yield World(c, tables, other_munged)
    finally:
        if other_munged:
            other_munged.stop()
        c.down()
    reports = sanitizer_reports(root)
    shutil.rmtree(root, ignore_errors=True)
    assert not reports, "sanitizer reports:\n" + "\n".join(reports)


class World:
    """The cluster and what the cases need of it."""

    def __init__(self, c, tables_dir, other_munged):
        self.c = c
        self.other_munged = other_munged
        self.munge_socket = c.dir / "munge" / "munge.socket.2"
        self.tables = {}  # program -> {type: [roles]}
        self.ports = {}   # program -> port
        for path in sorted(tables_dir.glob("*.json")):
            doc = json.loads(path.read_text())
            self.tables[doc["program"]] = doc["handlers"]
            self.ports[doc["program"]] = doc["port"]
        self.uid = {u: pwd.getpwnam(u).pw_uid for u in (OWNER, OTHER)}
        self.gid = {u: pwd.getpwnam(u).pw_gid for u in (OWNER, OTHER)}
        self.root_token = token(c)
        self.user_of = {"owner": OWNER, "other": OTHER,
                        "operator": OPERATOR, "admin": None}
        self.seq = 0

    def unique(self, prefix):
        self.seq += 1
        return f"{prefix}{self.seq}"

    # Targets: druser1's jobs, root's reservations.
    def submit(self, user, **kw):
        # Output to /dev/null: a slurm-N.out left in /tmp by another
        # user's run would refuse druser1's job its output file.
        body = {"script": "#!/bin/sh\nexec sleep 600\n", "argv": [],
                "env": {"PATH": "/usr/bin:/bin"}, "std_out": "/dev/null",
                "std_err": "/dev/null",
                "work_dir": "/tmp", "name": "authz", "time_limit_s": 900}
        body.update(kw)
        return self.c.rpc("job_submit", body, user=user)["job_id"]

    def pending_job(self):
        """druser1's job, pending until tomorrow."""
        return self.submit(OWNER, begin_time=int(time.time()) + 86400)

    def running_job(self, **kw):
        job = self.submit(OWNER, **kw)
        self.c.wait_until(lambda: self.job(job)["job_state"] == "RUNNING",
                          what=f"job {job} RUNNING")
        return job

    def finished_job(self):
        """druser1's job, completed and in accounting."""
        job = self.submit(OWNER, script="#!/bin/sh\ntrue\n")
        self.c.wait_until(lambda: job in self.accounted(),
                          what=f"job {job} in accounting")
        return job

    def accounted(self, user=None):
        """Ids of the jobs droverdbd shows 'user' (root: all)."""
        return [j["job_id"] for j in self.c.rpc(
            "acct_job_query", {}, port=self.dbd_port(), user=user)["jobs"]]

    def allocation(self):
        """druser1's running allocation (salloc's: no batch script)."""
        return self.running_job(interactive=True)

    def resv_body(self, prefix):
        """A reservation of node01 for druser1, a day of its own ahead
        (reservations of one node may not overlap)."""
        name = self.unique(prefix)
        return {"name": name,
                "start_time": int(time.time()) + (7 + self.seq) * 86400,
                "duration_s": 3600, "nodes": "node01", "users": OWNER}

    def reservation(self):
        body = self.resv_body("authz_resv")
        self.c.rpc("resv_create", body)
        return body["name"]

    def partition(self):
        """A partition root made: ("part", its name)."""
        name = self.unique("authzpart")
        self.c.rpc("part_create", {"name": name, "set": {"Nodes": "node01"}})
        return ("part", name)

    def trigger(self):
        """A trigger druser1 set on a pending job of theirs: ("trigger",
        its id) (neither a job id nor a reservation name for cleanup)."""
        job = self.pending_job()
        answer = self.c.rpc("trigger_set", {"type": "fini", "job_id": job,
                                            "program": "/bin/true"},
                            user=OWNER)
        return ("trigger", answer["id"])

    def job(self, job_id):
        return self.c.rpc("job_info", {"job_ids": [job_id]})["jobs"][0]

    def running_jobs(self):
        return [{"job_id": j["job_id"], "run_id": j["run_id"]}
                for j in self.c.rpc("job_info", {})["jobs"]
                if j["job_state"] == "RUNNING"]

    def dbd_port(self):
        return int(self.c.conf_value("AccountingStoragePort"))

    def snapshot(self, target):
        """What no refused request may change: the target's records, the
        number of jobs, nodes, reservations, accounting associations."""
        c = self.c
        jobs = c.rpc("job_info", {})["jobs"]
        snap = {
            "job_count": len(jobs),
            # Not the allocation state: jobs of earlier rows end meanwhile.
            "nodes": [(n["name"], n["drain"], n["not_responding"],
                       n["reason"], n["weight"])
                      for n in c.rpc("node_info")["nodes"]],
            "resvs": c.rpc("resv_info")["reservations"],
            "parts": c.rpc("partition_info",
                           {"show_all": True})["partitions"],
            "triggers": c.rpc("trigger_info")["triggers"],
            "assocs": c.rpc("acct_assoc_list", {}, port=self.dbd_port()),
        }
        if isinstance(target, int):
            snap["target"] = [j for j in jobs if j["job_id"] == target]
        return snap


# --- the RPC cases -------------------------------------------------------

def submit_body(**kw):
    body = {"script": "#!/bin/sh\ntrue\n", "argv": [], "env": {},
            "work_dir": "/tmp", "name": "authz-submit", "hold": True}
    body.update(kw)
    return body


class Case:
    """How to try one row: 'target' (None, "pending", "running", "alloc",
    "done", "resv", "trigger", "part")
    makes what the body names; body(world, target, caller) the body;
    'consumes': a success uses the target up (a fresh one for the next
    caller); judge(world, target, answer), for listings, turns a success
    into "hidden" when the answer leaves the target out."""

    def __init__(self, target, body, consumes=False, judge=None):
        self.target, self.body, self.consumes = target, body, consumes
        self.judge = judge


def shows_target(w, target, answer):
    """For listings: "ok" when the target is in the answer, else
    "hidden" (PrivateData)."""
    return "ok" if target in [j["job_id"] for j in answer["jobs"]] \
        else "hidden"


def _none(w, t, who):
    return {}


def owners_crontab(w):
    """The body naming druser1's crontab, which exists (set by root)."""
    body = {"user_id": w.uid[OWNER]}
    w.c.rpc("crontab_set", dict(body, text="", entries=[]))
    return body


RPC_CASES = {
    "droverctld": {
        "ping": Case(None, _none),
        "config_info": Case(None, _none),
        "reconfigure": Case(None, _none),
        "node_info": Case(None, _none),
        "partition_info": Case(None, _none),
        "priority_info": Case(None, _none),
        "share_info": Case(None, _none),
        "assoc_mgr_info": Case(None, _none),
        "resv_info": Case(None, _none),
        "stats_info": Case(None, lambda w, t, who: {"reset": True}),
        "job_info": Case("pending", lambda w, t, who: {"job_ids": [t]}),
        "job_script": Case("pending", lambda w, t, who: {"job_id": t}),
        "job_stat": Case("running", lambda w, t, who: {"job_id": t}),
        "step_info": Case("running", lambda w, t, who: {"job_ids": [t]}),
        "job_submit": Case(None, lambda w, t, who: submit_body()),
        "crontab_set": Case(None, lambda w, t, who: {"text": "",
                                                     "entries": []}),
        "crontab_set (as druser1: user_id)": Case(None, lambda w, t, who: {
            "user_id": w.uid[OWNER], "text": "", "entries": []}),
        "crontab_get (as druser1: user_id)": Case(
            None, lambda w, t, who: owners_crontab(w)),
        "crontab_remove": Case(None, _none),
        "crontab_remove (as druser1: user_id)": Case(
            None, lambda w, t, who: {"user_id": w.uid[OWNER]}),
        "job_submit (as druser1: user_id)": Case(
            None, lambda w, t, who: submit_body(user_id=w.uid[OWNER])),
        "job_update": Case("pending", lambda w, t, who: {
            "job_id": t, "name": "renamed"}, consumes=True),
        "job_update (priority)": Case("pending", lambda w, t, who: {
            "job_id": t, "priority": 4000000000}, consumes=True),
        "job_cancel": Case("pending", lambda w, t, who: {"job_id": t},
                           consumes=True),
        "job_hold": Case("pending", lambda w, t, who: {
            "job_id": t, "hold": True}, consumes=True),
        "job_top": Case("pending", lambda w, t, who: {"job_ids": [t]},
                        consumes=True),
        "job_requeue": Case("running", lambda w, t, who: {"job_id": t},
                            consumes=True),
        "job_alive": Case("alloc", lambda w, t, who: {"job_id": t}),
        "job_release": Case("alloc", lambda w, t, who: {
            "job_id": t, "exit_status": 0}, consumes=True),
        "job_suspend": Case("running", lambda w, t, who: {"job_id": t},
                            consumes=True),
        "step_create": Case("running", lambda w, t, who: {
            "job_id": t, "argv": ["true"], "env": [], "cwd": "/tmp",
            "io_port": 9, "io_key": "0" * 64}, consumes=True),
        "step_cancel": Case("running", lambda w, t, who: {
            "job_id": t, "step_id": BATCH_STEP, "signal": 18}),
        "step_complete": Case("running", lambda w, t, who: {
            "node": "node01", "job_id": t, "step_id": 0}, consumes=True),
        "job_complete": Case("running", lambda w, t, who: {
            "node": "node01", "job_id": t, "status": 0}, consumes=True),
        "node_register": Case(None, lambda w, t, who: {
            "node": "node01", "jobs": w.running_jobs()}),
        "node_update": Case(None, lambda w, t, who: {
            "name": "node01", "weight": 7}),
        "resv_create": Case(None, lambda w, t, who: w.resv_body(
            "authz_new")),
        "resv_update": Case("resv", lambda w, t, who: {
            "name": t, "duration_s": 7200}, consumes=True),
        "resv_delete": Case("resv", lambda w, t, who: {"name": t},
                            consumes=True),
        "part_create": Case(None, lambda w, t, who: {
            "name": w.unique("authznew"), "set": {"Nodes": "node01"}}),
        "part_update": Case(None, lambda w, t, who: {
            "name": "debug", "set": {"MaxTime": "UNLIMITED"}}),
        "part_delete": Case("part", lambda w, t, who: {"name": t[1]},
                            consumes=True),
        "token_issue": Case(None, lambda w, t, who: {
            "username": OWNER, "lifespan": 60}),
        "takeover": Case(None, lambda w, t, who: {"index": 1}),
        "trigger_info": Case(None, _none),
        "trigger_set": Case("pending", lambda w, t, who: {
            "type": "fini", "job_id": t, "program": "/bin/true"}),
        "trigger_set (node)": Case(None, lambda w, t, who: {
            "type": "down", "nodes": "node01", "program": "/bin/true"}),
        "trigger_clear": Case("trigger", lambda w, t, who: {"id": t[1]},
                              consumes=True),
    },
    "droverd": {
        "ping": Case(None, _none),
        "batch_launch": Case(None, lambda w, t, who: {"job": {}}),
        "step_launch": Case(None, lambda w, t, who: {
            "job_id": 0, "step_id": 0, "uid": w.uid[OWNER],
            "gid": w.gid[OWNER], "user_name": OWNER, "argv": ["true"],
            "cwd": "/tmp", "ntasks": 1, "nodes": "node01",
            "tasks_per_node": "1", "num_nodes": 1, "node_index": 0,
            "ranks": [0], "io_host": "127.0.0.1", "io_port": 9,
            "io_key": "0" * 64}),
        "step_signal": Case("running", lambda w, t, who: {
            "job_id": t, "step_id": BATCH_STEP, "signal": 18}),
        "job_signal": Case("running", lambda w, t, who: {
            "job_id": t, "signal": 18}),
        "job_prolog": Case("running", lambda w, t, who: {"job_id": t}),
        "node_reconfigure": Case(None, _none),
        "job_limit": Case("running", lambda w, t, who: {
            "job_id": t, "time_limit_s": -1}),
        "step_stat": Case("running", lambda w, t, who: {"job_id": t}),
        "step_pids": Case("running", lambda w, t, who: {"job_id": t}),
        "step_attach": Case("running", lambda w, t, who: {
            "job_id": t, "step_id": BATCH_STEP, "layout": True}),
        "file_bcast": Case("running", lambda w, t, who: {
            "job_id": t, "path": str(w.c.user_workdir(OWNER) / "bcast"),
            "offset": 0, "data": "", "last": True, "force": True}),
    },
    "droverdbd": {
        "ping": Case(None, _none),
        "acct_assoc_list": Case(None, _none),
        "acct_job_query": Case("done", lambda w, t, who: {
            "user_ids": [w.uid[OWNER]]}, judge=shows_target),
        "acct_usage_report": Case(None, lambda w, t, who: {
            "report": "cluster_utilization",
            "start": int(time.time()) - 86400, "end": int(time.time())}),
        "acct_send": Case(None, lambda w, t, who: {
            "cluster": "drover", "events": []}),
        "acct_modify": Case(None, lambda w, t, who: {
            "op": "add", "entity": "account",
            "names": [w.unique("authzacct")]}),
    },
}


def row_type(row):
    """The message type of a row: "job_submit (as ...)" -> "job_submit"."""
    return row.split(" ", 1)[0]


class Row:
    """One row being tried: its case, current target and frames."""

    def __init__(self, w, daemon, row):
        self.w, self.daemon, self.row = w, daemon, row
        self.type = row_type(row)
        self.case = RPC_CASES[daemon][row]
        self.port = w.ports[daemon]
        self.target = None
        self.spent = []  # targets used up, cancelled at the end
        self.refresh()
        self.refusal_body = self.body("bad")

    def refresh(self):
        if self.target is not None:
            self.spent.append(self.target)
        kind = self.case.target
        self.target = (self.w.pending_job() if kind == "pending"
                       else self.w.running_job() if kind == "running"
                       else self.w.allocation() if kind == "alloc"
                       else self.w.finished_job() if kind == "done"
                       else self.w.reservation() if kind == "resv"
                       else self.w.trigger() if kind == "trigger"
                       else self.w.partition() if kind == "part"
                       else None)

    def body(self, who):
        return self.case.body(self.w, self.target, who)

    def cleanup(self):
        jobs = []
        for t in [*self.spent, self.target]:
            if isinstance(t, int):
                self.w.c.run("scancel", str(t))
                jobs.append(t)
            elif isinstance(t, str):
                self.w.c.run("scontrol", "delete", f"ReservationName={t}")
            elif isinstance(t, tuple) and t[0] == "part":
                self.w.c.run("scontrol", "delete", f"PartitionName={t[1]}")
        # Their fini triggers fire at the controller's next trigger check:
        # wait, so that the next row's state check does not see them go.
        self.w.c.wait_until(
            lambda: not any(tr.get("job_id") in jobs for tr in
                            self.w.c.rpc("trigger_info")["triggers"]),
            what="the cancelled targets' triggers to fire")


def try_frame(row, data, failures, col):
    """Send 'data'; the outcome word, with the state check on refusal."""
    w = row.w
    before = w.snapshot(row.target)
    errnum, errstr, answer = send(row.port, data)
    word = outcome(errnum, errstr)
    if word == "ok" and row.case.judge:
        word = row.case.judge(w, row.target, answer)
    if word != "ok":
        after = w.snapshot(row.target)
        if after != before:
            failures.append(f"{row.daemon} {row.row} as {col}: refused "
                            f"({errstr}) but the state changed:\n"
                            f"  before {before}\n  after  {after}")
    elif row.case.consumes:
        row.refresh()
    return word


def rpc_matrix(w, daemon, failures):
    """{row: {column: outcome}} for every row of 'daemon'."""
    rows = [Row(w, daemon, r) for r in sorted(RPC_CASES[daemon])]
    # Credentials refused for themselves, made while the rows' first
    # targets stand; the expired ones live 1 s.
    bad = {}
    expired_jwt = token(w.c, OWNER, "lifespan=1")
    for r in rows:
        b = r.refusal_body
        bad[r.row] = {
            "no_cred": None,
            "munge_expired": mint(w.munge_socket, r.type, b, ttl=1),
            "munge_other_key": w.other_munged.mint(r.type, b),
            "jwt_expired": expired_jwt,
            **forged_jwts(),
        }
    time.sleep(2.5)
    observed = {}
    for r in rows:
        seen = observed[r.row] = {}
        for col, cred in bad[r.row].items():
            seen[col] = try_frame(r, frame(r.type, r.refusal_body, cred),
                                  failures, col)
        for col in PRINCIPALS:
            b = r.body(col)
            if col == "admin_jwt":
                cred = w.root_token
            else:
                cred = mint(w.munge_socket, r.type, b, user=w.user_of[col])
            data = frame(r.type, b, cred)
            seen[col] = try_frame(r, data, failures, col)
            if col == "other":
                # The frame it has just accepted, replayed as is.
                seen["munge_replayed"] = try_frame(r, data, failures,
                                                   "munge_replayed")
        r.cleanup()
    return observed


def expected_rpc_row(daemon, row):
    words = EXPECTED_RPC[daemon][row].split()
    return {**dict(zip(PRINCIPALS, words)),
            **{col: "auth" for col in BAD_CREDS}}


def documented_types():
    """{type: set of daemons} from docs/protocol-messages.md."""
    text = (REPO / "docs" / "protocol-messages.md").read_text()
    types = {}
    for m in re.finditer(r"^## `(\w+)` \(([^)]*)\)$", text, re.M):
        types[m.group(1)] = m.group(2)
    return types


def test_handler_tables_are_the_matrix(world):
    """Every type a daemon handles has its rows (and only those), and is
    in the schema's document."""
    w = world
    assert set(w.tables) == set(RPC_CASES), w.tables.keys()
    documented = documented_types()
    for daemon, handlers in w.tables.items():
        rows = {row_type(r) for r in RPC_CASES[daemon]}
        assert rows == set(handlers), (
            f"{daemon} handles {sorted(set(handlers) - rows)} that the "
            f"matrix lacks (add rows to RPC_CASES and EXPECTED_RPC), and "
            f"the matrix names {sorted(rows - set(handlers))} it does not "
            "handle")
        assert set(EXPECTED_RPC[daemon]) == set(RPC_CASES[daemon]), daemon
        for t in handlers:
            assert t in documented, f"{daemon}'s '{t}' is not in the schema"
            where = documented[t]
            assert daemon in where or where == "every daemon", (t, where)


@pytest.mark.parametrize("daemon", sorted(RPC_CASES))
def test_rpc_matrix(world, daemon):
    failures = []
    observed = rpc_matrix(world, daemon, failures)
    wrong = [f"  {row}: {col} got {seen[col]}, expected "
             f"{expected_rpc_row(daemon, row)[col]}"
             for row, seen in observed.items()
             if row in EXPECTED_RPC[daemon]
             for col in seen if seen[col] != expected_rpc_row(
                 daemon, row)[col]]
    wrong += [f"  {row}: no expected row" for row in observed
              if row not in EXPECTED_RPC[daemon]]
    got = "\n".join(f'        "{row}": "{" ".join(s[c] for c in PRINCIPALS)}",'
                    for row, s in observed.items())
    assert not wrong and not failures, (
        "\n".join(wrong + failures) + f"\nobserved rows:\n{got}")


# --- droverrestd --------------------------------------------------------

def openapi_routes():
    """["METHOD path", ...] from droverrestd --openapi."""
    doc = json.loads(subprocess.run(
        [str(binary("droverrestd")), "--openapi"], capture_output=True,
        text=True, check=True, timeout=30).stdout)
    return [f"{m.upper()} {p}" for p, ms in doc["paths"].items()
            for m in ms]


class RestTargets:
    def __init__(self, w):
        self.w = w
        self.job = w.pending_job()
        self.resv = w.reservation()
        self.spent = []

    def path(self, route, consume):
        """The route's path with its parameters filled in; 'consume': a
        fresh job for a DELETE."""
        method, path = route.split(" ", 1)
        job = self.job
        if method == "DELETE":
            job = self.w.pending_job()
            self.spent.append(job)
        fills = {"job_id": job, "node_name": "node01",
                 "partition_name": "debug", "reservation_name": self.resv,
                 "file": "app.js"}
        return method, re.sub(r"\{(\w+)\}", lambda m: str(fills[m.group(1)]),
                              path), job


REST_SUBMIT = {"script": "#!/bin/bash\ntrue\n",
               "job": {"current_directory": "/tmp", "time_limit": 5,
                       "hold": True}}


def test_rest_matrix(world):
    w = world
    c = w.c
    tokens = {"owner": token(c, OWNER), "other": token(c, OTHER),
              "operator": token(c, OPERATOR), "admin": w.root_token,
              "no_token": None, "jwt_expired": token(c, OWNER, "lifespan=1"),
              **forged_jwts()}
    time.sleep(2)
    t = RestTargets(w)
    observed, failures = {}, []
    for route in openapi_routes():
        seen = observed[route] = {}
        for who in REST_CALLERS:
            method, path, job = t.path(route, who)
            before = w.snapshot(job)
            status, doc = call(c, path, tokens[who], method,
                               REST_SUBMIT if method == "POST" else None)
            seen[who] = str(status)
            if status >= 400 and w.snapshot(job) != before:
                failures.append(f"{route} as {who}: {status} but the state "
                                "changed")
    for job in [t.job, *t.spent]:
        c.run("scancel", str(job))
    wrong = [f"  {route}: {who} got {seen[who]}"
             for route, seen in observed.items() if route in EXPECTED_REST
             for who in REST_CALLERS
             if seen[who] != EXPECTED_REST[route].split()[
                 REST_CALLERS.index(who)]]
    wrong += [f"  {route}: no expected row (new path?)" for route in observed
              if route not in EXPECTED_REST]
    wrong += [f"  {route}: expected but not served" for route in EXPECTED_REST
              if route not in observed]
    got = "\n".join(f'    "{r}": "{" ".join(s[x] for x in REST_CALLERS)}",'
                    for r, s in observed.items())
    assert not wrong and not failures, (
        "\n".join(wrong + failures) + f"\nobserved rows:\n{got}")


# --- the table in docs/security.md ---------------------------------------

def matrix_markdown():
    cols = (*PRINCIPALS, *BAD_CREDS)
    lines = ["| daemon | message | " + " | ".join(HEADINGS[c] for c in cols)
             + " |", "|---|---|" + "---|" * len(cols)]
    for daemon in sorted(EXPECTED_RPC):
        for row in sorted(EXPECTED_RPC[daemon]):
            words = expected_rpc_row(daemon, row)
            lines.append(f"| {daemon} | `{row_type(row)}`"
                         f"{row[len(row_type(row)):]} | "
                         + " | ".join(words[c] for c in cols) + " |")
    lines += ["", "| droverrestd | " + " | ".join(
        HEADINGS[c] for c in REST_CALLERS) + " |",
        "|---|" + "---|" * len(REST_CALLERS)]
    for route in EXPECTED_REST:
        lines.append(f"| `{route}` | "
                     + " | ".join(EXPECTED_REST[route].split()) + " |")
    return "\n".join(lines) + "\n"


def test_docs_table():
    """docs/security.md's "Authorization matrix" is EXPECTED_RPC's and
    EXPECTED_REST's table (DROVER_AUTHZ_WRITE=1 rewrites it)."""
    text = SECURITY_MD.read_text()
    head, sep, rest = text.partition(BEGIN + "\n")
    assert sep, f"docs/security.md lacks {BEGIN}"
    _, sep, tail = rest.partition(END)
    assert sep, f"docs/security.md lacks {END}"
    table = matrix_markdown()
    if os.environ.get("DROVER_AUTHZ_WRITE") == "1":
        SECURITY_MD.write_text(head + BEGIN + "\n" + table + END + tail)
        return
    assert rest[:len(rest) - len(tail) - len(END)] == table, (
        "docs/security.md's authorization matrix differs from the test's: "
        "run it with DROVER_AUTHZ_WRITE=1")
