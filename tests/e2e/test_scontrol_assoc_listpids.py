# SPDX-License-Identifier: Apache-2.0
"""scontrol show assoc_mgr and scontrol listpids (issue 13).

show assoc_mgr prints the controller's associations, QOS and users in
Slurm 22.05's layout (golden scontrol-show-assoc-mgr-alice, checked line
by line with its volatile figures as patterns), with what the jobs use
now in parentheses and the limits sacctmgr set; users=, accounts= and
flags= choose the records as Slurm's controller does.  listpids asks a
node's droverd for the processes of the job steps there: each task with
its local and global rank, the other processes of the step with "-";
Slurm's messages for a job or step not on the node; another user's job
is refused."""
import os
import pwd
import re

import pytest
from cluster import REPO, require

GOLDEN = (REPO / "tests" / "unit" / "data" / "slurm-golden"
          / "scontrol-show-assoc-mgr-alice.stdout")
PRIO = ["PriorityType=priority/multifactor", "PriorityWeightFairshare=10000",
        "PriorityWeightAge=1000", "PriorityCalcPeriod=0:01",
        "AccountingStorageTRES=gres/gpu"]
TWO_NODES = {"nodes": 2, "gpus_per_node": 2,
             "up_args": ["--cpus-per-node=4"]
             + [f"--conf-extra={kv}" for kv in PRIO]}
HEADER = "PID      JOBID    STEPID   LOCALID GLOBALID"


def setup_accounts(c, users):
    """research under root, 'users' in it; returns once the controller
    holds every user's association."""
    c.run("sacctmgr", "-i", "add", "account", "research", check=True)
    for user in users:
        c.run("sacctmgr", "-i", "add", "user", user, "account=research",
              check=True)
    c.wait_until(lambda: all(
        f"UserName={u}(" in c.run("scontrol", "show", "assoc_mgr",
                                  "flags=assoc").stdout for u in users),
        timeout=30, what="the controller to learn the associations")


def golden_patterns(cluster_name, user, uid):
    """The golden's lines as regexes: its cluster and user are ours, and
    its volatile fields (volatile.md: usage figures, the counts in
    parentheses, ids, Lft, the uid) are patterns."""
    pats = []
    for line in GOLDEN.read_text().splitlines():
        line = line.replace("ClusterName=anchor", f"ClusterName={cluster_name}")
        line = line.replace("alice(1012)", f"{user}({uid})")
        p = re.escape(line)
        p = re.sub(r"\\\(\d+\\\)", r"\\(\\d+\\)", p)        # N(123)
        p = re.sub(r"\\\(\d+\\\.\d+\\\)", r"\\(\\d+\\.\\d\\d\\)", p)
        p = re.sub(r"(ID|Lft|Priority)=\d+", r"\1=\\d+", p)
        p = re.sub(r"root\\\(1\\\)", r"root\\(\\d+\\)", p)
        p = re.sub(r"=\d+/\d+\\\.\d\d/\d+/\d+\\\.\d\d",
                   r"=\\d+/\\d+\\.\\d\\d/\\d+/\\d+\\.\\d\\d", p)
        p = re.sub(r"=\d+\\\.\d\d/\d+\\\.\d\d/\d+\\\.\d\d",
                   r"=\\d+\\.\\d\\d/\\d+\\.\\d\\d/\\d+\\.\\d\\d", p)
        pats.append(p)
    return pats


def field(text, record_start, key):
    """The value of 'key' (up to the next space) in the record whose first
    line starts with 'record_start'."""
    rec = text.split(record_start, 1)[1].split("\nClusterName=")[0]
    return re.search(rf"(?:^|\s){re.escape(key)}=(\S*)", rec).group(1)


