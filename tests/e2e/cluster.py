# SPDX-License-Identifier: Apache-2.0
"""A real local Drover cluster for end-to-end tests.

Cluster is a thin wrapper over `drover up` / `drover down`: the daemons,
commands and jobs are the real ones, started in a directory of the test's
own, exactly as a user would start them.  Every external command runs with
a timeout, and waiting is done with bounded polling (wait_until), never a
bare sleep.

The build's commands come first on PATH.  Real Slurm may be installed in
/usr/bin on the same machine, so the fixture checks that the commands it
runs resolve inside the build (or DROVER_TEST_PREFIX) before it trusts them.
"""

import hashlib
import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The commands Drover provides under Slurm's names: these must never fall
# through to an installed Slurm.
SLURM_COMMANDS = (
    "sbatch", "srun", "salloc", "squeue", "sinfo", "scancel", "scontrol",
    "sacct", "sacctmgr", "sprio", "sshare", "sdiag", "sreport", "sstat",
    "sbcast", "strigger", "scrontab", "sattach",
)

# Variables that change what Slurm's commands print or submit; the tests
# start from none of them.
_SCRUB_PREFIXES = ("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_",
                   "SINFO_", "SCONTROL_", "SACCT_", "SPRIO_", "SSHARE_")
_SCRUB = {"DROVER_CONF", "SLURM_CONF"}

# What runuser must not be told: the target user's own values win.
_USER_OWN = {"HOME", "USER", "LOGNAME", "SHELL", "MAIL", "PWD", "OLDPWD",
             "XDG_RUNTIME_DIR", "XDG_SESSION_ID"}

LOG_TAIL_LINES = 40


class ClusterError(AssertionError):
    """A cluster operation failed; the message says what and shows output."""


def require(ok, reason):
    """A test's prerequisite that is not Drover's (tmux, mpicc, a private
    PostgreSQL server): skip when it is missing, but fail when
    DROVER_TEST_STRICT=1 (.ci/run installs every one of them, so there a
    missing one is a broken CI machine, not a reason to skip)."""
    import pytest  # only tests call this; cluster.py stays usable alone
    if ok:
        return
    if os.environ.get("DROVER_TEST_STRICT") == "1":
        pytest.fail(f"prerequisite missing under DROVER_TEST_STRICT: {reason}")
    pytest.skip(reason)


PG_PRIVATE = REPO / "tests" / "pg_private.sh"


def pg_conf_args(pg):
    """drover up arguments for a droverdbd storing in PostgreSQL server
    'pg' (the pg_server fixture's dict)."""
    return [f"--dbd-conf-extra={k}={v}" for k, v in (
        ("StorageType", "accounting_storage/pgsql"),
        ("StorageHost", pg["host"]), ("StoragePort", pg["port"]),
        ("StorageUser", pg["user"]), ("StoragePass", "drover-test"),
        ("StorageLoc", pg["db"]))]


def build_dir():
    """The meson build directory: $DROVER_BUILD_DIR, else <repo>/build."""
    return Path(os.environ.get("DROVER_BUILD_DIR", REPO / "build")).resolve()


def command_dirs():
    """(bin_dir, sbin_dir) holding the commands and the daemons to test.

    DROVER_TEST_PREFIX=/usr tests installed binaries (PREFIX/bin and
    PREFIX/sbin); otherwise the build tree's src/cmd, src/ctld, src/noded.
    """
    prefix = os.environ.get("DROVER_TEST_PREFIX")
    if prefix:
        return Path(prefix) / "bin", Path(prefix) / "sbin"
    b = build_dir()
    return b / "src" / "cmd", None


_DAEMON_SUBDIRS = {"droverctld": "ctld", "droverd": "noded", "droverdbd": "dbd",
                   "droverrestd": "restd"}


def binary(name):
    """The path of one of Drover's programs under test: a daemon
    (droverctld, droverd) or a command (drover, sbatch, ...)."""
    bin_dir, sbin_dir = command_dirs()
    if name in _DAEMON_SUBDIRS:
        if sbin_dir:
            return sbin_dir / name
        return build_dir() / "src" / _DAEMON_SUBDIRS[name] / name
    return bin_dir / name


