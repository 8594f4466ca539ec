#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# test_drover_sim.py - the built drover-sim on the hand-written trace
# (data/sim10.swf; figures worked out in test_sim.c), on accounting
# (data/acct9.json, test_acct_trace.c), under priority/multifactor
# (data/prio3.swf, test_sim_prio.c), and its refusals.
# Usage: test_drover_sim.py DROVER_SIM TRACE PRIO_TRACE.  Prints TAP.
import gzip
import json
import os
import subprocess
import sys
import tempfile

sim, trace, prio_trace = sys.argv[1], sys.argv[2], sys.argv[3]
results = []


def run(*args):
    return subprocess.run([sim, *args], capture_output=True, text=True,
                          timeout=60)


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


r = run("--json", "--policy", "fcfs", "--policy", "easy", trace)
rows = json.loads(r.stdout) if r.returncode == 0 else []
check("json has one row per policy, in order",
      [x["policy"] for x in rows] == ["fcfs", "easy"], r.stderr)
for row, wait, bsld, maxw in zip(rows, (180.5, 104.5), (9.4201667, 5.2635),
                                 (305, 300)):
    p = row["policy"]
    check(p + " figures as worked out by hand",
          row["jobs"] == 10 and abs(row["avg_wait_s"] - wait) < 1e-6
          and abs(row["avg_bsld"] - bsld) < 1e-6 and row["max_wait_s"] == maxw
          and row["makespan_s"] == 1355
          and abs(row["utilization"] - 2880 / 5420) < 1e-9,
          json.dumps(row))
    check(p + " row has every documented key",
          all(k in row for k in ("policy", "jobs", "avg_wait_s", "avg_bsld",
                                 "max_wait_s", "utilization", "makespan_s",
                                 "wall_s")))

with tempfile.TemporaryDirectory() as d:
    gz = os.path.join(d, "sim10.swf.gz")
    with open(trace, "rb") as src, gzip.open(gz, "wb") as dst:
        dst.write(src.read())
    r = run("--json", "--policy", "easy", gz)
    check("a gzip trace gives the same figures",
          r.returncode == 0 and json.loads(r.stdout)[0]["avg_wait_s"] == 104.5,
          r.stderr)

r = run(trace)
check("the table lists the three policies by default",
      r.returncode == 0 and all(any(l.startswith(p + " ")
                                    for l in r.stdout.splitlines())
                                for p in ("fcfs", "easy", "default")),
      r.stdout)
r = run("--nodes", "2", "--cpus-per-node", "2", "--json", trace)
check("--nodes 2 --cpus-per-node 2 is a pool of 4",
      r.returncode == 0 and json.loads(r.stdout)[0]["pool_cpus"] == 4,
      r.stderr)

