# SPDX-License-Identifier: Apache-2.0
"""The REST API over TLS (issue 17): with slurm.conf
CommunicationParameters=drover_tls_cert=...,drover_tls_key=... droverrestd
serves HTTPS with that certificate.  A client that trusts the CA which
signed it gets answers; one that trusts another CA refuses the server; a
plain-HTTP request gets no answer.  The certificates are made here with
the openssl command."""
import json
import shutil
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest

from cluster import Cluster, require
from test_rest import token


def make_ca(d, name):
    """A self-signed CA in d/name.key, d/name.pem."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-days", "2", "-subj", f"/CN={name}",
                    "-keyout", str(d / f"{name}.key"),
                    "-out", str(d / f"{name}.pem")],
                   check=True, capture_output=True)


def make_server_cert(d, ca, san="IP:127.0.0.1", cn="127.0.0.1"):
    """d/server.key and d/server.pem for 'san' (subjectAltName), signed by
    'ca'."""
    (d / "san.ext").write_text(f"subjectAltName={san}\n")
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes",
                    "-subj", f"/CN={cn}", "-keyout", str(d / "server.key"),
                    "-out", str(d / "server.csr")],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(d / "server.csr"),
                    "-CA", str(d / f"{ca}.pem"), "-CAkey",
                    str(d / f"{ca}.key"), "-CAcreateserial", "-days", "2",
                    "-extfile", str(d / "san.ext"),
                    "-out", str(d / "server.pem")],
                   check=True, capture_output=True)


def get(url, cafile, tok):
    ctx = ssl.create_default_context(cafile=str(cafile))
    req = urllib.request.Request(url, headers={"X-SLURM-USER-TOKEN": tok})
    with urllib.request.urlopen(req, timeout=30, context=ctx) as r:
        return r.status, json.loads(r.read().decode())


@pytest.mark.needs_root
def test_rest_over_tls_trusts_only_its_ca(cluster_root):
    require(shutil.which("openssl"), "the openssl command is not installed")
    d = cluster_root / "tls"
    d.mkdir()
    make_ca(d, "ca")
    make_ca(d, "other")
    make_server_cert(d, "ca")
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0, up_args=[
        "--conf-extra=CommunicationParameters=drover_tls_cert="
        f"{d}/server.pem,drover_tls_key={d}/server.key"])
    try:
        up = c.up()
        addr = (c.dir / "etc" / "restd.addr").read_text().strip()
        assert f"REST: https://{addr} " in up.stdout, up.stdout
        tok = token(c)
        status, doc = get(f"https://{addr}/slurm/v0.0.38/ping", d / "ca.pem",
                          tok)
        assert status == 200 and doc["pings"][0]["ping"] == "UP", doc
        # the same server, trusted through another CA: refused
        with pytest.raises(urllib.error.URLError) as e:
            get(f"https://{addr}/slurm/v0.0.38/ping", d / "other.pem", tok)
        assert isinstance(e.value.reason, ssl.SSLCertVerificationError), \
            e.value
        # plain HTTP to the TLS port: no answer
        req = urllib.request.Request(f"http://{addr}/slurm/v0.0.38/ping",
                                     headers={"X-SLURM-USER-TOKEN": tok})
        with pytest.raises((urllib.error.URLError, ConnectionError,
                            OSError)):
            urllib.request.urlopen(req, timeout=10).read()
        log = (c.dir / "log" / "droverrestd.log").read_text()
        assert f"listening on https://{addr}" in log, log
    finally:
        c.down()


def test_comm_params_are_checked(cluster_root):
    """A drover_tls_cert= without its key, or an unknown item, is refused
    with the file and the item named; Slurm's own items are accepted."""
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0, up_args=[
        "--conf-extra=CommunicationParameters=NoAddrCache,"
        "keepalivetime=30"])
    try:
        c.up()
        for bad, why in (("drover_tls_cert=/x.pem",
                          "drover_tls_cert= and drover_tls_key= go "
                          "together"),
                         ("drover_tls_cert=x.pem,drover_tls_key=/k",
                          "CommunicationParameters=drover_tls_cert=x.pem: "
                          "not an absolute path"),
                         ("Bogus", "CommunicationParameters=Bogus: unknown "
                          "item")):
            text = c.conf.read_text().replace(
                "CommunicationParameters=NoAddrCache,keepalivetime=30",
                f"CommunicationParameters={bad}")
            probe = cluster_root / "probe.conf"
            probe.write_text(text)
            r = c.run("scontrol", "show", "config",
                      env={"DROVER_CONF": str(probe)})
            assert r.returncode != 0 and why in r.stderr, (bad, r.stderr)
    finally:
        c.down()
