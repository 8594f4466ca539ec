# SPDX-License-Identifier: Apache-2.0
"""Issue 19, pre-authentication exhaustion: peers that never authenticate
cannot use up a daemon's descriptors or memory, lock out real clients, or
get nodes marked DOWN.  Credentials are bound to their message with SHA-256.

Each test performs the attack on a real local cluster and asserts it
fails; before the fix each of them succeeded.
"""
import json
import os
import re
import resource
import select
import socket
import struct
import subprocess
import time

import pytest

FLOOD = 5000            # idle connections, more than the cap (1024)
UNAUTH_CAP = 1024       # PROTO_UNAUTH_MAX_CONNS
# The controller's first-frame limit: 6 x max_script_size (4 MB by
# default: a script of control bytes, JSON-escaped) + 4 MiB of environment
# (src/ctld/main.c set_first_frame_max); other daemons keep
# PROTO_UNAUTH_FRAME_MAX, 16 MiB.
FIRST_FRAME_MAX = 6 * 4194304 + (4 << 20)


def raise_own_nofile(want):
    """Let this test process hold 'want' sockets (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        pytest.fail(f"RLIMIT_NOFILE hard limit {hard} is below the {want} "
                    f"sockets this test needs")


def open_idle(port, n):
    """Start 'n' connections to 'port' that will never send a byte
    (non-blocking connects: a full backlog must not stall the test)."""
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
    return socks


def drop_closed(socks):
    """The sockets of 'socks' the server has not closed; closes the rest."""
    p = select.poll()
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        p.register(fd, select.POLLIN)
    dead = set()
    for fd, ev in p.poll(0):
        if ev & (select.POLLHUP | select.POLLERR):
            dead.add(fd)
            continue
        try:
            if by_fd[fd].recv(1) == b"":
                dead.add(fd)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            dead.add(fd)
    for fd in dead:
        by_fd[fd].close()
    return [s for fd, s in by_fd.items() if fd not in dead]


def close_all(socks):
    for s in socks:
        s.close()


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def node_port(cluster):
    m = re.search(r"^NodeName=\S+ .*\bPort=(\d+)", cluster.conf.read_text(),
                  re.M)
    return int(m.group(1))


def closed_within(sock, seconds, trickle=None):
    """Read from 'sock' until the server closes it or 'seconds' pass,
    sending 'trickle' (bytes) every 0.2 s meanwhile.  Returns (seconds it
    took or None, bytes received)."""
    t0 = time.monotonic()
    got = b""
    sock.setblocking(False)
    while time.monotonic() - t0 < seconds:
        r, _, _ = select.select([sock], [], [], 0.2)
        if r:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return time.monotonic() - t0, got
            if not chunk:
                return time.monotonic() - t0, got
            got += chunk
        elif trickle:
            try:
                sock.send(trickle)
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - t0, got
    return None, got


def error_text(reply):
    """errstr of the first frame of 'reply' (an error response)."""
    assert len(reply) >= 4, reply
    (n,) = struct.unpack(">I", reply[:4])
    return reply[4:4 + n].decode(errors="replace")


@pytest.mark.parametrize("cluster", [{
    "nodes": 2, "gpus_per_node": 0,
    "up_args": ["--conf-extra=SlurmdTimeout=12"]}], indirect=True)
def test_flood_of_idle_connections_locks_out_no_one(cluster, tmp_path):
    raise_own_nofile(FLOOD + 500)
    port = cluster.ctld_port
    ctld = cluster.pid("droverctld")
    # A controller host with fewer descriptors than the flood: before the
    # fix the flood took every one (commands failed, nodes went DOWN).
    resource.prlimit(ctld, resource.RLIMIT_NOFILE, (4096, 4096))
    slurmd_timeout = int(cluster.conf_value("SlurmdTimeout"))
    socks = []
    try:
        # Keep FLOOD connections open from our side for longer than
        # SlurmdTimeout, opening new ones as the server closes them.
        end = time.monotonic() + slurmd_timeout + 5
        most_fds = 0
        while time.monotonic() < end:
            socks = drop_closed(socks)
            socks += open_idle(port, FLOOD - len(socks))
            time.sleep(0.5)
            most_fds = max(most_fds, open_fds(ctld))
            r = cluster.run("squeue", "-h", "-o", "%i %T", timeout=30)
            assert r.returncode == 0, r.stderr
            time.sleep(2)
        job = cluster.sbatch("--wrap", "true", "-o", "/dev/null",
                             cwd=tmp_path)
        cluster.wait_job_state(job, ["COMPLETED"], timeout=60)
        states = cluster.node_states()
        assert all(not s.startswith("DOWN") for s in states.values()), states
    finally:
        close_all(socks)
    # The controller held at most the cap of them, not the flood.
    assert most_fds < UNAUTH_CAP + 200, most_fds
    # Dropped connections are logged, but rate-limited (once per 10 s).
    log = cluster.log_file("droverctld").read_text(errors="replace")
    drops = re.findall(r"dropped since the last such message", log)
    assert 1 <= len(drops) <= (slurmd_timeout + 5) // 10 + 3, len(drops)


def test_huge_length_header_then_trickle_is_refused_at_once(cluster):
    with socket.create_connection(("127.0.0.1", cluster.ctld_port),
                                  timeout=5) as s:
        # 60 MiB announced (under the 64 MiB frame limit, over the first
        # frame's), then garbage
        # one byte at a time: before the fix the controller waited for it.
        s.sendall(struct.pack(">I", 60 << 20) + b"{")
        took, reply = closed_within(s, 5, trickle=b" ")
    assert took is not None, "connection still open after 5 s"
    text = error_text(reply)
    assert f"exceeds the {FIRST_FRAME_MAX} byte limit" in text, text
    assert cluster.rpc("ping")


def test_unauthenticated_connections_are_closed_after_message_timeout(
        cluster):
    timeout = int(cluster.conf_value("MessageTimeout") or 10)
    dbd_port = int(cluster.conf_value("AccountingStoragePort"))
    ports = {"droverctld": cluster.ctld_port, "droverd": node_port(cluster),
             "droverdbd": dbd_port}
    idle = {name: socket.create_connection(("127.0.0.1", p), timeout=5)
            for name, p in ports.items()}
    # Sends a frame's worth of bytes, slowly: activity is no excuse.
    trickle = socket.create_connection(("127.0.0.1", cluster.ctld_port),
                                       timeout=5)
    trickle.sendall(struct.pack(">I", 1 << 20) + b"{")
    t0 = time.monotonic()
    try:
        took, _ = closed_within(trickle, timeout + 8, trickle=b" ")
        assert took is not None, "trickling connection still open"
        for name, s in idle.items():
            left = timeout + 8 - (time.monotonic() - t0)
            t, got = closed_within(s, max(left, 0.5))
            assert t is not None, f"idle connection to {name} still open"
            assert got == b""
        # Closed by the MessageTimeout, not by the 60 s idle timeout.
        assert time.monotonic() - t0 < timeout + 8
        assert took >= timeout - 2, took
    finally:
        trickle.close()
        close_all(idle.values())
    assert cluster.rpc("ping")


def test_bytes_of_unauthenticated_connections_are_bounded(cluster):
    """Five connections each send 15 MiB of an unfinished first frame
    (under the first-frame limit): the 64 MiB budget for all of
    them turns one away instead of buffering 75 MiB."""
    body = 15 << 20
    conns = []
    refused = []
    try:
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", cluster.ctld_port),
                                         timeout=10)
            conns.append(s)
            try:
                s.sendall(struct.pack(">I", body + 2) + b"{"
                          + b" " * body)
            except (BrokenPipeError, ConnectionResetError):
                refused.append(s)
                continue
        for s in conns:
            if s in refused:
                continue
            s.setblocking(False)
            r, _, _ = select.select([s], [], [], 0.5)
            if r:
                try:
                    reply = s.recv(65536)
                except ConnectionResetError:
                    reply = b""
                if not reply or "have not authenticated" in error_text(reply):
                    refused.append(s)
    finally:
        close_all(conns)
    assert refused, "the controller buffered 75 MiB for unauthenticated peers"
    assert cluster.rpc("ping")


def test_big_batch_script_still_fits_the_first_frame(cluster, tmp_path):
    """sbatch's first frame carries the script: a 4 MiB one (the default
    max_script_size) still goes through the pre-authentication limit."""
    script = tmp_path / "big.sh"
    pad = ("# " + "x" * 1021 + "\n") * (4 * 1024 - 2)
    script.write_text("#!/bin/bash\n" + pad + "true\n")
    assert script.stat().st_size < 4 << 20
    assert script.stat().st_size > (4 << 20) - 4096
    job = cluster.sbatch("-o", "/dev/null", str(script), cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)


def test_script_of_control_bytes_still_fits_the_first_frame(cluster,
                                                            tmp_path):
    """The worst case for the frame: a script just under 4 MB of control
    bytes, each \\u00XX (6 bytes) in JSON, still reaches the controller,
    which takes it (max_script_size counts the script, not its escaping)."""
    script = tmp_path / "ctl.sh"
    pad = "# " + "\x01" * (4_000_000 - 200) + "\n"
    script.write_text("#!/bin/bash\n" + pad + "true\n")
    job = cluster.sbatch("-o", "/dev/null", str(script), cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)


def test_credentials_bound_with_fnv1a_payload_are_refused(cluster):
    """The old "drv1:" FNV-1a payload (forgeable bodies) is refused, even
    for the exact message it was computed over."""
    body = "{}"
    h = 0xcbf29ce484222325
    for byte in b"ping\0" + body.encode():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    sock = cluster.dir / "munge" / "munge.socket.2"
    cred = subprocess.run(["munge", "-S", str(sock), "-s", f"drv1:{h:016x}"],
                          capture_output=True, text=True, check=True,
                          timeout=30).stdout.strip()
    req = (b'{"v":1,"type":"ping","cred":"' + cred.encode()
           + b'","body":{}}')
    with socket.create_connection(("127.0.0.1", cluster.ctld_port),
                                  timeout=5) as s:
        s.sendall(struct.pack(">I", len(req)) + req)
        reply = error_text(s.recv(65536))
    assert '"errnum":1007' in reply, reply
    assert "drv2" in reply, reply
    # The SHA-256 ("drv2:") credential of cluster.rpc works.
    assert cluster.rpc("ping")


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0}],
                         indirect=True)
def test_daemons_raise_their_open_files_limit_and_jobs_keep_theirs(
        cluster, tmp_path):
    """Started with a low soft RLIMIT_NOFILE, every daemon raises it to the
    hard limit; a job still gets the limit droverd was started with."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(1024, hard // 2)
    names = ["droverctld", cluster.node_names[0], "droverdbd"]
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        for name in names:
            cluster.restart_alone(name)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    for name in names:
        got = resource.prlimit(cluster.pid(name), resource.RLIMIT_NOFILE)
        assert got == (hard, hard), (name, got)
    cluster.wait_nodes_idle()
    out = tmp_path / "out.txt"
    os.chmod(tmp_path, 0o777)
    job = cluster.sbatch("-o", str(out), "--wrap", "ulimit -n",
                         cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)
    assert out.read_text().strip() == str(low)


