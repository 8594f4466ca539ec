# SPDX-License-Identifier: Apache-2.0
"""A mixed workload with faults on a real local cluster, and the checks
after it (issue 17's soak): bench/soak runs it for 30 minutes on the
sanitizer build, tests/e2e/test_soak.py for a minute on every CI run.

The workload, chosen at random (seeded) one action after another:
batch jobs that end well or fail, jobs with srun steps on two nodes, GPU
jobs, arrays with a throttle, dependencies (afterok, afterany, some to be
never satisfied), interactive srun jobs, cancels of pending and running
jobs, jobs that reach their time limit, as root and as an ordinary user.
The faults, each on its own period, beside it: a node's crash (droverd,
its droverstepd and every process of its jobs killed with SIGKILL, then
droverd started again), droverdbd killed with SIGKILL and started again,
droverctld likewise.

The checks (Soak.check(), once the queue has drained):
  * every command answered (a refusal during a fault is counted, not an
    error; no answer within two minutes is one);
  * every job an sbatch or srun reported, and every task of each array,
    is in sacct exactly once (sacct -X: one record per job, the last run
    of a requeued one), in a state that is final;
  * no job id and no step id appears twice;
  * for the jobs the controller still holds, sacct's state is the
    controller's.
The sanitizer reports are the caller's (conftest.sanitizer_reports on the
cluster's logs, after drover down, when leaks are reported).
"""

import collections
import os
import pwd
import random
import re
import signal
import threading
import time

from cluster import ClusterError, _proc_environ

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
         "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}

# Relative weights of the workload's actions.
ACTIONS = {
    "batch": 30, "fail": 5, "steps": 12, "gpu": 6, "array": 8,
    "depend": 10, "srun": 8, "cancel": 10, "timeout": 1,
}


