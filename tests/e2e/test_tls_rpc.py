# SPDX-License-Identifier: Apache-2.0
"""Drover's RPC protocol over TLS (issue 17): with CommunicationParameters=
drover_tls_rpc,drover_tls_cert=,drover_tls_key=,drover_tls_ca= in
slurm.conf and slurmdbd.conf, commands, droverctld, droverd and droverdbd
talk TLS.  Jobs, steps, squeue/scontrol and sacct (through droverdbd) work;
a command trusting another CA is refused with OpenSSL's reason, a command
without TLS is refused with a hint, and the controller keeps serving; the
controller's port speaks TLS (a plain frame gets only that refusal, the
same frame inside TLS gets its answer).  The certificates are made here with openssl."""
import json
import shutil
import socket
import ssl
import struct

import pytest

from cluster import Cluster, ClusterError, require, run_job
from test_rest_tls import make_ca
from test_rest_tls import make_server_cert as rest_server_cert


def make_server_cert(d, ca):
    """d/server.key, d/server.pem for 127.0.0.1 and localhost, by 'ca'."""
    rest_server_cert(d, ca, san="IP:127.0.0.1,DNS:localhost", cn="drover")


def tls_items(d, ca="ca"):
    return (f"drover_tls_rpc,drover_tls_cert={d}/server.pem,"
            f"drover_tls_key={d}/server.key,drover_tls_ca={d}/{ca}.pem")


def probe_conf(c, root, items):
    """A copy of the cluster's slurm.conf with CommunicationParameters=
    'items' (None: without the line)."""
    lines = [ln for ln in c.conf.read_text().splitlines()
             if not ln.startswith("CommunicationParameters=")]
    if items:
        lines.append(f"CommunicationParameters={items}")
    p = root / f"probe{len(list(root.glob('probe*')))}.conf"
    p.write_text("\n".join(lines) + "\n")
    p.chmod(0o644)
    return p


def frame(c, msg_type):
    body = {}
    cred = c._munge_cred(msg_type, "{}")
    req = json.dumps({"v": 1, "type": msg_type, "cred": cred,
                      "body": body}).encode()
    return struct.pack(">I", len(req)) + req


@pytest.mark.needs_root
def test_cluster_over_tls(cluster_root, tmp_path):
    require(shutil.which("openssl"), "the openssl command is not installed")
    d = cluster_root / "tls"
    d.mkdir()
    d.chmod(0o755)
    make_ca(d, "ca")
    make_ca(d, "other")
    make_server_cert(d, "ca")
    for f in ("ca.pem", "other.pem", "server.pem"):
        (d / f).chmod(0o644)
    c = Cluster(cluster_root, nodes=2, gpus_per_node=0, up_args=[
        f"--conf-extra=CommunicationParameters={tls_items(d)}",
        f"--dbd-conf-extra=CommunicationParameters={tls_items(d)}"])
    try:
        c.up()
        # a batch job, a step, the queue, the job, accounting
        wd = tmp_path / "job"
        wd.mkdir()
        wd.chmod(0o777)
        job_id, out, _ = run_job(c, wd, "echo batch-over-tls\n")
        assert "batch-over-tls" in out
        r = c.run("srun", "-N2", "hostname", check=True)
        assert len(r.stdout.split()) == 2, r.stdout
        c.run("squeue", check=True)
        r = c.run("scontrol", "show", "job", job_id, check=True)
        assert "JobState=COMPLETED" in r.stdout, r.stdout
        r = c.run("sacct", "-j", job_id, "-n", "-X", "-o", "JobID,State",
                  check=True)
        assert job_id in r.stdout and "COMPLETED" in r.stdout, r.stdout

        # a command trusting another CA: refused, with the reason
        other = probe_conf(c, cluster_root, tls_items(d, "other"))
        r = c.run("squeue", env={"DROVER_CONF": str(other)})
        assert r.returncode != 0, r.stdout
        assert "certificate verify failed" in r.stderr, r.stderr
        assert "unable to get local issuer certificate" in r.stderr, r.stderr

        # a command without TLS: refused, told the controller speaks TLS
        plain = probe_conf(c, cluster_root, None)
        r = c.run("squeue", env={"DROVER_CONF": str(plain)}, timeout=30)
        assert r.returncode != 0, r.stdout
        assert "this server speaks TLS" in r.stderr, r.stderr

        # on the wire: a plain frame gets only that refusal...
        with pytest.raises(ClusterError, match="this server speaks TLS"):
            c.rpc("ping")
        with socket.create_connection(("127.0.0.1", c.ctld_port), 10) as s:
            s.sendall(b"\x00" * 64)  # garbage: closed, an alert at most
            s.settimeout(10)
            first = s.recv(1)
            assert first in (b"", b"\x15"), first
        # ...and the same frame inside TLS does
        ctx = ssl.create_default_context(cafile=str(d / "ca.pem"))
        with socket.create_connection(("127.0.0.1", c.ctld_port), 10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                assert s.version() in ("TLSv1.2", "TLSv1.3"), s.version()
                s.sendall(frame(c, "ping"))
                resp = json.loads(Cluster._recv_frame(s))
                assert resp["type"] == "ping", resp
        # the python client trusting another CA is refused too
        ctx = ssl.create_default_context(cafile=str(d / "other.pem"))
        with socket.create_connection(("127.0.0.1", c.ctld_port), 10) as raw:
            with pytest.raises(ssl.SSLCertVerificationError):
                ctx.wrap_socket(raw, server_hostname="127.0.0.1")

        # the cluster is unaffected
        job_id, out, _ = run_job(c, wd, "echo still-here\n")
        assert "still-here" in out
        r = c.run("sinfo", "-h", "-o", "%T %D", check=True)
        assert "idle" in r.stdout, r.stdout
    finally:
        c.down()


def test_tls_rpc_needs_its_files(cluster_root):
    """drover_tls_rpc without drover_tls_ca= is refused with the file
    named."""
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    try:
        c.up()
        bad = probe_conf(c, cluster_root, "drover_tls_rpc,"
                         "drover_tls_cert=/c.pem,drover_tls_key=/k.pem")
        r = c.run("scontrol", "show", "config",
                  env={"DROVER_CONF": str(bad)})
        assert r.returncode != 0
        assert (f"{bad}: drover_tls_rpc needs drover_tls_cert=,"
                "drover_tls_key=,drover_tls_ca=" in r.stderr), r.stderr
    finally:
        c.down()
