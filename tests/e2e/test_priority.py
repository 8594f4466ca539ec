# SPDX-License-Identifier: Apache-2.0
"""Multifactor priority and fair-share (issue 11): the order jobs start in
follows the users' usage under Fair Tree, sprio and squeue show the same
priorities the scheduler used, sshare shows the tree, usage survives a
kill -9 of the controller, shares of 40 and 60 split a contended node
about 40/60, and an operator's Priority= and scontrol top reorder jobs.

The golden cluster's weights (slurm-golden/sprio-w): Fairshare 10000,
Age 1000, Partition 1000, QOS 1000.  PriorityCalcPeriod=0:01 (Drover keeps
seconds; Slurm counts whole minutes) so priorities follow the usage
within a second."""
import re
import time

import pytest

PRIO = ["PriorityType=priority/multifactor", "PriorityWeightFairshare=10000",
        "PriorityWeightAge=1000", "PriorityWeightPartition=1000",
        "PriorityWeightQOS=1000", "PriorityCalcPeriod=0:01"]
ONE_NODE = {"nodes": 1, "gpus_per_node": 0,
            "up_args": ["--cpus-per-node=4"]
            + [f"--conf-extra={kv}" for kv in PRIO]}
WHOLE_NODE = ("-n4", "-o", "/dev/null")


def setup_accounts(c, accounts, users):
    """sacctmgr: 'accounts' {name: fairshare}, 'users' {user: account};
    returns once the controller's tree has every user."""
    for acct, share in accounts.items():
        c.run("sacctmgr", "-i", "add", "account", acct, f"fairshare={share}",
              check=True)
    for user, acct in users.items():
        c.run("sacctmgr", "-i", "add", "user", user, f"account={acct}",
              check=True)
    c.wait_until(lambda: all(f"|{u}|" in c.run("sshare", "-a", "-P").stdout
                             for u in users),
                 timeout=20, what="the controller to learn the associations")


def sshare_rows(c):
    """{(account, user): row dict} of sshare -a -P."""
    lines = c.run("sshare", "-a", "-P", check=True).stdout.splitlines()
    keys = lines[0].split("|")
    rows = {}
    for line in lines[1:]:
        row = dict(zip(keys, line.split("|")))
        rows[(row["Account"].strip(), row["User"])] = row
    return rows


def start_order(c, ids):
    """The job ids in the order they started (sacct Start, then id)."""
    out = c.run("sacct", "-X", "-n", "-P", "-o", "JobID,Start", "-j",
                ",".join(ids), check=True).stdout
    starts = [line.split("|") for line in out.splitlines() if line]
    return [j for j, s in sorted(starts, key=lambda r: (r[1], int(r[0])))]


def run_usage(c, user, seconds):
    """A job of 'user' on the whole node for 'seconds'; waits for its end."""
    job = c.sbatch(*WHOLE_NODE, "--wrap", f"sleep {seconds}", user=user)
    c.wait_job_done(job, timeout=30)


@pytest.mark.parametrize("cluster", [ONE_NODE], indirect=True)
def test_fair_tree_orders_jobs_and_sprio_sshare_agree(cluster, make_user):
    c = cluster
    light, heavy = make_user("drprio1"), make_user("drprio2")
    setup_accounts(c, {"research": 1}, {light: "research", heavy: "research"})
    run_usage(c, heavy, 3)

    blocker = c.sbatch(*WHOLE_NODE, "--wrap", "sleep 300", user=heavy)
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    jobs = {}
    for user in (heavy, light, heavy, light):
        jobs[c.sbatch(*WHOLE_NODE, "-t", "1", "--wrap", "sleep 1",
                      user=user)] = user
    time.sleep(2)  # a calculation since

    # sprio: Fair Tree ranks root's own user, then light, then heavy:
    # 3/3, 2/3, 1/3 of 10000; partition factor 1 of 1000 (as the goldens).
    out = c.run("sprio", check=True).stdout.splitlines()
    assert out[0].split() == ["JOBID", "PARTITION", "PRIORITY", "SITE", "AGE",
                              "FAIRSHARE", "PARTITION", "QOS"]
    rows = {r.split()[0]: r.split() for r in out[1:]}
    assert sorted(rows) == sorted(jobs)
    for job, user in jobs.items():
        want = ("7666", "6667") if user == light else ("4333", "3333")
        assert (rows[job][2], rows[job][5], rows[job][6]) == (
            want[0], want[1], "1000"), out
    # squeue's %Q is the same number; -u filters
    q = c.run("squeue", "-h", "-t", "PD", "-o", "%i %Q", check=True).stdout
    assert dict(line.split() for line in q.splitlines()) == {
        j: r[2] for j, r in rows.items()}
    mine = c.run("sprio", "-h", "-u", light, "-o", "%i", check=True).stdout
    assert sorted(mine.split()) == sorted(j for j, u in jobs.items()
                                          if u == light)

    # sshare: heavy carries the usage, light has none
    share = sshare_rows(c)
    assert float(share[("research", heavy)]["RawUsage"]) >= 12  # 4 CPUs x 3 s
    assert share[("research", light)]["RawUsage"] == "0"
    assert share[("research", light)]["FairShare"] == "0.666667"
    assert share[("research", heavy)]["FairShare"] == "0.333333"
    assert share[("root", "root")]["FairShare"] == "1.000000"

    # the node frees: light's jobs run first, in submission order
    c.run("scancel", blocker, check=True)
    for job in jobs:
        c.wait_job_done(job, timeout=60)
    order = start_order(c, list(jobs))
    assert [jobs[j] for j in order] == [light, light, heavy, heavy], order