with tempfile.TemporaryDirectory() as d:
    def conf(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write("ClusterName=t\n" + text)
        return path
    two = conf("two.conf", "NodeName=n[1-2] CPUs=4\n"
                           "PartitionName=p Nodes=ALL Default=YES\n")
    r = run("--conf", two, "--json", "--policy", "easy", "--policy",
            "default", trace)
    byconf = json.loads(r.stdout) if r.returncode == 0 else []
    r = run("--nodes", "2", "--cpus-per-node", "4", "--json", "--policy",
            "easy", "--policy", "default", trace)
    bynodes = json.loads(r.stdout) if r.returncode == 0 else []
    strip = [{k: v for k, v in x.items()
              if k not in ("wall_s", "jobs_per_s", "conf")}
             for x in byconf]
    check("--conf's two nodes of 4 CPUs replay as --nodes 2 "
          "--cpus-per-node 4",
          strip and strip == [{k: v for k, v in x.items()
                               if k not in ("wall_s", "jobs_per_s")}
                              for x in bynodes], json.dumps(byconf))
    builtin = conf("builtin.conf", "NodeName=n[1-2] CPUs=4\n"
                                   "SchedulerType=sched/builtin\n")
    r = run("--conf", builtin, "--json", "--policy", "fcfs", "--policy",
            "default", trace)
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check("SchedulerType=sched/builtin: the default policy is FCFS",
          len(rows) == 2 and rows[0]["avg_wait_s"] == rows[1]["avg_wait_s"],
          r.stderr)
    mixed = conf("mixed.conf", "NodeName=n1 CPUs=4\nNodeName=n2 CPUs=8\n")
    r = run("--conf", mixed, "--json", "--policy", "easy", trace)
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check("--conf with nodes of different sizes replays on all of them",
          [(x["pool_cpus"], x["jobs"]) for x in rows] == [(12, 10)],
          r.stdout + r.stderr)
    one = conf("one.conf", "NodeName=n1 CPUs=4\n")
    r = run("--compare", one, two, "--policy", "easy", "--json", trace)
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check("--compare A B: the policies under each, labelled",
          [(x.get("conf"), x["pool_cpus"]) for x in rows]
          == [(one, 4), (two, 8)], r.stdout + r.stderr)
    r = run("--compare", one, two, trace)
    check("--compare's table has a CONF column and a row per pool "
          "and policy",
          r.returncode == 0 and r.stdout.splitlines()[1].startswith("CONF")
          and len(r.stdout.splitlines()) == 8, r.stdout)
    r = run("--compare", one, trace)
    check("--compare with one configuration is refused",
          r.returncode == 1, r.stderr)
    r = run("--conf", two, "--nodes", "2", "--cpus-per-node", "2", trace)
    check("--conf with --nodes is refused",
          r.returncode == 1 and "do not go together" in r.stderr, r.stderr)

# data/sjbf5.swf, 4 CPUs: jobs 1 (2 CPUs, 10 s) and 2 (2 CPUs, 100 s) run
# at 0; job 3 (4 CPUs, 100 s) waits from 1, reserved at 100; jobs 4 (2
# CPUs, 80 s, at 2) and 5 (2 CPUs, 20 s, at 3) wait for the 2 CPUs job 1
# frees at 10.  EASY backfills in submission order: job 4 at 10 (ends 90),
# job 5 after job 3 (200): waits 0 0 99 8 197, bsld (1 + 1 + 1.99 + 1.1 +
# 10.85) / 5 = 3.188.
# --backfill-sjf (src/sched/backfill.h): no job has waited 10 times its
# time, so none holds a reservation, and the shortest goes first: job 5
# 10 to 30, job 4 30 to 110, job 3 when job 4 ends, 110: waits 0 0 109 28
# 7, bsld (1 + 1 + 2.09 + 1.35 + 1.35) / 5 = 1.358.  With
# --bf-max-job-test 1 the first waiting job (3) leads and holds its
# reservation at 100 (EASY-SJBF): job 5 10 to 30; job 4 would end after
# 100 from then: 200: waits 0 0 99 198 7, bsld (1 + 1 + 1.99 + 3.475 +
# 1.35) / 5 = 1.763.  No user runs twice: --predict has no history and
# plans as without it; the default policy is --backfill-sjf --predict.
sjbf = os.path.join(os.path.dirname(trace), "sjbf5.swf")
for flags, bsld, wait in ((["--policy", "easy"], 3.188, 60.8),
                          (["--policy", "easy", "--backfill-sjf"], 1.358,
                           28.8),
                          (["--policy", "easy", "--predict"], 3.188, 60.8),
                          (["--policy", "easy", "--backfill-sjf",
                            "--bf-max-job-test", "1"], 1.763, 60.8),
                          (["--policy", "default"], 1.358, 28.8)):
    r = run("--json", *flags, sjbf)
    row = json.loads(r.stdout)[0] if r.returncode == 0 else {}
    check("%s on the hand-worked 5 jobs" % " ".join(flags),
          abs(row.get("avg_bsld", 0) - bsld) < 1e-9
          and abs(row.get("avg_wait_s", 0) - wait) < 1e-9, r.stdout)

with tempfile.TemporaryDirectory() as d:
    svg = os.path.join(d, "w.svg")
    r = run("--plot", svg, "--policy", "fcfs", "--policy", "easy", trace)
    if r.returncode == 0:
        with open(svg) as f:
            text = f.read()
        check("--plot draws an SVG (PLplot)", text.startswith("<?xml")
              and "<svg" in text and text.count("<polyline") >= 4,
              text[:200])
    else:
        check("--plot without PLplot says so",
              r.returncode == 1 and "without PLplot" in r.stderr, r.stderr)
    r = run("--plot", os.path.join(d, "no", "such", "dir.svg"), trace)
    check("--plot to a path that cannot be written: exit 1",
          r.returncode == 1 and "--plot" in r.stderr, r.stderr)

# --from-accounting on data/acct9.json (test_acct_trace.c tells its nine
# records): 4 jobs kept, on 2 nodes of 4 CPUs (partition small, the
# default) and one of 16 with 2 GPUs (big).  EASY: 101 on s1 at 0 to 100;
# 102 (8 CPUs on 2 nodes) waits for s1 until 100; 104 (big, 2 GPUs) at
# 30; 109 (3 CPUs) on s2 at 60.
acct = os.path.join(os.path.dirname(trace), "acct9.json")
with tempfile.TemporaryDirectory() as d:
    het = os.path.join(d, "het.conf")
    with open(het, "w") as f:
        f.write("ClusterName=t\nNodeName=s[1-2] CPUs=4 RealMemory=4000\n"
                "NodeName=b1 CPUs=16 RealMemory=32000 Gres=gpu:2\n"
                "PartitionName=small Nodes=s[1-2] Default=YES\n"
                "PartitionName=big Nodes=b1\n")
    jobs = os.path.join(d, "jobs.txt")
    r = run("--conf", het, "--from-accounting", acct, "--policy", "easy",
            "--jobs", jobs, "--json")
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check("--from-accounting FILE replays the kept jobs on --conf's cluster",
          [(x["jobs"], x["pool_cpus"], x["never"]) for x in rows]
          == [(4, 24, 0)], r.stdout + r.stderr)
    check("--from-accounting names each bad record on stderr",
          "jobs[4] (JobId=105): time.submission" in r.stderr
          and "jobs[7] (JobId=108): time.end before time.start" in r.stderr,
          r.stderr)
    lines = open(jobs).read().splitlines() if os.path.exists(jobs) else []
    check("--jobs writes each job's submit, start and end",
          lines[1:] == ["easy 101 0 0 100", "easy 102 10 100 160",
                        "easy 104 30 30 60", "easy 109 60 60 100"]
          and lines[0].startswith("# policy job_id submit start end"),
          "\n".join(lines))
    with open(acct) as f:
        r2 = subprocess.run([sim, "--conf", het, "--from-accounting", "-",
                             "--policy", "easy", "--json"], stdin=f,
                            capture_output=True, text=True, timeout=60)
    def figures(out):
        return [{k: v for k, v in x.items()
                 if k not in ("wall_s", "jobs_per_s")}
                for x in json.loads(out)]
    check("--from-accounting - reads standard input",
          r2.returncode == 0 and rows and figures(r2.stdout) == figures(
              r.stdout), r2.stderr)
    r = run("--conf", het, "--from-accounting", acct, "--policy", "easy")
    check("the table's first line names the accounting source",
          r.returncode == 0 and r.stdout.startswith(
              "accounting %s: 4 jobs (2 never started or still running, "
              "3 malformed records), pool 24 CPUs" % acct), r.stdout)
    nosacct = os.path.join(d, "noacct.conf")
    with open(nosacct, "w") as f:
        f.write("ClusterName=t\nNodeName=n1 CPUs=4\n"
                "AccountingStorageType=accounting_storage/none\n")
    r = subprocess.run([sim, "--conf", het, "--from-accounting", "2026-10"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, DROVER_CONF=nosacct))
    check("--from-accounting MONTH runs sacct and reports its failure",
          r.returncode == 1 and "accounting storage is disabled" in r.stderr
          and "sacct exited with status 1" in r.stderr, r.stderr)
    for args, text in ((["--from-accounting", "2026-13"], "no such date"),
                       (["--from-accounting", "2026-10-15..2026-10-01"],
                        "ends before it starts"),
                       (["--from-accounting", os.path.join(d, "no.json")],
                        "no.json: No such file"),
                       (["--from-accounting", het], "het.conf:1:"),
                       (["--from-accounting", acct, "--procs", "allocated"],
                        "--procs is for SWF traces")):
        r = run("--conf", het, *args)
        check("--from-accounting refuses %s with exit 1" % args[1],
              r.returncode == 1 and text in r.stderr, r.stderr)

for args, text in ((["--conf", "/nonexistent.conf", trace],
                    "/nonexistent.conf"),
                   (["--from-accounting", "2026-10", trace],
                    "not a TRACE"),
                   (["--from-accounting", "2026-10"], "needs --conf"),
                   (["--policy", "sjf", trace], "unknown policy 'sjf'"),
                   (["--nodes", "2", trace], "go together"),
                   (["--bogus", trace], "unrecognized option"),
                   ([], "a TRACE"),
                   (["/nonexistent.swf"], "/nonexistent.swf")):
    r = run(*args)
    check("refuses " + (" ".join(args[:1]) or "no trace") + " with exit 1",
          r.returncode == 1 and text in r.stderr, r.stderr)

# priority/multifactor from --conf: the figures of test_sim_prio.c.
with tempfile.TemporaryDirectory() as d:
    def conf(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write("ClusterName=t\nNodeName=n1 CPUs=2\n"
                    "PartitionName=p Nodes=ALL Default=YES\n" + text)
        return path

    def figures(*args):
        r = run("--json", "--policy", "fcfs", "--policy", "easy", *args,
                prio_trace)
        rows = json.loads(r.stdout) if r.returncode == 0 else []
        return [{k: v for k, v in x.items()
                 if k not in ("wall_s", "jobs_per_s", "conf")}
                for x in rows], r.stderr

    fs, err = figures("--conf", conf("fs.conf",
                                     "PriorityType=priority/multifactor\n"
                                     "PriorityWeightFairshare=10000\n"))
    check("multifactor fair-share: the light user's later job first",
          len(fs) == 2 and all(abs(x["avg_wait_s"] - 750) < 1e-6
                               and abs(x["avg_bsld"] - 9.5) < 1e-6
                               and x["max_wait_s"] == 1950 for x in fs),
          err + json.dumps(fs))
    age, err = figures("--conf", conf("age.conf",
                                      "PriorityType=priority/multifactor\n"
                                      "PriorityWeightFairshare=10000\n"
                                      "PriorityWeightAge=10000\n"
                                      "PriorityMaxAge=20\n"))
    check("multifactor with age: the old job back in front",
          len(age) == 2 and all(abs(x["avg_wait_s"] - 2300 / 3) < 1e-6
                                and abs(x["avg_bsld"] - 10) < 1e-6
                                and x["max_wait_s"] == 1900 for x in age),
          err + json.dumps(age))
    basic, err = figures("--conf", conf("basic.conf",
                                        "PriorityType=priority/basic\n"
                                        "PriorityWeightFairshare=10000\n"))
    none, _ = figures("--nodes", "1", "--cpus-per-node", "2")
    check("priority/basic gives what no conf gives",
          len(basic) == 2 and basic == none, err + json.dumps(basic))

r = run("--help")
check("--help prints the usage and exits 0",
      r.returncode == 0 and "Usage: drover-sim" in r.stdout)
r = run("--usage")
check("--usage exits 0", r.returncode == 0 and "--policy" in r.stdout)

print("1..%d" % len(results))
for i, (name, ok, detail) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    if not ok and detail:
        print("# " + detail.replace("\n", "\n# "))
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
