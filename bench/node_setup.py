#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/node_setup.py - what cgroups, binding and containers add to a
job's start (issue 16).

For each setup of one node (droverd's cgroups off; task/cgroup with
ConstrainCores/RAMSpace/Devices; the same plus task/affinity; that plus
an OCI bundle run through crun), starts a 1-node cluster with `drover
up`, then
  - runs N (200) `srun -n1 true` one after another, each alone on the
    node, and prints the median and p90 wall time of one (the command's
    start, the allocation, the step's setup on the node, the task, the
    teardown);
  - with --jobs M, submits M (1,000) `sbatch --wrap=true` jobs and times
    them from the first submission to the last completion (cgroups off
    and on only).
Not a test: it prints figures.  Run as root on a quiet machine (the
container setup needs crun, busybox-static and the user druser1, as
tests/e2e/test_containers.py does).

Usage: bench/node_setup.py [--runs N] [--jobs M] [--setups a,b,...]
                           [BUILD_DIR]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "e2e"))
from test_containers import make_bundle, write_oci_conf  # noqa: E402

CGROUP = ["--cgroup-conf-extra=ConstrainCores=yes",
          "--cgroup-conf-extra=ConstrainRAMSpace=yes",
          "--cgroup-conf-extra=ConstrainDevices=yes"]
SETUPS = {
    "none": ["--conf-extra=ProctrackType=proctrack/linuxproc",
             "--conf-extra=TaskPlugin=task/none"],
    "cgroup": ["--conf-extra=TaskPlugin=task/cgroup", *CGROUP],
    "cgroup+affinity": ["--conf-extra=TaskPlugin=task/affinity,task/cgroup",
                        *CGROUP],
    "cgroup+affinity+container": [
        "--conf-extra=TaskPlugin=task/affinity,task/cgroup", *CGROUP],
}


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          **kw).stdout


class Node:
    """A 1-node cluster of one setup in a temporary directory."""

    def __init__(self, build, name):
        self.build, self.name = build, name
        self.root = Path(tempfile.mkdtemp(prefix="drover-nodesetup.",
                                          dir="/tmp"))
        os.chmod(self.root, 0o755)
        self.dir, self.work = self.root / "cluster", self.root / "work"
        self.work.mkdir(mode=0o1777)
        self.work.chmod(0o1777)
        self.drover = str(build / "src" / "cmd" / "drover")
        self.env = dict(os.environ, DROVER_CONF=str(self.dir / "etc" /
                                                    "slurm.conf"),
                        PATH=f"{build / 'src' / 'cmd'}:{os.environ['PATH']}")
        self.bundle = None

    def up(self):
        args = [self.drover, "up", "--dir", str(self.dir), "--nodes", "1",
                "--gpus-per-node", "2", *SETUPS[self.name]]
        run(*args)
        if self.name.endswith("container"):
            run(self.drover, "down", "--dir", str(self.dir))
            write_oci_conf(self.dir / "etc", self.root)
            self.bundle = make_bundle(self.root)
            run(*args)
        return self

    def down(self):
        subprocess.run([self.drover, "down", "--dir", str(self.dir)],
                       capture_output=True)
        subprocess.run(["rm", "-rf", str(self.root)])

    def srun_once(self):
        cmd = ["runuser", "-u", "druser1", "--", "env",
               f"DROVER_CONF={self.env['DROVER_CONF']}",
               f"PATH={self.env['PATH']}", "srun", "-n1"]
        if self.bundle:
            cmd += [f"--container={self.bundle}", "/bin/sh", "-c", "exit 0"]
        else:
            cmd += ["true"]
        t0 = time.monotonic()
        r = subprocess.run(cmd, cwd=self.work, capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"{self.name}: srun failed: {r.stderr}")
        return time.monotonic() - t0

    def jobs(self, m):
        t0 = time.monotonic()
        for _ in range(m):
            run("sbatch", "-o", "/dev/null", "--wrap", "true", env=self.env,
                cwd=self.work)
        while run("squeue", "-h", "-o", "%i", env=self.env).strip():
            time.sleep(0.05)
        return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--setups", default=",".join(SETUPS))
    ap.add_argument("build", nargs="?",
                    default=os.environ.get("DROVER_BUILD_DIR",
                                           str(HERE.parent / "build")))
    a = ap.parse_args()
    build = Path(a.build).resolve()
    base = None
    print(f"{'setup':28} {'srun -n1 true, median':>22} {'p90':>8} "
          f"{'added':>8}")
    for name in a.setups.split(","):
        node = Node(build, name).up()
        try:
            node.srun_once()  # warm: page cache, first cgroup
            times = sorted(node.srun_once() for _ in range(a.runs))
            med = statistics.median(times)
            p90 = times[int(len(times) * 0.9)]
            base = med if base is None else base
            print(f"{name:28} {1000 * med:19.1f} ms {1000 * p90:5.1f} ms "
                  f"{1000 * (med - base):+5.1f} ms", flush=True)
            if a.jobs and "container" not in name and "+" not in name:
                t = node.jobs(a.jobs)
                print(f"{'':28} {a.jobs} sbatch jobs end to end: {t:.2f} s "
                      f"({a.jobs / t:.0f} jobs/s)", flush=True)
        finally:
            node.down()


if __name__ == "__main__":
    sys.exit(main())
