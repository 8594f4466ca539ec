# SPDX-License-Identifier: Apache-2.0
"""Issue 17, exhaustion and abuse: one user flooding the controller, idle
connections, an absurd length prefix and a submit limit do not stop the
controller from answering everyone else.  bench/abuse measures the same
attacks at full size (bench/README.md).
"""
import concurrent.futures
import pwd
import re
import resource
import signal
import socket
import struct
import subprocess
import time

import pytest

from cluster import Cluster, ClusterError

# Bounds on latencies (another user's squeue within 2 s of a flood), and a
# flood of processes and 2000 connections that would slow a test beside
# it: run with the machine to itself (run_e2e.py's serial pass).
pytestmark = pytest.mark.alone

# A small bucket refilled fast, so that the flood below is backed off
# within a second or two and still all gets through.
RL = ("SlurmctldParameters=rl_enable,rl_bucket_size=4,rl_refill_rate=4,"
      "rl_refill_period=1")
FLOOD = 12           # sbatch processes of one user at once
IDLE = 2000          # idle connections held open
ENFORCE = "AccountingStorageEnforce=associations,limits,qos"
POLICY = ("sbatch: error: Batch job submission failed: Job violates "
          "accounting/QOS policy (job submit limit, user's size and/or time "
          "limits)\n")
FULL = ("sbatch: error: Batch job submission failed: Unable to save job "
        "state, try again\n")


def timed_run(cluster, *args, user=None):
    t0 = time.monotonic()
    r = cluster.run(*args, user=user, timeout=30)
    return r, time.monotonic() - t0


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": [f"--conf-extra={RL}"]}],
                         indirect=True)
def test_rate_limit_backs_off_a_flooding_user_not_others(cluster,
                                                          test_users):
    flooder, other = test_users
    uid = pwd.getpwnam(flooder).pw_uid
    # The raw answer, before any command retries: Slurm's 1804.
    errors = []
    for _ in range(40):
        try:
            cluster.rpc("ping", user=flooder)
        except ClusterError as e:
            errors.append(str(e))
            break
    assert errors and "error 1804: Rate limit exceeded, please retry " \
        "momentarily" in errors[0], errors
    # A flood of sbatch: each one backed off is sent again, and all get
    # through; meanwhile the other user's squeue answers at once.
    cluster.user_workdir(flooder)  # made once, not by each thread
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(FLOOD) as pool:
        subs = [pool.submit(cluster.run, "sbatch", "-H", "-o", "/dev/null",
                            "--wrap", "true", user=flooder, timeout=60)
                for _ in range(FLOOD)]
        time.sleep(0.3)
        r, took = timed_run(cluster, "squeue", "-h", "-o", "%i", user=other)
        assert r.returncode == 0, r.stderr
        assert took < 2, took
        results = [f.result() for f in subs]
    flood_took = time.monotonic() - t0
    assert [x.returncode for x in results] == [0] * FLOOD, \
        [x.stderr for x in results]
    # 4 tokens + 4 a second: 12 requests cannot all pass in the first second.
    assert flood_took >= 1, flood_took
    r = cluster.run("squeue", "-h", "-u", flooder, "-o", "%i", check=True)
    assert len(r.stdout.split()) == FLOOD
    log = cluster.log_file("droverctld").read_text(errors="replace")
    assert re.search(rf"RPC rate limit exceeded by uid {uid} with "
                     r"'(ping|job_submit)', telling it to back off", log)
    # Root is exempt.
    for _ in range(20):
        cluster.rpc("ping")


def test_idle_connections_and_a_1gb_length_prefix(cluster):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < IDLE + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (min(IDLE + 200, hard), hard))
    ctld = cluster.pid("droverctld")
    socks = []
    try:
        for _ in range(IDLE):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", cluster.ctld_port))
            socks.append(s)
        r, took = timed_run(cluster, "squeue", "-h")
        assert r.returncode == 0, r.stderr
        assert took < 5, took
        cluster.sbatch("-H", "--wrap", "true")
        # 1 GiB announced: refused at once, the connection closed.
        with socket.create_connection(("127.0.0.1", cluster.ctld_port),
                                      timeout=5) as s:
            s.sendall(struct.pack(">I", 1 << 30) + b"{")
            s.settimeout(5)
            got = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        assert b"byte limit" in got, got
    finally:
        for s in socks:
            s.close()
    assert cluster.pid("droverctld") == ctld
    assert cluster.rpc("ping")


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": [f"--conf-extra={ENFORCE}"]}],
                         indirect=True)