@pytest.mark.parametrize("cluster", [TWO_NODES], indirect=True)
def test_show_assoc_mgr_as_the_golden(cluster, make_user):
    c = cluster
    alice, bob = make_user("drassoc1"), make_user("drassoc2")
    setup_accounts(c, [alice, bob])
    # bob's block: both nodes, 8 CPUs, 4 GPUs, no time limit; then pending
    # jobs: two of alice's, one of bob's, one of alice's held.
    block = c.sbatch("-N2", "--exclusive", "--gres=gpu:2", "-t", "UNLIMITED",
                     "-o", "/dev/null", "--wrap", "sleep 300", user=bob)
    c.wait_job_state(block, "RUNNING", timeout=30)
    pend = [c.sbatch("-n4", "-t", "10", "-o", "/dev/null", "--wrap",
                     "true", user=u) for u in (alice, alice, bob)]
    held = c.sbatch("-H", "-n1", "-o", "/dev/null", "--wrap", "true",
                    user=alice)
    uid = pwd.getpwnam(alice).pw_uid

    r = c.run("scontrol", "show", "assoc_mgr", f"users={alice}",
              "flags=assoc", check=True, user=alice)
    lines = r.stdout.splitlines()
    pats = golden_patterns("drover", alice, uid)
    assert len(lines) == len(pats), r.stdout
    for got, want in zip(lines, pats):
        assert re.fullmatch(want, got), f"{got!r} !~ {want!r}"

    # What the controller knows, in the parentheses: the root and research
    # carry everything; alice her three pending jobs (one held: not
    # accruing); Lft numbers the tree.
    out = r.stdout
    root = "ClusterName=drover Account=root UserName= "
    mine = f"ClusterName=drover Account=research UserName={alice}("
    for rec in (root, "ClusterName=drover Account=research UserName= "):
        assert field(out, rec, "GrpJobs") == "N(1)"
        assert field(out, rec, "GrpJobsAccrue") == "N(3)"
        assert field(out, rec, "GrpSubmitJobs") == "N(5)"
        # --exclusive: the nodes' memory too
        assert re.fullmatch(
            r"cpu=N\(8\),mem=N\(\d+\),energy=N\(0\),node=N\(2\),"
            r"billing=N\(8\),fs/disk=N\(0\),vmem=N\(0\),pages=N\(0\),"
            r"gres/gpu=N\(4\)", field(out, rec, "GrpTRES"))
        # no time limit: Slurm's INFINITE minutes per TRES
        assert re.fullmatch(
            rf"cpu=N\({8 * 4294967295}\),mem=N\(\d+\),energy=N\(0\),"
            rf"node=N\({2 * 4294967295}\),billing=N\({8 * 4294967295}\),"
            r"fs/disk=N\(0\),vmem=N\(0\),pages=N\(0\),"
            rf"gres/gpu=N\({4 * 4294967295}\)",
            field(out, rec, "GrpTRESRunMins"))
    assert field(out, mine, "GrpJobs") == "N(0)"
    assert field(out, mine, "GrpJobsAccrue") == "N(2)"
    assert field(out, mine, "GrpSubmitJobs") == "N(3)"
    assert field(out, mine, "DefAssoc") == "Yes"
    assert field(out, root, "Lft") == "1"
    assert field(out, "ClusterName=drover Account=research UserName= ",
                 "ParentAccount").startswith("root(")
    assert bob not in out  # users=: bob's association is left out
    for job in pend + [held, block]:
        c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [TWO_NODES], indirect=True)