class Soak:
    """The workload on 'cluster' (a tests/e2e/cluster.Cluster that is
    up, with 3 or more nodes and GPUs), from 'workdir' (a directory every
    user may write).  'user' is an ordinary user for a third of the
    submissions, or None.  'faults' maps "node", "dbd" and "ctld" to the
    seconds between two faults of that kind (0: none).  'log' prints a
    line of progress."""

    def __init__(self, cluster, workdir, seed=1, user=None, faults=None,
                 log=print):
        self.c = cluster
        self.workdir = workdir
        self.rng = random.Random(seed)
        self.user = user
        self.faults = dict(faults or {"node": 60, "dbd": 90, "ctld": 120})
        self.log = log
        self.lock = threading.Lock()
        self.jobs = {}           # job id -> what it was ("batch", ...)
        self.arrays = {}         # array job id -> its task count
        self.recent = collections.deque(maxlen=50)  # ids, for depend/cancel
        self.counts = collections.Counter()
        self.refusals = collections.Counter()  # "kind: message" -> count
        self.stop = threading.Event()

    # --- the workload ---------------------------------------------------

    def run(self, seconds):
        """Drive the workload and the faults for 'seconds'."""
        faults = threading.Thread(target=self._faults, daemon=True)
        faults.start()
        deadline = time.monotonic() + seconds
        names, weights = zip(*ACTIONS.items())
        next_report = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                action = self.rng.choices(names, weights)[0]
                try:
                    getattr(self, "_" + action)()
                    self.counts[action] += 1
                except ClusterError as e:  # a command without an answer
                    self.counts["no answer:" + action] += 1
                    self.log(f"soak: {action}: {e}")
                time.sleep(self.rng.uniform(0.02, 0.2))
                if time.monotonic() >= next_report:
                    next_report += 60
                    self.log(f"soak: {self.summary()}")
        finally:
            self.stop.set()
            faults.join()

    def _who(self):
        return self.user if self.user and self.rng.random() < 1 / 3 else None

    def _submit(self, kind, *args, user=None):
        """sbatch; the job id, recorded with 'kind', or None when sbatch
        failed (a fault may be under way: counted, not an error)."""
        r = self.c.run("sbatch", "--parsable", "-o", "/dev/null", *args,
                       user=user, cwd=self.workdir, timeout=120)
        m = re.fullmatch(r"(\d+)(;\S+)?\n", r.stdout)
        if r.returncode != 0 or not m:
            self._refused(kind, r)
            return None
        with self.lock:
            self.jobs[m.group(1)] = kind
            self.recent.append(m.group(1))
        return m.group(1)

    def _refused(self, kind, r):
        """Count a command that failed (during a fault, most likely), and
        what it said."""
        self.counts["refused:" + kind] += 1
        said = (r.stderr.strip().splitlines() or ["(nothing)"])[-1]
        self.refusals[f"{kind}: {said[:200]}"] += 1

    def _sleep_script(self):
        return f"sleep {self.rng.choice(['0', '0.2', '1', '2', '4'])}"

    def _batch(self):
        self._submit("batch", "--wrap", self._sleep_script(), user=self._who())

    def _fail(self):
        self._submit("fail", "--wrap", "sleep 0.5; exit 3", user=self._who())

    def _steps(self):
        self._submit("steps", "-N2", "-n2", "--wrap",
                     "srun -n2 true && srun -N1 -n1 sleep 1 && srun -n2 "
                     "--overlap hostname >/dev/null", user=self._who())

    def _gpu(self):
        self._submit("gpu", "--gpus=1", "--wrap",
                     'test -n "$CUDA_VISIBLE_DEVICES"; ' + self._sleep_script(),
                     user=self._who())

    def _array(self):
        n = self.rng.randint(2, 8)
        job = self._submit("array", f"--array=0-{n - 1}%3", "--wrap",
                           self._sleep_script(), user=self._who())
        if job:
            with self.lock:
                self.arrays[job] = n

    def _depend(self):
        with self.lock:
            if not self.recent:
                return
            on = self.rng.choice(self.recent)
        kind = self.rng.choice(["afterok", "afterany", "afternotok"])
        args = [f"--dependency={kind}:{on}"]
        if self.rng.random() < 0.5:
            args.append("--kill-on-invalid-dep=yes")
        self._submit("depend", *args, "--wrap", "true")

    def _srun(self):
        """An interactive job of srun's own: its id from the task."""
        r = self.c.run("srun", "-N1", "-n1", "sh", "-c", "echo $SLURM_JOB_ID",
                       user=self._who(), cwd=self.workdir, timeout=120)
        if r.returncode != 0 or not r.stdout.strip().isdigit():
            self._refused("srun", r)
            return
        with self.lock:
            self.jobs[r.stdout.strip()] = "srun"

    def _cancel(self):
        with self.lock:
            if not self.recent:
                return
            job = self.rng.choice(self.recent)
        self.c.run("scancel", job, timeout=60)

    def _timeout(self):
        self._submit("timeout", "--time=1", "--wrap", "sleep 300")

    # --- the faults -----------------------------------------------------

    def _faults(self):
        now = time.monotonic()
        due = {k: now + v for k, v in self.faults.items() if v}
        while due and not self.stop.wait(1):
            for kind, at in list(due.items()):
                if time.monotonic() < at:
                    continue
                try:
                    getattr(self, "_fault_" + kind)()
                    self.counts["fault:" + kind] += 1
                except ClusterError as e:
                    self.counts["fault failed:" + kind] += 1
                    self.log(f"soak: fault {kind} failed: {e}")
                due[kind] = time.monotonic() + self.faults[kind]

    def _fault_node(self):
        """A node's crash: its daemons and its jobs' processes die at
        once; then droverd starts again (drover up), without them."""
        node = self.rng.choice(self.c.node_names)
        self.crash_node(node)
        time.sleep(self.rng.uniform(0.5, 3))
        self.c.start()

    def crash_node(self, node):
        self.c.kill("droverd", signal.SIGKILL, node=node)
        self.c.kill_stepds(node)
        want = f"SLURMD_NODENAME={node}".encode()
        for pid in self.c.processes():
            if want in _proc_environ(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def _fault_dbd(self):
        self.c.kill("droverdbd", signal.SIGKILL)
        time.sleep(self.rng.uniform(0.5, 5))
        self.c.start()

    def _fault_ctld(self):
        self.c.kill("droverctld", signal.SIGKILL)
        time.sleep(self.rng.uniform(0.2, 2))
        self.c.start()

    # --- the end and the checks -----------------------------------------

    def drain(self, timeout=600):
        """Start whatever is down, then wait until no job is left but
        those whose dependency can never be satisfied (cancelled, as an
        admin would)."""
        self.c.start()
        deadline = time.monotonic() + timeout
        while True:
            r = self.c.run("squeue", "-h", "-o", "%i %T %r", timeout=120)
            if r.returncode == 0:
                left = [line.split() for line in r.stdout.splitlines()]
                never = [f[0] for f in left
                         if f[2:] == ["DependencyNeverSatisfied"]]
                if never:
                    self.c.run("scancel", *never, timeout=60)
                if not left:
                    return
            if time.monotonic() >= deadline:
                raise ClusterError(f"the queue did not drain within "
                                   f"{timeout}s: {r.stdout[:2000]}")
            time.sleep(1)

    def sacct(self, *args):
        r = self.c.run("sacct", "-a", "-n", "-P", "-S", "2020-01-01",
                       *args, timeout=300)
        if r.returncode != 0:
            raise ClusterError(f"sacct: {r.stderr}")
        return [line.split("|") for line in r.stdout.splitlines()]

    def _missing(self):
        """What sacct does not show yet as the checks want it: a list of
        job ids (empty when all are there and final)."""
        rows = self.sacct("-X", "-o", "JobIDRaw,JobID,State")
        seen = {raw: state.split()[0] for raw, _, state in rows}
        covered = self._array_tasks(rows)
        with self.lock:
            wanted = dict(self.jobs)
            arrays = dict(self.arrays)
        missing = [j for j in wanted if j not in arrays
                   and seen.get(j) not in FINAL]
        missing += [j for j, n in arrays.items()
                    if sorted(covered.get(j, [])) != list(range(n))]
        return missing + [raw for raw, state in seen.items()
                          if state not in FINAL]

    @staticmethod
    def _array_tasks(rows):
        """{array job id: [task index, ...]} from sacct -X's JobID column
        (N_K for a task, N_[A-B,...] for tasks never split from it)."""
        tasks = collections.defaultdict(list)
        for _, jobid, _ in rows:
            m = re.fullmatch(r"(\d+)_(\d+)", jobid)
            if m:
                tasks[m.group(1)].append(int(m.group(2)))
                continue
            m = re.fullmatch(r"(\d+)_\[([\d,\-]+)(%\d+)?\]", jobid)
            if m:
                for part in m.group(2).split(","):
                    lo, _, hi = part.partition("-")
                    tasks[m.group(1)] += range(int(lo), int(hi or lo) + 1)
        return tasks

    def check(self, timeout=300):
        """The checks (module docstring); raises AssertionError naming
        the first broken one.  Returns a summary line."""
        hung = {k: n for k, n in self.counts.items()
                if k.startswith("no answer:")}
        assert not hung, f"commands that did not answer in time: {hung}"
        deadline = time.monotonic() + timeout
        while (missing := self._missing()) and time.monotonic() < deadline:
            time.sleep(2)
        assert not missing, (f"{len(missing)} jobs not in sacct with a "
                             f"final state: {missing[:20]}")
        rows = self.sacct("-X", "-o", "JobIDRaw,JobID,State")
        raws = collections.Counter(r[0] for r in rows)
        twice = [j for j, n in raws.items() if n > 1]
        assert not twice, f"jobs twice in sacct -X: {twice[:20]}"
        covered = self._array_tasks(rows)
        for job, tasks in covered.items():
            assert len(tasks) == len(set(tasks)), \
                f"array {job}'s tasks twice in sacct: {sorted(tasks)}"
        steps = collections.Counter(r[0] for r in self.sacct(
            "-o", "JobIDRaw") if "." in r[0])
        twice = [s for s, n in steps.items() if n > 1]
        assert not twice, f"steps twice in sacct: {twice[:20]}"
        # sacct agrees with the controller on the jobs it still holds
        r = self.c.run("squeue", "-h", "-t", "all", "-r", "-o", "%A %T",
                       timeout=120, check=True)
        held = dict(line.split() for line in r.stdout.splitlines())
        state = {raw: s.split()[0] for raw, _, s in rows}
        differ = [(j, s, state.get(j)) for j, s in held.items()
                  if s in FINAL and state.get(j) != s]
        assert not differ, f"sacct and the controller differ: {differ[:20]}"
        return (f"{len(rows)} jobs in sacct, {sum(steps.values())} steps, "
                f"each once; {len(held)} still held by the controller agree")

    def summary(self):
        with self.lock:
            n = len(self.jobs)
        parts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        return f"{n} jobs recorded; {parts}"


def ordinary_user(name="druser1"):
    """'name' if that user exists, else None."""
    try:
        pwd.getpwnam(name)
        return name
    except KeyError:
        return None

