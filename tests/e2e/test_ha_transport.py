# SPDX-License-Identifier: Apache-2.0
"""The controllers' Raft port lets in only controllers (issue 17).

A connection to drover_raft_port reaches libraft only after a raft_hello
under a MUNGE credential of root or SlurmUser, naming another
SlurmctldHost of the group at its own address, addressed to this one; the
controller answers with a raft_welcome under its own credential, echoing
the nonce (src/ctld/ha_transport.h).  Everything else is closed without
a byte: an ordinary user's credential, a replayed one, a hello for
another controller or from an address that is not the id's, libraft's own
handshake (what its TCP transport would take), garbage, a 1 GB length.
With drover_tls_rpc the Raft port speaks TLS, and the group still elects
a leader and runs jobs.
"""
import hashlib
import json
import re
import signal
import socket
import ssl
import struct
import subprocess
import time

import pytest

from cluster import Cluster, run_job
from conftest import create_user
from test_tls_rpc import tls_dir, tls_items

HA = {"nodes": 1, "gpus_per_node": 0, "up_args": ["--controllers=3"]}


def raft_port(c):
    m = re.search(r"drover_raft_port=(\d+)", c.conf_value("SlurmctldParameters"))
    return int(m.group(1))


def addr(n):
    return f"127.0.0.{n}"