def test_show_assoc_mgr_filters_flags_and_limits(cluster, make_user):
    c = cluster
    alice, bob = make_user("drassoc1"), make_user("drassoc2")
    setup_accounts(c, [alice, bob])
    c.run("sacctmgr", "-i", "modify", "user", alice, "set", "GrpJobs=5",
          "MaxJobs=3", "MaxSubmitJobs=7", "GrpTRES=cpu=8,gres/gpu=2",
          "MaxTRESPerJob=node=1", "MaxWall=60", check=True)
    c.wait_until(lambda: "GrpJobs=5(" in c.run(
        "scontrol", "show", "assoc_mgr", f"users={alice}",
        "flags=assoc").stdout, timeout=30, what="alice's limits")
    job = c.sbatch("-n2", "-t", "10", "-o", "/dev/null", "--wrap",
                   "sleep 300", user=alice)
    c.wait_job_state(job, "RUNNING", timeout=30)

    out = c.run("scontrol", "show", "assoc_mgr", f"users={alice}",
                "flags=assoc", check=True).stdout
    mine = f"ClusterName=drover Account=research UserName={alice}("
    rec = out.split(mine, 1)[1]
    assert "GrpJobs=5(1) GrpJobsAccrue=N(0)" in rec
    assert "GrpSubmitJobs=N(1) GrpWall=N(" in rec
    assert re.search(r"\n    GrpTRES=cpu=8\(2\),mem=N\(\d+\),energy=N\(0\),"
                     r"node=N\(1\),billing=N\(2\),fs/disk=N\(0\),"
                     r"vmem=N\(0\),pages=N\(0\),gres/gpu=2\(0\)\n", rec)
    # a 10-minute limit: 2 CPUs x about 10 minutes left
    assert re.search(r"GrpTRESRunMins=cpu=N\((19|20)\),", rec), rec
    assert "\n    MaxJobs=3(1) MaxJobsAccrue= MaxSubmitJobs=7(1) " \
           "MaxWallPJ=60\n" in rec
    assert "\n    MaxTRESPJ=node=1\n" in rec
    assert f"UserName={bob}(" not in out
    # accounts=research: no root record; flags= alone: one section
    out = c.run("scontrol", "show", "assoc_mgr", "accounts=research",
                "flags=assoc", check=True).stdout
    assert " Account=root " not in out
    assert f"UserName={bob}(" in out and f"UserName={alice}(" in out
    out = c.run("scontrol", "show", "assoc_mgr", f"users={alice}",
                "flags=users", check=True).stdout
    uid = pwd.getpwnam(alice).pw_uid
    assert out == ("Current Association Manager state\n\nUser Records\n\n"
                   f"UserName={alice}({uid}) DefAccount=research "
                   "DefWckey=(null) AdminLevel=None\n")
    out = c.run("scontrol", "show", "assoc_mgr", "flags=qos", "qos=normal",
                check=True).stdout
    assert out.startswith("Current Association Manager state\n\n"
                          "QOS Records\n\nQOS=normal(1)\n    UsageRaw=")
    assert re.search(r"\n    GrpJobs=N\(1\) GrpJobsAccrue=N\(0\) "
                     r"GrpSubmitJobs=N\(1\) GrpWall=N\(\d+\.\d\d\)\n", out)
    assert f"    User Limits\n      {alice}({uid})\n        MaxJobsPU=N(1) " \
           "MaxJobsAccruePU=N(0) MaxSubmitJobsPU=N(1)\n" in out
    # every section by default; Slurm's errors
    out = c.run("scontrol", "show", "assoc_mgr", check=True).stdout
    assert [s for s in ("User Records", "Association Records", "QOS Records")
            if f"\n{s}\n" in out] == ["User Records", "Association Records",
                                       "QOS Records"]
    r = c.run("scontrol", "show", "assoc_mgr", "nodes=x")
    assert (r.returncode, r.stderr) == (
        1, "invalid entity: nodes=x for keyword:show assoc_mgr\n")
    r = c.run("scontrol", "show", "assoc_mgr", "flags=bogus")
    assert r.stderr == ("invalid flag 'bogus', valid options are 'Assoc, "
                        "QOS, and/or Users'\n")
    c.run("scancel", job, check=True)


PRIVATE = {"nodes": 1, "gpus_per_node": 0,
           "up_args": ["--conf-extra=PrivateData=usage,users"]}


@pytest.mark.parametrize("cluster", [PRIVATE], indirect=True)
def test_show_assoc_mgr_private_data(cluster, make_user, test_user):
    c = cluster
    alice, bob = make_user("drassoc1"), make_user("drassoc2")
    setup_accounts(c, [alice, bob])

    def records(user):
        out = c.run("scontrol", "show", "assoc_mgr", "flags=assoc,users",
                    user=user, check=True).stdout
        return (re.findall(r"^UserName=(\w+)\(", out, re.M),
                re.findall(r"^ClusterName=\S+ Account=(\w+) "
                           r"UserName=(\w*)", out, re.M))
    # usage: only one's own user associations; users: one's own record
    assert records(alice) == ([alice], [("research", alice)])
    assert records(bob) == ([bob], [("research", bob)])
    users, assocs = records(None)  # root sees everything
    assert sorted(users) == sorted([alice, bob, "root"])
    assert ("root", "") in assocs and ("research", bob) in assocs
    # a user the accounting does not know sees nothing
    out = c.run("scontrol", "show", "assoc_mgr", "flags=assoc,users",
                user=test_user, check=True).stdout
    assert out == ("Current Association Manager state\n\n"
                   "No users currently cached in Slurm.\n\n\n"
                   "No associations currently cached in Slurm.\n\n")


