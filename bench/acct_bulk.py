#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/acct_bulk.py - send N synthetic job records to droverdbd.

Usage: acct_bulk.py CLUSTER_DIR PORT CLUSTER_NAME N YEAR
Records spread over YEAR (local time): 50 users in 10 accounts, 1 to 32
CPUs, 1 minute to 4 hours, some with GPUs; acct_send batches of 1000 over
the real protocol with MUNGE credentials from the munge command (as
tests/e2e/cluster.py's rpc).  Prints the insert rate.
"""
import hashlib
import json
import random
import socket
import struct
import subprocess
import sys
import time
from datetime import datetime


def cred(sock, msg_type, text):
    digest = hashlib.sha256(msg_type.encode() + b"\0"
                            + text.encode()).hexdigest()
    return subprocess.run(["munge", "-S", sock, "-s", f"drv2:{digest}"],
                          capture_output=True, text=True, check=True,
                          timeout=30).stdout.strip()


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("connection closed mid-frame")
        buf += chunk
    return buf


def rpc(sock, port, msg_type, body):
    text = json.dumps(body, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False)
    req = json.dumps({"v": 1, "type": msg_type,
                      "cred": cred(sock, msg_type, text),
                      "body": body}).encode()
    with socket.create_connection(("127.0.0.1", port), 300) as s:
        s.sendall(struct.pack(">I", len(req)) + req)
        (length,) = struct.unpack(">I", recv_exact(s, 4))
        resp = json.loads(recv_exact(s, length))
    if resp.get("type") == "error":
        raise RuntimeError(f"{msg_type}: {resp.get('body')}")
    return resp["body"]


def record(i, t0, t1, rnd):
    start = rnd.randrange(t0, t1 - 4 * 3600)
    cpus = rnd.choice([1, 2, 4, 8, 16, 32])
    gpus = rnd.choice([0, 0, 0, 1, 2])
    user = f"user{rnd.randrange(50):02d}"
    tres = f"billing={cpus},cpu={cpus}," + (
        f"gres/gpu={gpus}," if gpus else "") + f"mem={cpus * 2000}M,node=1"
    return {"job_id": i, "submit_time": start - 60, "eligible_time":
            start - 60, "start_time": start, "end_time": start
            + rnd.randrange(60, 4 * 3600), "name": "bulk", "uid": 10000,
            "user": user, "gid": 10000, "group": "bulk",
            "account": f"acct{int(user[4:]) % 10}", "qos": "normal",
            "partition": "debug", "state": "COMPLETED", "nodes": "node01",
            "nnodes": 1, "ncpus": cpus, "req_cpus": cpus,
            "req_tres": tres, "alloc_tres": tres, "steps": []}


def main():
    cdir, port, name, n, year = (sys.argv[1], int(sys.argv[2]), sys.argv[3],
                                 int(sys.argv[4]), int(sys.argv[5]))
    sock = f"{cdir}/munge/munge.socket.2"
    t0 = int(datetime(year, 1, 1).timestamp())
    t1 = int(datetime(year + 1, 1, 1).timestamp())
    rnd = random.Random(5)
    began = time.time()
    batch = 1000
    for first in range(1, n + 1, batch):
        events = [{"seq": i, "job": record(i, t0, t1, rnd)}
                  for i in range(first, min(first + batch, n + 1))]
        rpc(sock, port, "acct_send", {
            "cluster": name, "events": events, "cluster_tres":
            {"cpu": 4096, "mem": 16384000, "node": 128, "gres/gpu": 512}})
    took = time.time() - began
    print(f"inserted {n} job records in {took:.1f} s "
          f"({n / took:.0f} records/s)")


if __name__ == "__main__":
    main()