def test_forged_credentials_cost_one_answer_per_connection(cluster):
    """A peer that never authenticated gets one answer to a request whose
    credential does not decode, and the connection closes: it cannot make
    the controller decode 200 forged credentials (and log each)."""
    frame = json.dumps({"v": 1, "type": "ping", "body": {},
                        "cred": "MUNGE:AwQFAAAAAAAAAAAAAAAAAAAAAAAA:"}).encode()
    frame = struct.pack(">I", len(frame)) + frame
    log = cluster.log_file("droverctld")
    before = log.read_text().count("'ping' request:")
    with socket.create_connection(("127.0.0.1", cluster.ctld_port),
                                  timeout=5) as s:
        try:
            s.sendall(frame * 200)
        except (BrokenPipeError, ConnectionResetError):
            pass
        took, reply = closed_within(s, 5)
    assert took is not None, "connection still open after a forged credential"
    assert reply.count(b'"errnum"') == 1, reply
    assert log.read_text().count("'ping' request:") - before == 1
    assert cluster.rpc("ping")


def open_idle_from(source, port, n):
    """open_idle() with connections from local address 'source'."""
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source, 0))
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
    return socks


def test_flood_from_one_host_pushes_out_its_own_connections(cluster):
    """When the unauthenticated connections are at their cap, the one
    closed for a newcomer comes from the address that holds the most: a
    flood from 127.0.0.2, however long, does not push out a client of
    127.0.0.3 that connected and has not sent its request yet (before,
    the oldest silent connection went, so the flood's 1025th newcomer
    closed it)."""
    raise_own_nofile(3 * UNAUTH_CAP + 500)
    port = cluster.ctld_port
    flood = open_idle_from("127.0.0.2", port, UNAUTH_CAP)
    slow = None
    try:
        time.sleep(0.5)
        slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        slow.bind(("127.0.0.3", 0))
        slow.settimeout(5)
        slow.connect(("127.0.0.1", port))
        time.sleep(0.3)
        flood += open_idle_from("127.0.0.2", port, UNAUTH_CAP + 200)
        time.sleep(1.5)
        text = json.dumps({}, separators=(",", ":"), sort_keys=True)
        req = json.dumps({"v": 1, "type": "ping", "body": {},
                          "cred": cluster._munge_cred("ping", text)}).encode()
        slow.sendall(struct.pack(">I", len(req)) + req)
        resp = json.loads(cluster._recv_frame(slow))
        assert resp.get("type") != "error", resp
    finally:
        close_all(flood)
        if slow:
            slow.close()
    log = cluster.log_file("droverctld").read_text(errors="replace")
    assert "127.0.0.2" in log and "to make room" in log
    assert cluster.rpc("ping")
