# SPDX-License-Identifier: Apache-2.0
"""drover-sim --from-accounting (issue 12): a real cluster runs a set of
jobs, and replaying its accounting (sacct --json) through drover-sim on
the cluster's own slurm.conf gives the start order the controller gave,
under both backfill policies (SchedulerParameters drover_backfill).

The workload, on one node of 8 CPUs, submitted in this order (limits in
minutes, what each job really does in seconds):

    A  6 CPUs  --time=3   sleep 20
    B  8 CPUs  --time=2   sleep 5
    C  2 CPUs  --time=10  sleep 3
    D  2 CPUs  --time=1   sleep 6
    E  1 CPU   --time=1   sleep 5
    F  1 CPU   --time=1   sleep 4

With drover_backfill=slurm (Slurm's sched/backfill): A starts at once; B
waits for A (Resources) and holds the one reservation, at A's limit
(~3 min); C fits beside A but its limit runs past B's reservation: it
waits (Priority); D fits beside A and ends before the reservation: it
backfills at once; E and F find no CPU and backfill when D ends (~6 s);
then B when A ends (~20 s), C when B ends (~25 s).  Start order: A, D;
E, F; B; C.

With Drover's default (drover_backfill=predict, src/sched/backfill.h):
B has not waited 10 times its planned time, so it holds no reservation;
C fits beside A and starts at once; D waits for C's CPUs (~3 s; the
jobs are all one user's, so from then on each is planned for that
user's last run times and they keep queue order); E and F start when D
ends (~9 s); B when A ends (~20 s).  Start order: A, C; D; E, F; B.

Either way jobs overtake earlier ones for reasons the replay must
reproduce (a reservation or none, a limit too long to backfill, CPUs too
few, predicted times).  Waves are 3 s or more apart, and limits are
minutes apart where the decisions hinge on them, so a second or two of
jitter (job launch, sacct's whole seconds, the 60 s bf_resolution grid,
whose phase differs between the epoch and the replay's time 0) changes
nothing.

"Nothing else differs" between the controller's passes and the replay's:
  - the same sched_pass() and policy with the same knobs (the cluster's
    SchedulerParameters, as both read them), on the same node (CPUs from
    the cluster's slurm.conf);
  - priority is plain submission order: PriorityType=priority/basic (set
    explicitly below) and one partition (no PriorityTier), no nice, no
    holds, no dependencies; the replay's queue is in submission order;
  - each job's run time is what sacct recorded (end - start), and its
    limit its --time; the run times the predictions learn are the same;
  - no other jobs, reservations, limits (AccountingStorageEnforce),
    preemption or gang scheduling on the cluster, and every node up;
  - the controller runs a pass within a second of each submission and
    end (it does, milliseconds after); the replay runs one per second
    with events.
The test checks the real run followed the design first (otherwise the
premise broke, and it says so), then that the replay orders every pair of
jobs the real run started 3 s or more apart the same way, and puts every
start within a few seconds of the real one.
"""
import datetime
import json
import time

import pytest

CLUSTER = {"nodes": 1, "gpus_per_node": 0,
           "up_args": ["--cpus-per-node=8",
                       "--conf-extra=PriorityType=priority/basic"]}
SLURM_CLUSTER = dict(CLUSTER, up_args=CLUSTER["up_args"] + [
    "--conf-extra=SchedulerParameters=drover_backfill=slurm"])

# name: (CPUs, --time minutes, sleep seconds), in submission order
WORKLOAD = [
    ("A", 6, 3, 20),
    ("B", 8, 2, 5),
    ("C", 2, 10, 3),
    ("D", 2, 1, 6),
    ("E", 1, 1, 5),
    ("F", 1, 1, 4),
]
# The waves of the designed start order, and a pair FCFS (no backfill)
# starts the other way round, per policy.
DESIGNS = {
    "slurm": ([{"A", "D"}, {"E", "F"}, {"B"}, {"C"}], ("D", "B")),
    "predict": ([{"A", "C"}, {"D"}, {"E", "F"}, {"B"}], ("C", "B")),
}
APART_S = 3     # pairs started this far apart must keep their order
NEAR_S = 4      # replayed starts within this of the real ones


def submit_workload(cluster, tmp_path):
    ids = {}
    for name, cpus, minutes, sleep in WORKLOAD:
        ids[name] = cluster.sbatch("-J", name, "-n", str(cpus),
                                   f"--time={minutes}", "-o", "/dev/null",
                                   "--wrap", f"sleep {sleep}", cwd=tmp_path)
    return ids


def sacct_json(cluster, ids):
    r = cluster.run("sacct", "--json", "-X", "-j", ",".join(ids.values()),
                    check=True)
    return json.loads(r.stdout)