def test_max_submit_jobs_refuses_the_next_job(cluster, test_users):
    user = test_users[0]
    for cmd in (["add", "account", "floodacct"],
                ["add", "user", user, "account=floodacct",
                 "MaxSubmitJobs=2"]):
        cluster.run("sacctmgr", "-i", *cmd, check=True)
    # The controller polls droverdbd every 5 s.
    cluster.wait_until(
        lambda: cluster.run("sbatch", "-H", "--wrap", "true",
                            user=user).returncode == 0,
        timeout=15, what="the controller to learn the association")
    second = cluster.sbatch("-H", "--wrap", "true", user=user)
    r = cluster.run("sbatch", "-H", "--wrap", "true", user=user)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", POLICY)
    # An array counts as its tasks.
    cluster.run("scancel", second, check=True)
    r = cluster.run("sbatch", "-H", "--array=0-1", "--wrap", "true",
                    user=user)
    assert (r.returncode, r.stderr) == (1, POLICY)
    cluster.sbatch("-H", "--wrap", "true", user=user)
    log = cluster.log_file("droverctld").read_text(errors="replace")
    assert "AssocMaxSubmitJobLimit" in log


@pytest.mark.needs_root
def test_full_state_disk_refuses_a_flood_at_once(cluster_root, test_users):
    """While StateSaveLocation is full, submissions are refused without
    queueing their records behind the ones that wait (before, each refused
    job's record and its withdrawal piled up and were retried every turn:
    a flood outgrew the space freed later)."""
    state = cluster_root / "statefs"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs",
                    str(state)], check=True)
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0,
                up_args=["--conf-extra", f"StateSaveLocation={state}"])
    try:
        c.up()
        before = c.sbatch("-H", "--wrap", "true", user=test_users[0])
        filler = state / "filler"
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"],
                       capture_output=True)
        for _ in range(20):
            r = c.run("sbatch", "-H", "--wrap", "true", user=test_users[0])
            assert (r.returncode, r.stderr) == (1, FULL), r.stderr
        r, took = timed_run(c, "squeue", "-h", "-o", "%i", user=test_users[1])
        assert r.stdout.split() == [before]
        log = c.log_file("droverctld").read_text(errors="replace")
        # The first refusal's record was queued and withdrawn; the rest
        # were refused before they made one.
        assert len(re.findall(r"withdrawn: its journal record", log)) == 1
        filler.unlink()
        after = c.sbatch("-H", "--wrap", "true", user=test_users[0])
        c.kill("droverctld", signal.SIGKILL)
        c.start()
        assert sorted(c.run("squeue", "-h", "-o", "%i",
                            check=True).stdout.split(), key=int) \
            == [before, after]
    finally:
        c.down()
        subprocess.run(["umount", "-l", str(state)])


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra=MaxJobCount=4",
                                                  "--conf-extra=MinJobAge=2"]}],
                         indirect=True)
def test_max_job_count_makes_sbatch_wait_and_retry(cluster):
    """MaxJobCount (slurm.conf), as Slurm's: the controller holds at most
    that many jobs, array tasks counted one by one and ended jobs until
    MinJobAge purges them.  A submission past it is refused with
    ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, and sbatch prints Slurm's "job
    queue full" line, waits 1 s, 2 s, ... and sends it again, so it goes
    through once jobs leave the controller."""
    c = cluster
    array = c.sbatch("-H", "--array=0-2", "--wrap", "true")  # 3 jobs
    held = c.sbatch("-H", "--wrap", "true")                   # 4
    proc = subprocess.Popen(
        [str(c.bin_dir / "sbatch"), "--parsable", "-H", "--wrap", "true"],
        env=c.env, cwd=c.workdir, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(4)
        assert proc.poll() is None, proc.communicate()
        assert c.run("squeue", "-h", "-o", "%i", check=True).stdout.split() \
            == [f"{array}_[0-2]", held]
        # Two array tasks leave: the purge after MinJobAge frees room.
        c.run("scancel", f"{array}_1", f"{array}_2", check=True)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert err == "sbatch: error: Slurm job queue full, sleeping and retrying\n"
    assert int(out.strip()) > int(held)
    log = c.log_file("droverctld").read_text(errors="replace")
    assert "MaxJobCount limit from slurm.conf reached (4)" in log