def wait_until(pred, timeout=30.0, what="the condition", interval=0.05):
    """Poll pred() until it returns something true, and return that.

    Raises ClusterError naming 'what' (and pred's last value) when 'timeout'
    seconds pass first.  Exceptions from pred propagate.
    """
    deadline = time.monotonic() + timeout
    delay = interval
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise ClusterError(f"timed out after {timeout:g}s waiting for "
                               f"{what} (last value: {value!r})")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


def tail(path, lines=LOG_TAIL_LINES):
    """The last 'lines' lines of a text file, or a note saying why not."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            text = f.read().decode(errors="replace")
    except OSError as e:
        return f"(cannot read {path}: {e.strerror})"
    return "\n".join(text.splitlines()[-lines:])


def parse_scontrol_record(line):
    """One line of `scontrol -o show ...` as a dict of Key -> value.

    Values may contain spaces (Command=, Reason=): a value runs up to the
    next " Key=" where Key looks like one of scontrol's keys.
    """
    keys = list(re.finditer(r"(?:^|\s)([A-Za-z][\w:/.]*)=", line))
    rec = {}
    for i, m in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
        rec[m.group(1)] = line[m.end():end].strip()
    return rec


def _proc_cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def _proc_environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def _proc_alive(pid):
    """True if pid exists and is not a zombie.  A process is a zombie only
    once all its threads have exited: its main thread turns 'Z' first,
    while the others (a daemon's thread pool) may still hold its
    descriptors, its listening port included."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX":
            return True
    return False


def run_job(cluster, tmp_path, script, *args, states=("COMPLETED",)):
    """Run 'script' (bash lines) as a batch job in 'tmp_path' with sbatch
    'args'; wait until it reaches one of 'states'.  Returns (job id, its
    stdout, its stderr)."""
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/bash\n" + script)
    job_id = cluster.sbatch("-o", "out.txt", "-e", "err.txt", *args, str(path),
                            cwd=tmp_path)
    cluster.wait_job_state(job_id, list(states), timeout=60)
    return (job_id, (tmp_path / "out.txt").read_text(),
            (tmp_path / "err.txt").read_text())


# drover up's own range for the ports it picks: PORT_LOW up to the kernel's
# ephemeral ports (src/cmd/lib/drover_cluster.c).
AUTO_PORTS = (10000, 32768)


def _port_free(port):
    """Whether a TCP port can be bound on every address (as drover up
    checks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def worker_port_base(count):
    """A --port-base for drover up with 'count' free ports after it, in
    this pytest-xdist worker's own share of AUTO_PORTS; None when not
    under several workers (drover up picks, as a user's would).

    drover up checks that the ports it picks are free, but its daemons bind
    them only later: two workers' clusters starting at once could pick the
    same ones.  Shares that do not overlap rule that out.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # gw0, gw1, ...
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2 or not re.fullmatch(r"gw\d+", worker):
        return None
    share = (AUTO_PORTS[1] - AUTO_PORTS[0]) // workers
    low = AUTO_PORTS[0] + int(worker[2:]) * share
    for _ in range(500):
        base = random.randrange(low, low + share - count)
        if all(_port_free(p) for p in range(base, base + count)):
            return base
    raise ClusterError(f"no {count} free consecutive ports in "
                       f"{low}-{low + share - 1} (worker {worker})")


class Cluster:
    """A local cluster in 'root' (a directory of the test's own).

    root/cluster is drover's --dir; root/work is a scratch directory that
    every user can write, the default working directory of run().
    """

    def __init__(self, root, nodes=4, gpus_per_node=8, up_args=()):
        self.root = Path(root)
        self.dir = self.root / "cluster"
        self.workdir = self.root / "work"
        self.nodes = nodes
        self.gpus_per_node = gpus_per_node
        self.up_args = list(up_args)
        self.bin_dir, self.sbin_dir = command_dirs()
        self.drover = self.bin_dir / "drover"
        self.conf = self.dir / "etc" / "slurm.conf"
        self.node_names = [f"node{i:02d}" for i in range(1, nodes + 1)]
        self.env = self._make_env()
        self.user = pwd.getpwuid(os.geteuid()).pw_name  # who runs the tests
        self.last_up = None
        self._check_binaries()
        self.workdir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o755)
        os.chmod(self.workdir, 0o1777)

    # --- environment and binaries -----------------------------------------

    def _make_env(self):
        env = {k: v for k, v in os.environ.items()
               if k not in _SCRUB and not k.startswith(_SCRUB_PREFIXES)}
        env["DROVER_CONF"] = str(self.conf)
        env["PATH"] = f"{self.bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        if self.sbin_dir:
            env["DROVER_SBIN_DIR"] = str(self.sbin_dir)
        env["LC_ALL"] = "C.UTF-8"
        return env

    def which(self, name):
        """Where 'name' resolves on this cluster's PATH, or None."""
        found = shutil.which(name, path=self.env["PATH"])
        return Path(found).resolve() if found else None

    def _check_ours(self, name):
        path = self.which(name)
        if path is None or path.parent != self.bin_dir.resolve():
            raise ClusterError(
                f"{name} resolves to {path or 'nothing'}, not to "
                f"{self.bin_dir}/{name}: build it first (meson compile -C "
                f"{build_dir()}), or set DROVER_BUILD_DIR; refusing to test "
                f"another Slurm")

    def _check_binaries(self):
        self._check_ours("drover")
        self._check_ours("sbatch")
        out = subprocess.run([str(self.which("sbatch")), "--version"],
                             env=self.env, capture_output=True, text=True,
                             timeout=30)
        if out.returncode != 0:
            raise ClusterError(f"sbatch --version failed: {out.stderr}")

    # --- running commands -------------------------------------------------

    def wait_until(self, pred, timeout=30.0, what="the condition"):
        """wait_until() of this module, as a method for tests' convenience."""
        return wait_until(pred, timeout, what)

    def user_workdir(self, user):
        """A working directory owned by 'user' (made on first use)."""
        d = self.root / f"work-{user}"
        if not d.exists():
            pw = pwd.getpwnam(user)
            d.mkdir()
            os.chown(d, pw.pw_uid, pw.pw_gid)
        return d

    def run(self, *args, user=None, check=False, timeout=60, input=None,
            cwd=None, env=None):
        """Run a real command with this cluster's environment.

        user: run it as that user (runuser -u USER -- env ...), from a
        directory of theirs unless 'cwd' is given.  env: extra variables.
        Returns the CompletedProcess (text mode).  check=True raises
        ClusterError, with the output, on a non-zero exit.
        """
        args = [str(a) for a in args]
        if args and args[0] in SLURM_COMMANDS:
            self._check_ours(args[0])
        full_env = dict(self.env, **(env or {}))
        cmd = args
        if user is not None:
            passed = [f"{k}={v}" for k, v in full_env.items()
                      if k not in _USER_OWN]
            cmd = ["runuser", "-u", user, "--", "env", *passed, *args]
            if cwd is None:
                cwd = self.user_workdir(user)
        if cwd is None:
            cwd = self.workdir
        try:
            r = subprocess.run(cmd, env=full_env, cwd=cwd, input=input,
                               capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise ClusterError(f"{' '.join(args)}: no answer within "
                               f"{timeout}s\nstdout: {e.stdout}\n"
                               f"stderr: {e.stderr}") from None
        if check and r.returncode != 0:
            raise ClusterError(f"{' '.join(args)} exited {r.returncode}\n"
                               f"stdout: {r.stdout}\nstderr: {r.stderr}")
        return r

    def sbatch(self, *args, user=None, cwd=None, input=None, timeout=60):
        """Submit with the real sbatch; return the job id as printed (str)."""
        r = self.run("sbatch", *args, user=user, cwd=cwd, input=input,
                     timeout=timeout, check=True)
        m = re.search(r"^Submitted batch job (\d+)$", r.stdout, re.M)
        if not m:
            m = re.fullmatch(r"(\d+)(;\S+)?\n", r.stdout)  # --parsable
        if not m:
            raise ClusterError(f"sbatch printed no job id: {r.stdout!r} "
                               f"{r.stderr!r}")
        return m.group(1)

    # --- lifecycle --------------------------------------------------------

    def drover_cmd(self, *args, timeout=120):
        """Run the build's drover with --dir (not checked)."""
        return self.run(self.drover, *args, "--dir", self.dir,
                        timeout=timeout)

    def up(self, timeout=120):
        """drover up: returns once the controller answers and every node is
        up.  The first call makes the cluster with this Cluster's shape;
        later ones start whatever is not running.
        """
        args = ["up", f"--nodes={self.nodes}",
                f"--gpus-per-node={self.gpus_per_node}", *self.up_args]
        # Ports of the controller, nodes, droverdbd, droverrestd,
        # drover-emud, a Raft group, nodes' metrics: at most this many.
        base = worker_port_base(2 * self.nodes + 5)
        if base and not any(a.startswith("--port-base") for a in args):
            args.append(f"--port-base={base}")
        if self.conf.exists():
            args = ["up"]
        r = self.drover_cmd(*args, timeout=timeout)
        self.last_up = r
        if r.returncode != 0:
            raise ClusterError(f"drover up failed ({r.returncode}):\n"
                               f"{r.stdout}{r.stderr}\n{self.log_tails()}")
        return r

    def start(self, *what, timeout=120):
        """Bring back whatever was stopped or killed (drover up again).

        'what' names are accepted for readability (start("droverctld")):
        drover up starts every daemon that is not running.
        """
        return self.up(timeout=timeout)

    def down(self, timeout=60):
        """drover down: stop every daemon and job of this cluster."""
        r = self.drover_cmd("down", timeout=timeout)
        if r.returncode != 0:
            raise ClusterError(f"drover down failed: {r.stdout}{r.stderr}")
        return r

    def status(self):
        """drover status as (exit code, {daemon: pid or None})."""
        r = self.drover_cmd("status", timeout=30)
        daemons = {}
        for line in r.stdout.splitlines():
            m = re.match(r"(\S+(?: \S+)?)\s+(running|stopped)(?:\s+pid (\d+))?"
                         r"(?:\s+\S.*)?$", line.strip())
            if m:
                daemons[m.group(1)] = int(m.group(3)) if m.group(3) else None
        return r.returncode, daemons

    # --- daemons ----------------------------------------------------------

    def pidfile(self, name):
        """The pid file of 'droverctld', 'munged', 'node02' or
        'droverd node02'."""
        name = name.replace("droverd ", "").replace("droverctld ", "")
        if name == "droverctld":
            return self.dir / "run" / "droverctld.pid"
        if re.fullmatch(r"ctl\d+", name):  # one of a Raft group
            return self.dir / "run" / f"droverctld-{name}.pid"
        if name == "munged":
            return self.dir / "munge" / "munged.pid"
        if name == "droverdbd":
            return self.dir / "run" / "droverdbd.pid"
        if name == "droverrestd":
            return self.dir / "run" / "droverrestd.pid"
        if name in self.node_names:
            return self.dir / "run" / f"droverd-{name}.pid"
        raise ValueError(f"no daemon called {name!r}")

    def log_file(self, name):
        name = name.replace("droverd ", "").replace("droverctld ", "")
        if name == "droverctld":
            return self.dir / "log" / "droverctld.log"
        if re.fullmatch(r"ctl\d+", name):
            return self.dir / "log" / f"droverctld-{name}.log"
        if name == "munged":
            return self.dir / "munge" / "munged.log"
        if name == "droverdbd":
            return self.dir / "log" / "droverdbd.log"
        if name == "droverrestd":
            return self.dir / "log" / "droverrestd.log"
        if name == "drover-emud":
            return self.dir / "log" / "drover-emud.log"
        return self.dir / "log" / f"droverd-{name}.log"

    def controller_roles(self):
        """{ctl1: "leader" | "follower" | ... | None (stopped)} of a Raft
        group, from drover status."""
        roles = {}
        r = self.drover_cmd("status", timeout=30)
        for line in r.stdout.splitlines():
            m = re.match(r"droverctld (ctl\d+)\s+(running|stopped)"
                         r"(?:\s+pid \d+\s+(.*))?$", line.strip())
            if m:
                roles[m.group(1)] = m.group(3) if m.group(2) == "running" \
                    else None
        return roles

    def leader(self, timeout=30):
        """The controller that leads the Raft group, once one does."""
        found = []

        def one():
            found[:] = [n for n, r in self.controller_roles().items()
                        if r == "leader"]
            return len(found) == 1
        self.wait_until(one, timeout=timeout, what="a Raft leader")
        return found[0]

    def held_submitter(self, cwd):
        """A thread submitting held jobs one after another while the test
        kills daemons: use as `with cluster.held_submitter(tmp) as acked:`;
        'acked' lists the ids sbatch printed (acknowledged jobs), and the
        thread stops when the block ends."""
        return _HeldSubmitter(self, cwd)

    def pid(self, name):
        """The pid of a running daemon, from its pid file, or None."""
        try:
            pid = int(self.pidfile(name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return pid if _proc_alive(pid) else None

    def restart_alone(self, name, timeout=30):
        """kill -9 one daemon and start it again with the same command line
        and environment, without `drover up` (which would also start any
        other daemon a test keeps down).  The pid file is rewritten by the
        daemon itself; output goes to its log as under drover up."""
        pid = self.pid(name)
        if pid is None:
            raise ClusterError(f"{name} is not running")
        argv = [a for a in _proc_cmdline(pid) if a]
        env = dict(e.split(b"=", 1) for e in _proc_environ(pid) if b"=" in e)
        cwd = os.readlink(f"/proc/{pid}/cwd")
        self.kill(name, signal.SIGKILL)
        with open(self.log_file(name), "ab") as log:
            subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=log, stderr=log, start_new_session=True)
        self.wait_until(lambda: self.pid(name) not in (None, pid),
                        timeout=timeout, what=f"{name} restarted")

    def kill(self, name, sig=signal.SIGKILL, node=None, timeout=10):
        """Send 'sig' to a daemon: kill("droverctld"), kill("node02") or
        kill("droverd", node="node02").  After SIGKILL, waits until the
        process is gone.  Returns its pid.
        """
        if node:
            name = node
        pid = self.pid(name)
        if pid is None:
            raise ClusterError(f"{name} is not running (pid file "
                               f"{self.pidfile(name)})")
        os.kill(pid, sig)
        if sig == signal.SIGKILL:
            wait_until(lambda: not _proc_alive(pid), timeout,
                       f"{name} (pid {pid}) to die")
        return pid

    def kill_stepds(self, node, sig=signal.SIGKILL):
        """Send 'sig' to the droverstepd processes of 'node' (one per
        step running there): with kill("droverd", node=...), what a
        node's crash does to its daemons.  Returns their pids."""
        pids = []
        for pid in self.processes():
            argv = _proc_cmdline(pid)
            if argv and argv[0].endswith(b"droverstepd") \
                    and node.encode() in argv:
                try:
                    os.kill(pid, sig)
                    pids.append(pid)
                except ProcessLookupError:
                    pass
        return pids

    def processes(self):
        """Pids of every process of this cluster: daemons whose command
        line names its directory, and jobs whose SLURM_CONF is its conf.
        (Only processes whose /proc entries we may read are seen.)
        """
        d = str(self.dir).encode()
        conf = f"SLURM_CONF={self.conf}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            pid = int(entry)
            if not _proc_alive(pid):
                continue
            if any(d in a for a in _proc_cmdline(pid)[1:]) \
                    or conf in _proc_environ(pid):
                found.append(pid)
        return found

    def job_pids(self, job_id, steps_only=False):
        """Pids of this cluster's processes running for job 'job_id'
        (SLURM_JOB_ID in their environment); with steps_only, only step
        tasks (SLURM_STEP_ID set too)."""
        want = f"SLURM_JOB_ID={job_id}".encode()
        pids = []
        for pid in self.processes():
            env = _proc_environ(pid)
            if want in env and (not steps_only or any(
                    v.startswith(b"SLURM_STEP_ID=") for v in env)):
                pids.append(pid)
        return pids

    def gpus_isolated(self, node="node01"):
        """Whether jobs on 'node' have the node's other GPUs denied by their
        cgroup (ConstrainDevices on cgroup v1 with the devices hierarchy,
        or on v2 with the eBPF device program, as droverd's log says at
        start): then, as in Slurm,
        CUDA_VISIBLE_DEVICES numbers a job's GPUs from 0."""
        log = self.log_file(node).read_text(errors="replace")
        cg = self.dir / "etc" / "cgroup.conf"
        return (bool(re.search(r"jobs run in cgroup v[12] \(\S*devices", log))
                and cg.exists()
                and re.search(r"^ConstrainDevices=yes$", cg.read_text(),
                              re.M | re.I) is not None
                and self.conf_value("TaskPlugin") == "task/cgroup"
                and "File=" in (self.dir / "etc" / "gres.conf").read_text())

    def visible_gpus(self, gpus, node="node01"):
        """CUDA_VISIBLE_DEVICES of a batch job given GPUs 'gpus' (the
        node's indices, a list of int) on 'node'."""
        if self.gpus_isolated(node):
            return ",".join(str(i) for i in range(len(gpus)))
        return ",".join(map(str, gpus))

    def log_tails(self, lines=LOG_TAIL_LINES):
        """Each daemon's log tail, for failure reports."""
        parts = []
        for name in ["droverctld", *self.node_names, "drover-emud",
                     "droverdbd", "droverrestd", "munged"]:
            path = self.log_file(name)
            if path.exists():
                parts.append(f"--- {path} ---\n{tail(path, lines)}")
        return "\n".join(parts)

    def set_node_keys(self, per_node):
        """Append per_node[N-1] ("Feature=a100", "TmpDisk=2048", or "")
        to node N's own NodeName line in slurm.conf, splitting the
        NodeName=node[01-NN] line drover up wrote, then restart the
        cluster, as docs/config.md tells an admin to."""
        text = self.conf.read_text()
        m = re.search(r"^NodeName=node\[01-(\d+)\] (.*)Port=(\d+)-\d+ (.*)$",
                      text, re.M)
        assert m, text
        n, pre, port, post = (int(m.group(1)), m.group(2), int(m.group(3)),
                              m.group(4))
        lines = []
        for i in range(n):
            extra = f" {per_node[i]}" if i < len(per_node) and per_node[i] \
                else ""
            lines.append(f"NodeName=node{i + 1:02d} {pre}Port={port + i} "
                         f"{post}{extra}")
        self.conf.write_text(text[:m.start()] + "\n".join(lines)
                             + text[m.end():])
        self.down()
        self.up()

    # --- talking to the controller directly ------------------------------

    def conf_value(self, key):
        """A top-level slurm.conf value (first occurrence), or None."""
        for line in self.conf.read_text().splitlines():
            m = re.match(rf"\s*{key}=(\S+)", line, re.I)
            if m:
                return m.group(1)
        return None

    def show_config(self, key):
        """The value `scontrol show config` prints for 'key' (None if
        absent)."""
        for line in self.run("scontrol", "show", "config",
                             check=True).stdout.splitlines():
            k, _, v = line.partition("=")
            if k.strip() == key:
                return v.strip()
        return None

    @property
    def ctld_port(self):
        """The controller's port (SlurmctldPort of this cluster)."""
        return int(self.conf_value("SlurmctldPort"))

    def rpc(self, msg_type, body=None, port=None, timeout=10, user=None,
            cred=None, host="127.0.0.1"):
        """One request to the controller (or to 'port') over the wire
        protocol of docs/protocol.md, with a MUNGE credential minted by the
        munge command (as 'user' when given: runuser), or 'cred' as given
        (a JWT).  Returns the response body; an error response raises
        ClusterError with its errnum and errstr.
        """
        return self.rpc_messages(msg_type, body, port, timeout, user, cred,
                                 host)[-1].get("body", {})

    def rpc_messages(self, msg_type, body=None, port=None, timeout=10,
                     user=None, cred=None, host="127.0.0.1"):
        """As rpc(), the whole messages of the answer: one, or for an
        answer in parts (docs/protocol.md) each part ("more": true) and
        the last message, in the order they came."""
        body = body or {}
        port = port or self.ctld_port
        text = json.dumps(body, separators=(",", ":"), sort_keys=True,
                          ensure_ascii=False)
        if cred is None:
            cred = self._munge_cred(msg_type, text, user)
        req = json.dumps({"v": 1, "type": msg_type, "cred": cred,
                          "body": body}).encode()
        messages = []
        with socket.create_connection((host, port), timeout) as s:
            s.sendall(struct.pack(">I", len(req)) + req)
            while not messages or messages[-1].get("more") is True:
                messages.append(json.loads(self._recv_frame(s)))
        if messages[-1].get("type") == "error":
            b = messages[-1].get("body", {})
            raise ClusterError(f"{msg_type}: error {b.get('errnum')}: "
                               f"{b.get('errstr')}")
        return messages

    def _munge_cred(self, msg_type, body_text, user=None):
        """A credential bound to (type, body) as src/proto/auth.c binds it:
        payload "drv2:" + SHA-256 (hex) of type, NUL, compact sorted body."""
        digest = hashlib.sha256(msg_type.encode() + b"\0"
                                + body_text.encode()).hexdigest()
        sock = self.dir / "munge" / "munge.socket.2"
        cmd = ["munge", "-S", str(sock), "-s", f"drv2:{digest}"]
        if user is not None:
            cmd = ["runuser", "-u", user, "--", *cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise ClusterError(f"munge: {r.stderr.strip()}")
        return r.stdout.strip()

    @staticmethod
    def _recv_frame(s):
        def recv_exact(n):
            buf = b""
            while len(buf) < n:
                chunk = s.recv(n - len(buf))
                if not chunk:
                    raise ClusterError("connection closed mid-frame")
                buf += chunk
            return buf
        (length,) = struct.unpack(">I", recv_exact(4))
        return recv_exact(length)

    def node_info(self):
        """{name: node record} from the controller (docs/protocol.md)."""
        return {n["name"]: n for n in self.rpc("node_info")["nodes"]}

    def node_states(self):
        """{name: state_str} from the controller, e.g. "IDLE"."""
        return {k: v["state_str"] for k, v in self.node_info().items()}

    def wait_nodes_idle(self, timeout=60):
        want = {n: "IDLE" for n in self.node_names}
        return wait_until(lambda: self.node_states() == want, timeout,
                          f"nodes {', '.join(self.node_names)} to be IDLE")

    # --- jobs ---------------------------------------------------------------

    def show_job(self, job_id):
        """`scontrol -o show job ID` as a dict, or None if unknown."""
        r = self.run("scontrol", "-o", "show", "job", job_id)
        if r.returncode != 0 or not r.stdout.strip():
            return None
        return parse_scontrol_record(r.stdout.splitlines()[0])

    def job_field(self, job_id, key):
        """One field of `scontrol -o show job`, e.g. "JobState"."""
        rec = self.show_job(job_id)
        if rec is None:
            raise ClusterError(f"scontrol knows no job {job_id}")
        if key not in rec:
            raise ClusterError(f"job {job_id} has no {key}: {rec}")
        return rec[key]

    def job_state(self, job_id):
        return self.job_field(job_id, "JobState")

    def wait_job_state(self, job_id, states, timeout=60):
        """Wait until the job's JobState is one of 'states' (a name or a
        list); return it."""
        if isinstance(states, str):
            states = [states]
        states = set(states)

        def state():
            s = self.job_state(job_id)
            return s if s in states else None
        return wait_until(state, timeout,
                          f"job {job_id} to reach {'/'.join(sorted(states))}")

    def wait_job_done(self, job_id, timeout=60):
        return self.wait_job_state(
            job_id, ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
                     "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED"], timeout)


class _HeldSubmitter:
    """Cluster.held_submitter()'s thread."""

    def __init__(self, cluster, cwd):
        self.cluster, self.cwd = cluster, cwd
        self.acked, self.stop = [], threading.Event()
        self.thread = threading.Thread(target=self._loop)

    def _loop(self):
        while not self.stop.is_set():
            r = self.cluster.run("sbatch", "--parsable", "-H", "--wrap",
                                 "true", cwd=self.cwd, timeout=60)
            if r.returncode == 0:
                self.acked.append(int(r.stdout.strip()))

    def __enter__(self):
        self.thread.start()
        return self.acked

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=120)
        return False