def wait_all_recorded(cluster, ids):
    """Wait until droverdbd has every job COMPLETED, with its end."""
    def done():
        doc = sacct_json(cluster, ids)
        jobs = doc["jobs"]
        ok = (len(jobs) == len(ids)
              and all(j["state"]["current"] == "COMPLETED"
                      and j["time"]["end"] > 0 for j in jobs))
        return doc if ok else None
    return cluster.wait_until(done, timeout=120,
                              what="sacct showing every job COMPLETED")


def real_times(doc, names):
    """{name: (submit, start)} in seconds from the first submission."""
    first = min(j["time"]["submission"] for j in doc["jobs"])
    return {names[j["job_id"]]: (j["time"]["submission"] - first,
                                 j["time"]["start"] - first)
            for j in doc["jobs"]}


def replay(cluster, *source_args, policy="default"):
    """drover-sim --conf <the cluster's> --policy POLICY --jobs -: the
    output, and {job id: (submit, start)}."""
    r = cluster.run("drover-sim", "--conf", cluster.conf,
                    "--policy", policy, "--jobs", "-", *source_args,
                    check=True, timeout=120)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] == policy:
            out[int(f[1])] = (int(f[2]), int(f[3]))
    return r.stdout, out


def reordered(real, replayed):
    """Pairs (x, y) the real run started APART_S or more apart, x first,
    that the replay does not start x before y."""
    return [(x, y) for x in real for y in real
            if real[y] - real[x] >= APART_S and not replayed[x] < replayed[y]]


def waves(starts, gap=APART_S):
    """Names grouped by start time: a new wave where starts are 'gap'
    seconds or more after the previous one."""
    order = sorted(starts, key=lambda n: starts[n])
    groups, last = [], None
    for n in order:
        if last is None or starts[n] - last >= gap:
            groups.append(set())
        groups[-1].add(n)
        last = starts[n]
    return groups


@pytest.mark.parametrize("cluster,policy",
                         [(CLUSTER, "predict"), (SLURM_CLUSTER, "slurm")],
                         indirect=["cluster"])
def test_replayed_accounting_gives_the_real_start_order(cluster, policy,
                                                        tmp_path):
    design, fcfs_pair = DESIGNS[policy]
    ids = submit_workload(cluster, tmp_path)
    names = {int(v): k for k, v in ids.items()}
    doc = wait_all_recorded(cluster, ids)
    real = real_times(doc, names)
    real_start = {n: s for n, (_, s) in real.items()}
    assert waves(real_start) == design, (
        f"the real run did not follow the designed order (a slow machine?):"
        f" starts {real_start}")

    acct = tmp_path / "acct.json"
    acct.write_text(json.dumps(doc))
    table, sim = replay(cluster, "--from-accounting", acct)
    assert sorted(sim) == sorted(names), table
    sim_start = {names[i]: s for i, (_, s) in sim.items()}
    sim_submit = {names[i]: sub for i, (sub, _) in sim.items()}
    assert sim_submit == {n: sub for n, (sub, _) in real.items()}, table

    wrong = reordered(real_start, sim_start)
    assert not wrong, (f"the replay reorders {wrong}: real starts "
                       f"{real_start}, replayed {sim_start}")
    far = {n: (real_start[n], sim_start[n]) for n in real_start
           if abs(real_start[n] - sim_start[n]) > NEAR_S}
    assert not far, f"replayed starts far from the real ones: {far}"

    # The check can fail: FCFS (no backfill) on the same accounting starts
    # every job behind B only after B, and the comparison says so.
    _, fcfs = replay(cluster, "--from-accounting", acct, policy="fcfs")
    fcfs_start = {names[i]: s for i, (_, s) in fcfs.items()}
    assert fcfs_pair in reordered(real_start, fcfs_start), fcfs_start


@pytest.mark.parametrize("cluster", [CLUSTER], indirect=True)
def test_a_date_range_runs_sacct_and_replays_the_same(cluster, tmp_path):
    """--from-accounting YYYY-MM-DD..YYYY-MM-DD runs our sacct (the one
    beside drover-sim) and replays what it prints, as from a file."""
    ids = {"A": cluster.sbatch("-n", "4", "--time=1", "-o", "/dev/null",
                               "--wrap", "sleep 2", cwd=tmp_path),
           "B": cluster.sbatch("-n", "8", "--time=1", "-o", "/dev/null",
                               "--wrap", "sleep 1", cwd=tmp_path)}
    doc = wait_all_recorded(cluster, ids)
    today = datetime.date.fromtimestamp(time.time())
    span = (f"{today - datetime.timedelta(days=1)}.."
            f"{today + datetime.timedelta(days=1)}")
    _, by_range = replay(cluster, "--from-accounting", span)
    acct = tmp_path / "acct.json"
    acct.write_text(json.dumps(doc))
    _, by_file = replay(cluster, "--from-accounting", acct)
    assert by_range == by_file and len(by_file) == 2
    a, b = int(ids["A"]), int(ids["B"])
    assert by_file[b][1] >= by_file[a][1] + 1  # B waits for A's CPUs