def body_text(body):
    """What jansson's JSON_COMPACT|JSON_SORT_KEYS dump gives."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True)


def frame(c, body, msg_type="raft_hello", user=None):
    cred = c._munge_cred(msg_type, body_text(body), user=user)
    msg = json.dumps({"type": msg_type, "cred": cred, "body": body}).encode()
    return struct.pack(">I", len(msg)) + msg


def hello_body(c, frm=2, to=1, nonce="ab" * 16, address=None):
    return {"id": frm, "to": to, "nonce": nonce,
            "address": address or f"{addr(frm)}:{raft_port(c)}"}


def exchange(s, data, timeout=15):
    """Send 'data' on the connected socket 's'; return what comes back
    before the peer closes or a whole frame arrived (b"" when it closed
    without a byte)."""
    s.sendall(data)
    s.settimeout(timeout)
    got = b""
    while True:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk
        if len(got) >= 4 and len(got) >= 4 + struct.unpack(">I", got[:4])[0]:
            return got


def to_ctl1(c, data, timeout=15):
    with socket.create_connection((addr(1), raft_port(c)), 10) as s:
        return exchange(s, data, timeout)


def welcome_of(resp):
    (n,) = struct.unpack(">I", resp[:4])
    msg = json.loads(resp[4:4 + n])
    assert msg["type"] == "raft_welcome" and msg["cred"].startswith("MUNGE:"), msg
    return msg["body"]


def group_works(c, tmp_path):
    assert c.leader() in ("ctl1", "ctl2", "ctl3")
    wd = tmp_path / "job"
    wd.mkdir(exist_ok=True)
    wd.chmod(0o777)
    _, out, _ = run_job(c, wd, "echo raft-still-fine\n")
    assert "raft-still-fine" in out


@pytest.mark.needs_root
@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_the_raft_port_lets_in_only_controllers(cluster, tmp_path):
    c = cluster
    port = raft_port(c)
    create_user("druser1")

    # root's hello, as ctl2 would send it: the welcome, from ctl1
    ok = frame(c, hello_body(c))
    body = welcome_of(to_ctl1(c, ok))
    assert body == {"id": 1, "nonce": "ab" * 16}, body

    refused = {
        "an ordinary user's credential":
            frame(c, hello_body(c, nonce="cd" * 16), user="druser1"),
        "the same credential again (replayed)": ok,
        "a hello for another controller":
            frame(c, hello_body(c, to=3, nonce="ef" * 16)),
        "a hello from itself": frame(c, hello_body(c, frm=1)),
        "an id that is no SlurmctldHost":
            frame(c, hello_body(c, frm=9, address=f"127.0.0.9:{port}")),
        "an address that is not the id's":
            frame(c, hello_body(c, address=f"{addr(3)}:{port}")),
        "a welcome instead of a hello":
            frame(c, {"id": 2, "nonce": "01" * 16}, "raft_welcome"),
        "a hello without a credential":
            struct.pack(">I", 80) + json.dumps(
                {"type": "raft_hello", "body": hello_body(c)}).encode()[:80],
        # libraft's TCP handshake: protocol 1, server id 2, its address
        "libraft's own handshake":
            struct.pack("<QQQ", 1, 2, 16) + f"{addr(2)}:{port}".encode()
            .ljust(16, b"\0"),
        "garbage": b"\x7f" * 64,
        "a 1 GB length prefix": struct.pack(">I", 1 << 30) + b"{",
    }
    # root's credential, but expired (MUNGE TTL 1 s)
    body = hello_body(c, nonce="aa" * 16)
    digest = hashlib.sha256(b"raft_hello\0" + body_text(body).encode())
    cred = subprocess.run(
        ["munge", "-S", str(c.dir / "munge" / "munge.socket.2"), "-t", "1",
         "-s", f"drv2:{digest.hexdigest()}"], capture_output=True,
        text=True, check=True, timeout=30).stdout.strip()
    msg = json.dumps({"type": "raft_hello", "cred": cred, "body": body})
    refused["an expired credential"] = struct.pack(">I", len(msg)) \
        + msg.encode()
    time.sleep(2.5)
    for what, data in refused.items():
        assert to_ctl1(c, data) == b"", what

    # a half-open hello is closed after MessageTimeout (10 s here)
    t0 = time.monotonic()
    assert to_ctl1(c, ok[:20], timeout=30) == b""
    assert time.monotonic() - t0 < 25

    log = (c.dir / "log" / "droverctld-ctl1.log").read_text()
    # the first refusal is logged (then one line per 10 s, with a count)
    assert re.search(r"ha: Raft connection from 127\.0\.0\.\d+ refused: "
                     r"raft_hello from uid \d+: only root and SlurmUser "
                     r"speak Raft", log), log[-3000:]
    group_works(c, tmp_path)


@pytest.mark.needs_root
def test_a_raft_group_over_tls(cluster_root, tmp_path):
    # one certificate for every daemon: each controller's address
    d = tls_dir(cluster_root,
                san="IP:127.0.0.1,IP:127.0.0.2,IP:127.0.0.3,DNS:localhost")
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0, up_args=[
        "--controllers=3",
        f"--conf-extra=CommunicationParameters={tls_items(d)}",
        f"--dbd-conf-extra=CommunicationParameters={tls_items(d)}"])
    try:
        c.up()
        group_works(c, tmp_path)
        # a leader's kill -9: the others elect a new one over TLS
        old = c.leader()
        c.kill(old, signal.SIGKILL)
        c.wait_until(lambda: c.leader() != old, timeout=30,
                     what="a new leader")
        group_works(c, tmp_path)

        # the port speaks TLS: a plain hello is closed unanswered...
        n = int(c.leader()[3:])
        frm = 1 if n != 1 else 2
        at = (addr(n), raft_port(c))
        with socket.create_connection(at, 10) as s:
            assert exchange(s, frame(c, hello_body(c, frm=frm, to=n))) == b""
        # ...and inside TLS root's hello is welcomed
        ctx = ssl.create_default_context(cafile=str(d / "ca.pem"))
        with socket.create_connection(at, 10) as raw:
            with ctx.wrap_socket(raw, server_hostname=addr(n)) as s:
                body = welcome_of(exchange(s, frame(c, hello_body(
                    c, frm=frm, to=n, nonce="12" * 16))))
        assert body == {"id": n, "nonce": "12" * 16}, body
    finally:
        c.down()