@pytest.mark.parametrize("cluster", [ONE_NODE], indirect=True)
def test_usage_survives_a_controller_kill(cluster, make_user):
    c = cluster
    user = make_user("drprio1")
    setup_accounts(c, {"research": 1}, {user: "research"})
    run_usage(c, user, 2)
    time.sleep(1.5)
    before = float(sshare_rows(c)[("research", user)]["RawUsage"])
    assert before >= 7  # 4 CPUs x 2 s, decayed a little, truncated
    c.kill("droverctld")
    c.up()
    after = float(sshare_rows(c)[("research", user)]["RawUsage"])
    # the 7-day half-life takes nothing measurable in a few seconds
    assert before - 1 <= after <= before + 1
    journal = (c.dir / "state" / "journal").read_text()
    assert '"ev":"priority_calc"' in journal


@pytest.mark.alone  # the split depends on when each job's usage counts
@pytest.mark.parametrize("cluster", [ONE_NODE], indirect=True)
def test_shares_40_60_split_a_contended_node(cluster, make_user):
    """Two accounts with fairshare 40 and 60 keep the node busy with equal
    one-second jobs: Fair Tree always favours the account furthest below
    its share, so the CPU time splits about 40/60.  CI twice saw 8 and 9
    of the first 15 starts go to the 40 share: the default policy let
    jobs that had waited ten times their predicted run time start before
    jobs of a higher priority (fixed in src/sched/backfill.c; the debug
    build reproduced it about one run in four).  One-second jobs under a
    one-second calculation: it runs in the serial pass."""
    c = cluster
    ua, ub = make_user("drprio1"), make_user("drprio2")
    setup_accounts(c, {"acct40": 40, "acct60": 60}, {ua: "acct40",
                                                     ub: "acct60"})
    blocker = c.sbatch(*WHOLE_NODE, "--wrap", "sleep 300")
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    owner = {}
    for _ in range(10):
        for user in (ua, ub):
            owner[c.sbatch(*WHOLE_NODE, "-t", "1", "--wrap", "sleep 1",
                           user=user)] = user
    c.run("scancel", blocker, check=True)
    for job in owner:
        c.wait_job_done(job, timeout=120)
    first = start_order(c, list(owner))[:15]
    share_a = sum(owner[j] == ua for j in first) / len(first)
    assert 0.3 <= share_a <= 0.5, [owner[j] for j in first]
    rows = sshare_rows(c)
    # root's own user holds 1 share beside them
    assert rows[("acct40", "")]["NormShares"] == f"{40 / 101:.6f}"
    assert rows[("acct60", "")]["NormShares"] == f"{60 / 101:.6f}"


@pytest.mark.parametrize("cluster", [ONE_NODE], indirect=True)
def test_priority_update_and_top(cluster, make_user):
    c = cluster
    user = make_user("drprio1")
    setup_accounts(c, {"research": 1}, {user: "research"})
    blocker = c.sbatch(*WHOLE_NODE, "--wrap", "sleep 300", user=user)
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    a, b, d = (c.sbatch(*WHOLE_NODE, "--wrap", "true", user=user)
               for _ in range(3))

    def prio(job):
        return int(c.job_field(job, "Priority"))

    # a user may lower a job's priority, not raise it
    low = prio(a) - 100
    c.run("scontrol", "update", f"JobId={a}", f"Priority={low}", user=user,
          check=True)
    assert prio(a) == low
    r = c.run("scontrol", "update", f"JobId={a}", "Priority=99999",
              user=user)
    assert r.returncode == 1
    assert "Access/permission denied" in r.stderr
    # an operator (root) may; the value stays through calculations
    c.run("scontrol", "update", f"JobId={b}", "Priority=5", check=True)
    time.sleep(1.5)
    assert prio(b) == 5
    # scontrol top: d moves ahead of the user's other pending jobs
    r = c.run("scontrol", "top", d, user=user)
    assert (r.returncode, r.stderr) == (
        1, "slurm_top_job error: Access/permission denied\n")
    c.run("scontrol", "top", d, check=True)
    assert prio(d) > max(prio(a), prio(b))
    # Priority=0 holds it, as Slurm's admin hold
    c.run("scontrol", "update", f"JobId={a}", "Priority=0", check=True)
    assert c.job_field(a, "Reason") == "JobHeldAdmin"
    c.run("scancel", "-u", user, check=True)


@pytest.mark.parametrize("cluster", [{
    "nodes": 1, "gpus_per_node": 0,
    "up_args": ["--cpus-per-node=4",
                "--conf-extra=SchedulerParameters=enable_user_top"]}],
    indirect=True)
def test_enable_user_top_lets_owners_reorder(cluster, make_user):
    """SchedulerParameters=enable_user_top: the owner may scontrol top
    their own pending jobs, not another user's."""
    c = cluster
    user, other = make_user("drprio1"), make_user("drprio2")
    blocker = c.sbatch(*WHOLE_NODE, "--wrap", "sleep 300", user=user)
    c.wait_job_state(blocker, "RUNNING", timeout=30)
    a, b = (c.sbatch(*WHOLE_NODE, "--wrap", "true", user=user)
            for _ in range(2))
    theirs = c.sbatch(*WHOLE_NODE, "--wrap", "true", user=other)
    r = c.run("scontrol", "top", theirs, user=user)
    assert (r.returncode, r.stderr) == (
        1, "slurm_top_job error: Access/permission denied\n")
    c.run("scontrol", "top", b, user=user, check=True)
    assert int(c.job_field(b, "Priority")) > int(c.job_field(a, "Priority"))
    c.run("scancel", blocker, a, b, theirs, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sprio_under_priority_basic(cluster):
    r = cluster.run("sprio")
    assert r.returncode == 1
    assert re.search(r"not running a supported priority plugin", r.stderr)
