#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/rest_load.py - do REST pollers slow job starts?  (issue 14)

Starts a 4-node local cluster (drover up), then alternates two kinds of
rounds, REPS times each: N held `sbatch --wrap=true` jobs are released at
once and timed until the last one completed, (a) with no REST client and
(b) while P threads poll GET /slurm/v0.0.38/jobs, each once per --interval
(default 1 s, a dashboard's refresh; 0: as fast as it can), each request
on its own connection, as curl-based portals do.  Prints the
median rounds, the slowdown, and the pollers' request rate and latency.
Not a test: it prints figures.  Everything shares this machine's cores:
the pollers' own CPU counts against the cluster too.

--client curl polls with one curl process per poller (curl --rate, its
connection kept alive) instead of Python threads, whose own CPU would
count against the cluster.  --tokens each gives every poller its own token (a portal's users; the
default, one, is one token for all: a dashboard service).  --cache-ttl MS
restarts droverrestd with that --cache-ttl (0: every GET asks the
controller; docs/rest.md).  --gzip: the pollers take gzip answers
(Accept-Encoding: gzip, as browsers and python-requests send it; curl
--compressed), which droverrestd then sends compressed.

Besides the times it prints the CPU seconds droverrestd, droverctld and
the pollers used in the timed part of the rounds (medians): what the
pollers cost the daemons, apart from what they cost themselves.

Usage: bench/rest_load.py [--jobs N] [--pollers P] [--reps R]
                          [--interval SECONDS] [--tokens one|each]
                          [--cache-ttl MS] [--client python|curl]
                          [--gzip] [BUILD_DIR]
"""
import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          **kw).stdout


def cpu_s(pids):
    """CPU seconds (user and system) the processes 'pids' used so far."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1]
            ticks += sum(int(x) for x in fields.split()[11:13])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def round_time(n, env, work, watch):
    """Release n held jobs; the seconds until the last completed, and the
    CPU seconds each of 'watch' (name: list of pids) used meanwhile."""
    ids = []
    for _ in range(n):
        out = run("sbatch", "--parsable", "-H", "-o", "/dev/null", "--wrap",
                  "true", env=env, cwd=work)
        ids.append(out.strip())
    before = {k: cpu_s(v) for k, v in watch.items()}
    start = time.monotonic()
    run("scontrol", "release", ",".join(ids), env=env)
    while run("squeue", "-h", "-o", "%i", env=env).strip():
        time.sleep(0.02)
    took = time.monotonic() - start
    return took, {k: cpu_s(v) - before[k] for k, v in watch.items()}


def poll(url, token, stop, lat, interval, gz):
    h = {"X-SLURM-USER-TOKEN": token}
    if gz:
        h["Accept-Encoding"] = "gzip"
    req = urllib.request.Request(url, headers=h)
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                body = r.read()
                if r.headers.get("Content-Encoding") == "gzip":
                    gzip.decompress(body)
        except OSError:
            continue
        lat.append(time.monotonic() - t0)
        if interval:
            stop.wait(max(0.0, interval - (time.monotonic() - t0)))


def start_curls(url, tokens, pollers, interval, gz):
    """One curl per poller, each fetching 'url' once per 'interval' (at
    most 1,000 times) on a kept-alive connection, printing each fetch's
    time."""
    rate = f"{max(1, round(60 / interval))}/m" if interval else "1000/s"
    return [subprocess.Popen(
        ["curl", "-s", "--rate", rate] + (["--compressed"] if gz else []) + [
         "-w", "%{stderr}%{time_total}\\n",  # unbuffered: it is killed
         "-H", f"X-SLURM-USER-TOKEN: {tokens[i % len(tokens)]}"]
        + ["-o", "/dev/null", url] * 1000, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
        for i in range(pollers)]


def stop_curls(procs, lat):
    for p in procs:
        p.terminate()
    for p in procs:
        _, out = p.communicate()
        lat.extend(float(x) for x in out.split() if x)


def restart_restd(build, cdir, addr, ttl_ms):
    """Replace drover up's droverrestd by one with --cache-ttl=ttl_ms on
    the same address; returns its Popen."""
    pid = int((cdir / "run" / "droverrestd.pid").read_text())
    os.kill(pid, 15)
    while Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    p = subprocess.Popen([str(build / "src" / "restd" / "droverrestd"),
                          "-f", str(cdir / "etc" / "slurm.conf"),
                          f"--cache-ttl={ttl_ms}", addr],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://{addr}/openapi.json",
                                   timeout=2).read()
            return p
        except OSError:
            time.sleep(0.05)
    raise SystemExit("droverrestd did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--pollers", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--interval", type=float, default=1.0,
                    help="seconds between one poller's requests (a "
                    "dashboard's refresh); 0: as fast as it can")
    ap.add_argument("--tokens", choices=("one", "each"), default="one")
    ap.add_argument("--client", choices=("python", "curl"), default="python")
    ap.add_argument("--gzip", action="store_true",
                    help="the pollers take gzip answers")
    ap.add_argument("--cache-ttl", type=int, default=None,
                    help="droverrestd --cache-ttl in ms (default: its own)")
    ap.add_argument("build", nargs="?",
                    default=os.environ.get("DROVER_BUILD_DIR",
                                           str(HERE.parent / "build")))
    a = ap.parse_args()
    build = Path(a.build).resolve()
    drover = build / "src" / "cmd" / "drover"
    tmp = Path(tempfile.mkdtemp(prefix="drover-restload."))
    cdir, work = tmp / "cluster", tmp / "work"
    work.mkdir()
    run(str(drover), "up", "--dir", str(cdir), "--nodes", "4")
    env = dict(os.environ, DROVER_CONF=str(cdir / "etc" / "slurm.conf"),
               PATH=f"{build / 'src' / 'cmd'}:{os.environ['PATH']}")
    restd = None
    try:
        addr = (cdir / "etc" / "restd.addr").read_text().strip()
        if a.cache_ttl is not None:
            restd = restart_restd(build, cdir, addr, a.cache_ttl)
        tokens = [run("scontrol", "token", f"lifespan={3600 + i}",
                      env=env).strip().split("=", 1)[1]
                  for i in range(a.pollers if a.tokens == "each" else 1)]
        url = "http://" + addr + "/slurm/v0.0.38/jobs"
        quiet, loaded, lat, polled_s = [], [], [], 0.0
        cpu_q, cpu_l = [], []
        for _ in range(a.reps):
            daemons = {
                "droverrestd": [restd.pid if restd else int(
                    (cdir / "run" / "droverrestd.pid").read_text())],
                "droverctld": [int((cdir / "run" / "droverctld.pid")
                                   .read_text())]}
            took, cpu = round_time(a.jobs, env, work, daemons)
            quiet.append(took)
            cpu_q.append(cpu)
            t0 = time.monotonic()
            if a.client == "curl":
                procs = start_curls(url, tokens, a.pollers, a.interval,
                                    a.gzip)
                time.sleep(1)  # every poller under way
                took, cpu = round_time(a.jobs, env, work, dict(
                    daemons, pollers=[p.pid for p in procs]))
                loaded.append(took)
                cpu_l.append(cpu)
                stop_curls(procs, lat)
            else:
                stop = threading.Event()
                threads = [threading.Thread(
                    target=poll, args=(url, tokens[i % len(tokens)], stop,
                                       lat, a.interval, a.gzip))
                    for i in range(a.pollers)]
                for t in threads:
                    t.start()
                time.sleep(1)  # every poller under way
                took, cpu = round_time(a.jobs, env, work, dict(
                    daemons, pollers=[os.getpid()]))
                loaded.append(took)
                cpu_l.append(cpu)
                stop.set()
                for t in threads:
                    t.join()
            polled_s += time.monotonic() - t0
        q, l = statistics.median(quiet), statistics.median(loaded)
        lat.sort()
        print(f"jobs per round: {a.jobs}, pollers: {a.pollers} (one "
              f"request every {a.interval:g} s each; 0: flat out), "
              f"rounds: {a.reps} each, tokens: {a.tokens}, droverrestd "
              f"--cache-ttl: "
              f"{'default' if a.cache_ttl is None else a.cache_ttl}"
              f"{', gzip' if a.gzip else ''}")
        print(f"release to last completion, no REST clients: {q:.2f} s "
              f"({a.jobs / q:.0f} jobs/s)  rounds {quiet}")
        print(f"the same under {a.pollers} pollers of /jobs: {l:.2f} s "
              f"({a.jobs / l:.0f} jobs/s)  rounds {loaded}")
        print(f"slowdown: {100 * (l - q) / q:+.1f}%")

        def med(rounds, k):
            return statistics.median(r[k] for r in rounds)
        print("CPU seconds in a round, median (no clients / pollers): "
              + ", ".join(f"{k} {med(cpu_q, k):.2f} / {med(cpu_l, k):.2f}"
                          for k in ("droverrestd", "droverctld"))
              + f", the pollers themselves {med(cpu_l, 'pollers'):.2f}")
        if lat:
            print(f"polls: {len(lat)} in {polled_s:.0f} s "
                  f"({len(lat) / polled_s:.0f}/s), latency p50 "
                  f"{1000 * lat[len(lat) // 2]:.1f} ms, p99 "
                  f"{1000 * lat[int(len(lat) * 0.99)]:.1f} ms")
    finally:
        if restd:
            restd.terminate()
            restd.wait(timeout=30)
        subprocess.run([str(drover), "down", "--dir", str(cdir)],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
