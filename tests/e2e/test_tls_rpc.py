# SPDX-License-Identifier: Apache-2.0
"""Drover's RPC protocol over TLS (issue 17): with CommunicationParameters=
drover_tls_rpc,drover_tls_cert=,drover_tls_key=,drover_tls_ca= in
slurm.conf and slurmdbd.conf, commands, droverctld, droverd and droverdbd
talk TLS.  Jobs, steps, squeue/scontrol and sacct (through droverdbd) work;
a command trusting another CA is refused with OpenSSL's reason, a command
without TLS is refused with a hint, and the controller keeps serving; the
controller's port speaks TLS (a plain frame gets only that refusal, the
same frame inside TLS gets its answer).  srun's and sattach's task I/O
streams run over TLS too (droverstepd the TLS server on the connection it
dials): output, stdin, sattach; a plain node on srun's I/O port is refused
naming TLS.  The certificates are made here with openssl."""
import json
import re
import shutil
import socket
import ssl
import struct
import subprocess

import pytest

from cluster import Cluster, ClusterError, require, run_job
from test_rest_tls import make_ca
from test_rest_tls import make_server_cert as rest_server_cert


def tls_dir(root, cas=("ca",), san="IP:127.0.0.1,DNS:localhost"):
    """root/tls holding a CA for each name of 'cas' (NAME.pem; the first
    signs) and d/server.pem, d/server.key for 'san', all but the key
    readable by every user.  Returns the directory."""
    require(shutil.which("openssl"), "the openssl command is not installed")
    d = root / "tls"
    d.mkdir()
    d.chmod(0o755)
    for ca in cas:
        make_ca(d, ca)
    rest_server_cert(d, cas[0], san=san, cn="drover")
    for f in (*(f"{ca}.pem" for ca in cas), "server.pem"):
        (d / f).chmod(0o644)
    return d


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


def hello_frame(node="n1", key="00" * 32):
    """A node's first frame on srun's I/O port (docs/security.md, "srun's
    I/O port"), with a secret that is not the step's."""
    body = json.dumps({"node": node, "ranks": [0], "node_index": 0,
                       "io_key": key}).encode()
    return struct.pack(">I", len(body)) + body


def recv_exactly(s, n):
    data = b""
    while len(data) < n:
        more = s.recv(n - len(data))
        assert more, data
        data += more
    return data


def srun_io_port(c, wd):
    """A step (its tasks print $SLURM_SRUN_COMM_PORT, then sleep) under a
    running srun: (the Popen, srun's I/O port)."""
    p = subprocess.Popen(
        ["srun", "bash", "-c", "echo port=$SLURM_SRUN_COMM_PORT; sleep 6"],
        env=c.env, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    line = p.stdout.readline()  # the task's output came through TLS
    m = re.fullmatch(r"port=(\d+)\n", line)
    assert m, (line, p.stderr.read() if p.poll() is not None else "")
    return p, int(m.group(1))


def check_step_io_over_tls(c, d, wd):
    """srun's and sattach's task I/O runs over TLS: output, stdin and
    sattach work; on srun's I/O port srun speaks TLS first and refuses a
    plain node, and the secret is checked inside TLS."""
    r = c.run("srun", "cat", input="hi over tls\n", check=True)
    assert r.stdout == "hi over tls\n", (r.stdout, r.stderr)
    r = c.run("srun", "-N2", "-l", "bash", "-c", "echo marker-$SLURM_PROCID",
              check=True)
    assert sorted(r.stdout.split("\n")[:2]) == ["0: marker-0",
                                                 "1: marker-1"], r.stdout

    # as a plain droverstepd would: srun's ClientHello comes first (a
    # plain srun sends nothing before a node's hello), our plain hello is
    # refused naming TLS, the connection is closed, the step goes on
    p, port = srun_io_port(c, wd)
    with socket.create_connection(("127.0.0.1", port), 10) as s:
        s.settimeout(10)
        first = recv_exactly(s, 5)  # a TLS record: handshake, 3.x
        assert first[:1] == b"\x16" and first[1:2] == b"\x03", first
        recv_exactly(s, struct.unpack(">H", first[3:5])[0])  # ClientHello
        s.sendall(hello_frame())
        rest = b""
        while True:  # an alert at most, then the end
            more = s.recv(4096)
            if not more:
                break
            rest += more
        assert rest[:1] in (b"", b"\x15"), rest
    # inside TLS, with the cluster's certificate (as droverstepd): the
    # handshake is srun's to verify, the hello's secret is checked after
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(d / "server.pem", d / "server.key")
    with socket.create_connection(("127.0.0.1", port), 10) as raw:
        with sctx.wrap_socket(raw, server_side=True) as s:
            s.settimeout(10)
            s.sendall(hello_frame())
            assert s.recv(4096) == b""  # dropped: not the step's secret
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert "srun: error: I/O connection from 127.0.0.1: TLS:" in err, err
    assert "does not speak TLS" in err, err
    assert ("dropped an I/O connection that did not authenticate" in err), \
        err

    # sattach to a running step: the replay and the live lines
    job = c.sbatch("-o", str(wd / "ticks-%j.out"), "--wrap",
                   "srun bash -c 'for i in $(seq 8); do echo tick $i; "
                   "sleep 1; done'", cwd=wd)
    out = wd / f"ticks-{job}.out"
    c.wait_until(lambda: out.exists()
                 and re.search(r"^tick 2\b", out.read_text(), re.M),
                 timeout=60, what="step 0 printing its second tick")
    r = c.run("timeout", "3", "sattach", f"{job}.0")
    assert r.returncode == 124, r.stderr
    assert r.stderr == "", r.stderr
    got = [int(n) for n in re.findall(r"^tick (\d+)$", r.stdout, re.M)]
    assert got[:2] == [1, 2] and got == list(range(1, len(got) + 1)), \
        r.stdout
    c.wait_job_state(job, ("COMPLETED",), timeout=60)


@pytest.mark.needs_root
def test_cluster_over_tls(cluster_root, tmp_path):
    d = tls_dir(cluster_root, ("ca", "other"))
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
        check_step_io_over_tls(c, d, wd)
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