def listpids(c, *args, user=None, env=None):
    r = c.run("scontrol", "listpids", *args, user=user, env=env)
    lines = r.stdout.splitlines()
    assert lines[0] == HEADER, r.stdout
    rows = [line.split() for line in lines[1:]]
    for line in lines[1:]:  # Slurm's columns, padded
        assert re.fullmatch(r"\d+ +\d+ +\S+ +(\d+|-) +(\d+|-) *", line)
    return r, rows


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_listpids_of_a_running_job(cluster, test_users):
    c = cluster
    require(os.geteuid() == 0, "listpids reads the step cgroups: needs root")
    owner, other = test_users
    job = c.sbatch("-N1", "-n2", "-o", "/dev/null", user=owner,
                   input="#!/bin/bash\nsrun -n2 sleep 300\n")
    c.wait_job_state(job, "RUNNING", timeout=30)
    node = c.job_field(job, "NodeList")
    c.wait_until(lambda: len(c.job_pids(job, steps_only=True)) >= 2,
                 timeout=30, what="step 0's two tasks")

    r, rows = listpids(c, job, node, user=owner)
    assert r.returncode == 0, r.stderr
    assert all(row[1] == job for row in rows)
    # every process of the job, each once: the batch script as task 0 of
    # step batch, srun, and step 0's two tasks with their ranks
    assert sorted(int(row[0]) for row in rows) == sorted(c.job_pids(job))
    tasks = sorted((row[2], row[3], row[4]) for row in rows
                   if row[3] != "-")
    assert tasks == [("0", "0", "0"), ("0", "1", "1"), ("batch", "0", "0")]
    assert sorted(int(row[0]) for row in rows
                  if row[2] == "0" and row[3] != "-") == sorted(
        c.job_pids(job, steps_only=True))
    assert rows[0][2] == "batch"

    # JOBID.STEPID: that step alone; the node from SLURMD_NODENAME
    r, rows = listpids(c, f"{job}.0", user=owner,
                       env={"SLURMD_NODENAME": node})
    assert r.returncode == 0 and {row[2] for row in rows} == {"0"}
    assert len(rows) == 2
    # no job id: every job's steps here (root sees all)
    r, rows = listpids(c, "*", node)
    assert {row[1] for row in rows} == {job}

    # Slurm's messages: no such step, a job not on the node, none at all
    other_node = next(n for n in c.node_names if n != node)
    r, rows = listpids(c, f"{job}.7", node, user=owner)
    assert (r.returncode, rows, r.stderr) == (
        1, [], f"StepId={job}.7 does not exist on node {node}.\n")
    r, rows = listpids(c, job, other_node, user=owner)
    assert (r.returncode, rows, r.stderr) == (
        1, [], f"There are no steps for job {job} on node {other_node}.\n")
    r, rows = listpids(c, "*", other_node)
    assert (r.returncode, r.stderr) == (1, "No job steps exist on this "
                                           "node.\n")
    r = c.run("scontrol", "listpids", "12x")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "\"12x\" does not look like a jobid\n")

    # another user's job: refused; its steps left out of a full listing
    r, rows = listpids(c, job, node, user=other)
    assert (r.returncode, rows, r.stderr) == (
        1, [], "Unable to connect to slurmstepd: Access/permission "
               "denied\n")
    r, rows = listpids(c, "*", node, user=other)
    assert (r.returncode, rows) == (1, [])

    c.run("scancel", job, check=True)
    c.wait_job_done(job, timeout=30)
    r, rows = listpids(c, job, node, user=owner)
    assert (r.returncode, rows, r.stderr) == (
        1, [], f"There are no steps for job {job} on node {node}.\n")
