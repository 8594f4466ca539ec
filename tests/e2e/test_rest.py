# SPDX-License-Identifier: Apache-2.0
"""droverrestd (issue 14): slurmrestd's /slurm/v0.0.38 paths with JWT
authentication, Prometheus metrics and the OpenAPI document, on a real
cluster started by `drover up`.  Tokens come from `scontrol token`; the
controller checks them and authorizes each request as the commands'."""
import base64
import hashlib
import hmac
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from cluster import ClusterError, binary, require

REPO = Path(__file__).resolve().parents[2]


def rest_url(c):
    return "http://" + (c.dir / "etc" / "restd.addr").read_text().strip()


def call(c, path, token=None, method="GET", body=None, headers=None,
         raw=None):
    """(status, parsed JSON or text) of one HTTP request."""
    h = dict(headers or {})
    if token:
        h["X-SLURM-USER-TOKEN"] = token
    data = raw if raw is not None else (
        json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(rest_url(c) + path, data=data, headers=h,
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, text, ctype = r.status, r.read().decode(), \
                r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, text, ctype = e.code, e.read().decode(), \
            e.headers.get("Content-Type", "")
    return status, json.loads(text) if "json" in ctype else text


def token(c, user=None, *args):
    r = c.run("scontrol", "token", *args, user=user, check=True)
    assert r.stdout.startswith("SLURM_JWT=")
    return r.stdout.strip().split("=", 1)[1]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(header, claims, key):
    head = b64url(json.dumps(header).encode())
    body = b64url(json.dumps(claims).encode())
    sig = b"" if key is None else hmac.new(
        key, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64url(sig)}"


def error_text(doc):
    return doc["errors"][0]["error"]


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_rest_jobs_as_their_user(cluster, test_user):
    c = cluster
    tok = token(c, test_user)
    status, doc = call(c, "/slurm/v0.0.38/ping")
    assert status == 401 and "authentication required" in error_text(doc)
    status, doc = call(c, "/slurm/v0.0.38/ping", tok)
    assert status == 200 and doc["pings"][0]["ping"] == "UP"
    # X-SLURM-USER-NAME naming the token's own user changes nothing.
    status, doc = call(c, "/slurm/v0.0.38/ping", tok,
                       headers={"X-SLURM-USER-NAME": test_user})
    assert status == 200

    out = c.user_workdir(test_user) / "rest.out"
    status, doc = call(c, "/slurm/v0.0.38/job/submit", tok, "POST", {
        "script": "#!/bin/bash\nid -un\necho $GREETING\n",
        "job": {"name": "from-rest", "environment": {"GREETING": "hi",
                                                     "PATH": "/usr/bin:/bin"},
                "current_directory": str(out.parent),
                "standard_output": str(out), "time_limit": 5}})
    assert status == 200, doc
    job = str(doc["job_id"])
    assert doc["step_id"] == "BATCH" and doc["errors"] == []
    assert c.wait_job_done(job) == "COMPLETED"
    assert out.read_text() == f"{test_user}\nhi\n"
    status, doc = call(c, f"/slurm/v0.0.38/job/{job}", tok)
    assert status == 200
    (rec,) = doc["jobs"]
    assert (rec["job_id"], rec["name"], rec["user_name"], rec["job_state"],
            rec["time_limit"]) == (int(job), "from-rest", test_user,
                                   "COMPLETED", 5)
    # The same record as squeue --json's.
    sq = json.loads(c.run("squeue", "--json", "-t", "all", check=True).stdout)
    status, doc = call(c, "/slurm/v0.0.38/jobs", tok)
    by_id = {j["job_id"]: j for j in sq["jobs"]}
    assert [j["job_id"] for j in doc["jobs"]] == list(by_id)
    for j in doc["jobs"]:
        assert j.keys() == by_id[j["job_id"]].keys()
        assert j["job_state"] == by_id[j["job_id"]]["job_state"]

    # Another user's job: refused, untouched; its owner (root) cancels it.
    held = c.sbatch("-H", "--wrap", "true")
    status, doc = call(c, f"/slurm/v0.0.38/job/{held}", tok, "DELETE")
    assert status == 403, doc
    assert c.job_state(held) == "PENDING"
    status, doc = call(c, f"/slurm/v0.0.38/job/{held}", token(c), "DELETE")
    assert status == 200 and doc["errors"] == []
    assert c.wait_job_done(held) == "CANCELLED"
    status, doc = call(c, "/slurm/v0.0.38/job/999999", tok)
    assert status == 404 and error_text(doc) == "Invalid job id specified"

    status, doc = call(c, "/slurm/v0.0.38/nodes", tok)
    assert status == 200 and [n["name"] for n in doc["nodes"]] == ["node01"]
    status, doc = call(c, "/slurm/v0.0.38/partition/debug", tok)
    assert status == 200 and doc["partitions"][0]["name"] == "debug"
    status, doc = call(c, "/slurm/v0.0.38/diag", tok)
    assert status == 200 and doc["statistics"]["jobs_submitted"] >= 2


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_rest_proxy_for_another_user(cluster, test_users):
    """X-SLURM-USER-NAME with root's (or SlurmUser's) token acts as that
    user, as slurmrestd's auth/jwt proxying: the job is the named user's
    and the request is authorized as theirs.  An ordinary user's token
    naming someone else is refused by the controller and by droverdbd,
    and nothing changes."""
    c = cluster
    user, other = test_users
    admin_tok, user_tok = token(c), token(c, user)
    as_user = {"X-SLURM-USER-NAME": user}
    out = c.user_workdir(user) / "proxy.out"
    status, doc = call(c, "/slurm/v0.0.38/job/submit", admin_tok, "POST", {
        "script": "#!/bin/bash\nid -un\n",
        "job": {"name": "proxied", "environment": {"PATH": "/usr/bin:/bin"},
                "current_directory": str(out.parent),
                "standard_output": str(out)}}, headers=as_user)
    assert status == 200, doc
    job = str(doc["job_id"])
    assert c.wait_job_done(job) == "COMPLETED"
    assert out.read_text() == f"{user}\n"
    status, doc = call(c, f"/slurm/v0.0.38/job/{job}", admin_tok,
                       headers=as_user)
    assert status == 200 and doc["jobs"][0]["user_name"] == user

    # Authorized as the named user: root's job is not theirs to cancel.
    held = c.sbatch("-H", "--wrap", "true")
    status, doc = call(c, f"/slurm/v0.0.38/job/{held}", admin_tok, "DELETE",
                       headers=as_user)
    assert status == 403, doc
    assert c.job_state(held) == "PENDING"

    # An ordinary user's token may not act for another: refused, no job.
    before = c.run("squeue", "-h", "-t", "all", "-o", "%i",
                   check=True).stdout.split()
    status, doc = call(c, "/slurm/v0.0.38/job/submit", user_tok, "POST", {
        "script": "#!/bin/bash\ntrue\n",
        "job": {"current_directory": "/tmp",
                "environment": {"PATH": "/bin"}}},
        headers={"X-SLURM-USER-NAME": other})
    assert status == 401, doc
    assert f"may not act as user {other}" in error_text(doc)
    assert c.run("squeue", "-h", "-t", "all", "-o", "%i",
                 check=True).stdout.split() == before
    status, doc = call(c, f"/slurm/v0.0.38/job/{held}", user_tok, "DELETE",
                       headers={"X-SLURM-USER-NAME": "root"})
    assert status == 401 and c.job_state(held) == "PENDING"
    status, doc = call(c, "/slurmdb/v0.0.38/jobs", user_tok,
                       headers={"X-SLURM-USER-NAME": other})
    assert status == 401 and "may not act as" in error_text(doc)
    # droverdbd proxies as the controller does.
    status, doc = call(c, "/slurmdb/v0.0.38/jobs", admin_tok,
                       headers=as_user)
    assert status == 200, doc
    # Names that are no user, or no user name at all.
    for name, text in (("nosuchuser42", "not a user of this host"),
                       ("a;user=root", "not a user name")):
        status, doc = call(c, "/slurm/v0.0.38/jobs", admin_tok,
                           headers={"X-SLURM-USER-NAME": name})
        assert status == 401 and text in error_text(doc), doc
    c.run("scancel", held, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_scontrol_token_rules(cluster, test_user):
    c = cluster
    r = c.run("scontrol", "token", "username=root", user=test_user)
    assert r.returncode == 1
    assert r.stderr.startswith("Unable to create token: ")
    other = token(c, None, f"username={test_user}", "lifespan=60")
    status, doc = call(c, "/slurm/v0.0.38/jobs", other)
    assert status == 200
    # SLURM_JWT in the environment authenticates commands to the
    # controller as its user (Slurm's jwt.html), even for root's shell.
    r = c.run("sbatch", "--parsable", "-H", "--wrap", "true",
              env={"SLURM_JWT": other}, check=True)
    job = r.stdout.strip()
    assert c.job_field(job, "UserId").startswith(test_user + "(")
    c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_rest_refuses_bad_tokens(cluster, test_user):
    c = cluster
    good = token(c, test_user, "lifespan=1")
    head, claims, _ = good.split(".")
    sun = json.loads(base64.urlsafe_b64decode(claims + "=="))
    assert sun["sun"] == test_user and sun["exp"] - sun["iat"] == 1
    now = int(time.time())
    later = {"sun": "root", "iat": now, "exp": now + 600}
    bad = {
        "garbage": ("not-a-token", "not a JWT"),
        "alg none": (jwt({"alg": "none", "typ": "JWT"}, later, None),
                     "alg none"),
        "HS512": (jwt({"alg": "HS512", "typ": "JWT"}, later, b"k" * 32),
                  "alg HS512"),
        "other key": (jwt({"alg": "HS256", "typ": "JWT"}, later, b"x" * 32),
                      "signature does not match"),
        "forged claims": (f"{head}.{b64url(json.dumps(later).encode())}."
                          + good.split(".")[2], "signature does not match"),
    }
    time.sleep(2)
    bad["expired"] = (good, "token expired at")
    submit = {"script": "#!/bin/bash\ntrue\n", "job": {}}
    for what, (tok, text) in bad.items():
        status, doc = call(c, "/slurm/v0.0.38/job/submit", tok, "POST",
                           submit)
        assert status == 401, what
        assert text in error_text(doc), (what, doc)
    status, doc = call(c, "/slurm/v0.0.38/jobs", token(c))
    assert doc["jobs"] == []  # nothing was submitted
    # A token is never a daemon's credential: even root's may not send
    # what only node daemons send, while it may ask what root asks.
    root = token(c)
    with pytest.raises(ClusterError, match="may not send 'node_register'"):
        c.rpc("node_register", {"node": "node01"}, cred=root)
    assert c.rpc("ping", cred=root)["host"]
    with pytest.raises(ClusterError, match="not a MUNGE credential"):
        c.rpc("ping", cred=root, port=c.ctld_port + 1)  # node01 (drover up)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_rest_bad_requests(cluster):
    c = cluster
    tok = token(c)
    cases = [
        (b"{not json", 400, "the body is not JSON"),
        (b"[1]", 400, "not a JSON object"),
        (json.dumps({"script": "#!/bin/sh\n", "job": {"colour": "red"}})
         .encode(), 400, "job.colour: not a key"),
        (json.dumps({"script": "#!/bin/sh\n", "job": {"nodes": "3-1"}})
         .encode(), 400, "job.nodes"),
        (json.dumps({"job": {}}).encode(), 400, "needs \"script\""),
        (b"x" * (5 << 20), 413, "request body over"),
    ]
    for raw, want, text in cases:
        status, doc = call(c, "/slurm/v0.0.38/job/submit", tok, "POST",
                           raw=raw)
        assert status == want, (raw[:40], doc)
        assert text in error_text(doc)
    status, doc = call(c, "/slurm/v0.0.38/nothing", tok)
    assert status == 404
    status, doc = call(c, "/slurm/v0.0.38/jobs", tok, "POST", raw=b"{}")
    assert status == 405
    status, doc = call(c, "/slurm/v0.0.38/job/abc", tok)
    assert status == 400
    # The daemon is unharmed and nothing was queued.
    status, doc = call(c, "/slurm/v0.0.38/jobs", tok)
    assert status == 200 and doc["jobs"] == []


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 4}],
                         indirect=True)
def test_metrics(cluster):
    try:
        from prometheus_client import parser
    except ImportError:
        parser = None
    require(parser, "python3-prometheus-client is not installed")
    c = cluster
    tok = token(c)
    job = c.sbatch("--gres=gpu:2", "--wrap", "sleep 60")
    c.wait_job_state(job, ("RUNNING",))
    c.sbatch("-H", "--wrap", "true")
    status, text = call(c, "/metrics", tok)
    assert status == 200
    fams = {f.name: f for f in parser.text_string_to_metric_families(text)}
    jobs = {(s.labels["state"], s.labels["user"]): s.value
            for s in fams["drover_jobs"].samples}
    assert jobs == {("RUNNING", "root"): 1, ("PENDING", "root"): 1}
    (pend,) = fams["drover_jobs_pending"].samples
    assert pend.labels["reason"] == "JobHeldUser" and pend.value == 1
    gpus = sorted((s.labels["job_id"], s.labels["node"],
                   s.labels["gpu_index"]) for s in
                  fams["drover_job_gpu_info"].samples)
    assert gpus == [(job, "node01", "0"), (job, "node01", "1")]
    use = {s.labels["use"]: s.value for s in fams["drover_gpus"].samples}
    assert use == {"total": 4, "allocated": 2, "idle": 2}
    assert fams["drover_scheduler_cycles"].samples[0].value >= 1
    # Histograms: cumulative buckets up to +Inf == _count.
    for name, labels in (("drover_scheduler_cycle_seconds", {}),
                         ("drover_rpc_duration_seconds",
                          {"type": "job_submit"})):
        fam = fams[name]
        assert fam.type == "histogram"
        mine = [s for s in fam.samples
                if all(s.labels.get(k) == v for k, v in labels.items())]
        buckets = [s.value for s in mine if s.name.endswith("_bucket")]
        (count,) = [s.value for s in mine if s.name.endswith("_count")]
        assert buckets == sorted(buckets) and buckets[-1] == count >= 1
        assert [s.labels["le"] for s in mine
                if s.name.endswith("_bucket")][-1] == "+Inf"
    (n,) = [s.value for s in fams["drover_rpc_duration_seconds"].samples
            if s.name.endswith("_count") and s.labels["type"] == "job_submit"]
    assert n == 2
    status, text = call(c, "/metrics")
    assert status == 401
    c.run("scancel", "-u", "root", check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_openapi_document_is_docs_copy(cluster):
    c = cluster
    status, doc = call(c, "/openapi.json")
    assert status == 200
    assert doc == json.loads((REPO / "docs" / "openapi.json").read_text()), \
        "docs/openapi.json is stale: droverrestd --openapi > docs/openapi.json"
    assert "/slurm/v0.0.38/job/submit" in doc["paths"]
    assert "post" in doc["paths"]["/slurm/v0.0.38/job/submit"]


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_slurmdb_paths(cluster, test_user):
    """/slurmdb/v0.0.38: droverdbd takes the token too; jobs are sacct
    --json's records, QOS/associations/accounts/users the sacctmgr
    tables in v0.0.38's shapes."""
    c = cluster
    c.run("sacctmgr", "-i", "add", "account", "physics", check=True)
    c.run("sacctmgr", "-i", "add", "user", test_user, "account=physics",
          check=True)
    c.run("sacctmgr", "-i", "add", "qos", "gpu4",
          "MaxTRESPerUser=gres/gpu=4", check=True)
    job = c.sbatch("--wrap", "true")
    assert c.wait_job_done(job) == "COMPLETED"
    tok = token(c)

    def db_job():
        status, doc = call(c, f"/slurmdb/v0.0.38/job/{job}", tok)
        done = status == 200 and \
            doc["jobs"][0]["state"]["current"] == "COMPLETED"
        return doc["jobs"] if done else None
    c.wait_until(db_job, what=f"job {job} COMPLETED in accounting")
    sacct = json.loads(c.run("sacct", "--json", "-j", job,
                             check=True).stdout)
    assert db_job() == sacct["jobs"]
    status, doc = call(c, "/slurmdb/v0.0.38/jobs?state=COMPLETED", tok)
    assert int(job) in [j["job_id"] for j in doc["jobs"]]
    status, doc = call(c, "/slurmdb/v0.0.38/job/999999", tok)
    assert status == 404

    status, doc = call(c, "/slurmdb/v0.0.38/qos", tok)
    qos = {q["name"]: q for q in doc["qos"]}
    assert qos["gpu4"]["limits"]["max"]["tres"]["per"]["user"] == [
        {"type": "gres", "name": "gpu", "count": 4}]
    status, doc = call(c, "/slurmdb/v0.0.38/users", tok)
    users = {u["name"]: u for u in doc["users"]}
    assert users[test_user]["default"]["account"] == "physics"
    assert users["root"]["administrator_level"] == "Administrator"
    status, doc = call(c, "/slurmdb/v0.0.38/associations", tok)
    assert {"account": "physics", "user": test_user} in [
        {"account": a["account"], "user": a["user"]}
        for a in doc["associations"]]
    status, doc = call(c, "/slurmdb/v0.0.38/accounts", tok)
    assert "physics" in [a["name"] for a in doc["accounts"]]
    # droverdbd checks tokens itself: a forged one is refused there too.
    forged = jwt({"alg": "HS256", "typ": "JWT"},
                 {"sun": "root", "iat": 0, "exp": int(time.time()) + 60},
                 b"y" * 32)
    status, doc = call(c, "/slurmdb/v0.0.38/qos", forged)
    assert status == 401 and "signature" in error_text(doc)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 2}],
                         indirect=True)
def test_prometheus_scrapes_the_cluster(cluster, tmp_path):
    """A real Prometheus server (Debian's) scrapes /metrics with a bearer
    token and answers PromQL about the cluster's jobs and GPUs."""
    import shutil
    import subprocess
    prom = shutil.which("prometheus")
    c = cluster
    require(prom, "prometheus is not installed (apt-get install prometheus)")
    tok = token(c, None, "lifespan=600")
    job = c.sbatch("--gres=gpu:1", "--wrap", "sleep 120")
    c.wait_job_state(job, ("RUNNING",))
    port = free_port()
    conf = tmp_path / "prometheus.yml"
    conf.write_text(
        "global: {scrape_interval: 1s, scrape_timeout: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: drover\n"
        f"    authorization: {{credentials: '{tok}'}}\n"
        f"    static_configs: [{{targets: ['{rest_url(c)[7:]}']}}]\n")
    p = subprocess.Popen(
        [prom, f"--config.file={conf}",
         f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=open(tmp_path / "prom.log", "w"))
    try:
        def query(q):
            url = f"http://127.0.0.1:{port}/api/v1/query?" + \
                urllib.parse.urlencode({"query": q})
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    res = json.loads(r.read())["data"]["result"]
            except (urllib.error.URLError, ConnectionError):
                return None
            return res or None
        res = c.wait_until(
            lambda: query('sum(drover_jobs{state="RUNNING"})'), timeout=60,
            what="Prometheus to scrape drover_jobs")
        assert float(res[0]["value"][1]) == 1
        res = query("drover_job_gpu_info")
        assert [(r["metric"]["job_id"], r["metric"]["node"])
                for r in res] == [(job, "node01")]
        res = query('drover_gpus{use="idle"}')
        assert float(res[0]["value"][1]) == 1
        up = query('up{job="drover"}')
        assert float(up[0]["value"][1]) == 1
    finally:
        p.terminate()
        p.wait(timeout=30)
        c.run("scancel", job)


UNIX_GET = r'''
import http.client, json, socket, sys
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sys.argv[1])
c = C("localhost")
body = sys.argv[4] if len(sys.argv) > 4 else None
c.request(sys.argv[2], sys.argv[3], body=body)
r = c.getresponse()
print(r.status)
print(r.read().decode())
'''


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_unix_socket_serves_its_own_user(cluster, test_user):
    """droverrestd unix:PATH run by a user serves that user without a
    token (slurmrestd's auth/local), and nobody else."""
    import subprocess
    c = cluster
    work = c.user_workdir(test_user)
    sock = work / "rest.sock"
    conf = c.dir / "etc" / "slurm.conf"
    p = subprocess.Popen(["runuser", "-u", test_user, "--",
                          str(binary("droverrestd")), "-f", str(conf),
                          f"unix:{sock}"],
                         stdout=subprocess.DEVNULL,
                         stderr=open(work / "restd.log", "w"))
    try:
        c.wait_until(sock.exists, what="the unix socket")
        assert oct(sock.stat().st_mode & 0o777) == "0o600"

        def req(method, path, body=None, user=test_user):
            args = ["/usr/bin/python3", "-c", UNIX_GET, str(sock), method,
                    path] + ([json.dumps(body)] if body else [])
            r = c.run(*args, user=user, check=True)
            status, text = r.stdout.split("\n", 1)
            return int(status), json.loads(text)
        status, doc = req("POST", "/slurm/v0.0.38/job/submit", {
            "script": "#!/bin/bash\ntrue\n",
            "job": {"current_directory": str(work), "hold": True}})
        assert status == 200, doc
        job = str(doc["job_id"])
        assert c.job_field(job, "UserId").startswith(test_user + "(")
        status, doc = req("GET", f"/slurm/v0.0.38/job/{job}")
        assert status == 200 and doc["jobs"][0]["user_name"] == test_user
        # root is another user here: refused without a token
        status, doc = req("GET", "/slurm/v0.0.38/jobs", user="root")
        assert status == 401
    finally:
        p.terminate()
        p.wait(timeout=30)
    assert not sock.exists()
    c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_drover_v1_paths_are_the_commands_json(cluster):
    c = cluster
    tok = token(c)
    job = c.sbatch("-H", "--wrap", "true")
    show = json.loads(c.run("scontrol", "--json", "show", "job", job,
                            check=True).stdout)
    status, doc = call(c, f"/drover/v1/job/{job}", tok)
    assert status == 200 and doc["jobs"] == show["jobs"]
    sq = json.loads(c.run("squeue", "--json", check=True).stdout)
    status, doc = call(c, "/drover/v1/jobs", tok)
    assert doc["jobs"] == sq["jobs"]
    nodes = json.loads(c.run("scontrol", "--json", "show", "node",
                             check=True).stdout)
    status, doc = call(c, "/drover/v1/nodes", tok)
    # The same nodes, keys and values, except the clocks that moved.
    assert [n["name"] for n in doc["nodes"]] == \
        [n["name"] for n in nodes["nodes"]]
    assert doc["nodes"][0].keys() == nodes["nodes"][0].keys()
    status, doc = call(c, f"/drover/v1/job/{job}", tok, "DELETE")
    assert status == 200
    assert c.wait_job_done(job) == "CANCELLED"


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_reservations_path(cluster):
    c = cluster
    c.run("scontrol", "create", "reservation", "ReservationName=maint",
          "StartTime=now+1hour", "Duration=120", "Nodes=node02",
          "Users=root", "Flags=MAINT", check=True)
    shown = json.loads(c.run("scontrol", "--json", "show", "reservation",
                             check=True).stdout)
    (r,) = shown["reservations"]
    assert (r["name"], r["node_list"], r["node_count"], r["users"],
            r["flags"]) == ("maint", "node02", 1, "root",
                            ["MAINT", "SPEC_NODES"])
    assert r["end_time"] - r["start_time"] == 7200
    tok = token(c)
    status, doc = call(c, "/slurm/v0.0.38/reservations", tok)
    assert status == 200 and doc["reservations"] == shown["reservations"]
    status, doc = call(c, "/slurm/v0.0.38/reservation/maint", tok)
    assert doc["reservations"] == shown["reservations"]
    status, doc = call(c, "/slurm/v0.0.38/reservation/nope", tok)
    assert status == 404 and error_text(doc) == "Requested reservation is invalid"


def get_with_age(url, path, tok):
    """(status, Age header or None, parsed JSON) of one GET."""
    req = urllib.request.Request(url + path,
                                 headers={"X-SLURM-USER-TOKEN": tok})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.headers.get("Age"), json.loads(r.read())


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_get_answers_are_shared_for_their_ttl(cluster, test_user):
    """droverrestd --cache-ttl: a GET answered a moment ago with the same
    token and path is answered again (with an Age header) without asking
    the controller; another token, or another path, is asked anew; a
    write through droverrestd makes every later GET fresh."""
    import subprocess
    c = cluster
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    p = subprocess.Popen([str(binary("droverrestd")), "-f",
                          str(c.dir / "etc" / "slurm.conf"),
                          "--cache-ttl=600000", f"127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        c.wait_until(lambda: call_ok(url), what="droverrestd to listen")
        tok, user_tok = token(c), token(c, test_user)
        first = c.sbatch("-H", "--wrap", "true")
        status, age, doc = get_with_age(url, "/slurm/v0.0.38/jobs", tok)
        assert (status, age) == (200, None)
        assert [j["job_state"] for j in doc["jobs"]] == ["PENDING"]
        c.run("scancel", first, check=True)
        assert c.wait_job_done(first) == "CANCELLED"
        # The same token and path: the kept answer, the job still pending.
        status, age, doc = get_with_age(url, "/slurm/v0.0.38/jobs", tok)
        assert status == 200 and age is not None
        assert [j["job_state"] for j in doc["jobs"]] == ["PENDING"]
        # Another token, another query: asked anew.
        for t, path in ((user_tok, "/slurm/v0.0.38/jobs"),
                        (tok, "/slurm/v0.0.38/jobs?x=1")):
            status, age, doc = get_with_age(url, path, t)
            assert age is None
            assert [j["job_state"] for j in doc["jobs"]] == ["CANCELLED"]
        # A write through droverrestd: every later GET is fresh.
        second = c.sbatch("-H", "--wrap", "true")
        req = urllib.request.Request(f"{url}/slurm/v0.0.38/job/{second}",
                                     headers={"X-SLURM-USER-TOKEN": tok},
                                     method="DELETE")
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200
        status, age, doc = get_with_age(url, "/slurm/v0.0.38/jobs", tok)
        assert age is None
        assert {j["job_id"]: j["job_state"] for j in doc["jobs"]} == {
            int(first): "CANCELLED", int(second): "CANCELLED"}
        # A refused request is never kept nor served from another's.
        status, doc = call_at(url, "/slurm/v0.0.38/jobs", tok + "x")
        assert status == 401
    finally:
        p.terminate()
        p.wait(timeout=30)


def get_raw(url, path, tok, accept_encoding=None):
    """(status, headers, body bytes) of one GET, as sent."""
    h = {"X-SLURM-USER-TOKEN": tok}
    if accept_encoding:
        h["Accept-Encoding"] = accept_encoding
    req = urllib.request.Request(url + path, headers=h)
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.headers, r.read()


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_answers_are_gzipped_for_clients_that_take_it(cluster):
    """A client whose Accept-Encoding takes gzip gets a large answer
    gzip-encoded (and again from the cache); one that does not, or says
    q=0, gets it as it is; small answers are never encoded."""
    import gzip
    c = cluster
    tok = token(c)
    ids = [c.sbatch("-H", "-J", f"gz{i}", "--wrap", "true")
           for i in range(8)]
    url = rest_url(c)
    path = "/slurm/v0.0.38/jobs"
    status, h, plain = get_raw(url, path, tok)
    assert status == 200 and h.get("Content-Encoding") is None
    assert "Accept-Encoding" in h.get("Vary", "")
    assert len(plain) > 1024
    for attempt in range(2):  # answered, then from the cache
        status, h, body = get_raw(url, path, tok, "gzip, deflate")
        assert status == 200 and h.get("Content-Encoding") == "gzip", h
        assert body[:2] == b"\x1f\x8b" and len(body) < len(plain)
        doc = json.loads(gzip.decompress(body))
        assert sorted(str(j["job_id"]) for j in doc["jobs"]) == sorted(ids)
    status, h, body = get_raw(url, path, tok, "gzip;q=0, identity")
    assert h.get("Content-Encoding") is None and body[:1] == b"{"
    status, h, body = get_raw(url, "/slurm/v0.0.38/ping", tok, "gzip")
    assert status == 200 and h.get("Content-Encoding") is None
    assert json.loads(body)["pings"]
    for i in ids:
        c.run("scancel", i, check=True)


def call_ok(url):
    try:
        urllib.request.urlopen(url + "/openapi.json", timeout=5).read()
        return True
    except OSError:
        return False


def call_at(url, path, tok):
    req = urllib.request.Request(url + path,
                                 headers={"X-SLURM-USER-TOKEN": tok})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_rest_submit_takes_sockets_cores_and_threads(cluster):
    """sockets_per_node, cores_per_socket, threads_per_core of v0.0.38's
    job description: sbatch -B's node filters (test_sockets.py)."""
    c = cluster
    tok = token(c)
    status, doc = call(c, "/slurm/v0.0.38/job/submit", tok, "POST", {
        "script": "#!/bin/sh\ntrue\n",
        "job": {"name": "sct", "hold": True, "sockets_per_node": 1,
                "cores_per_socket": 1, "threads_per_core": 1,
                "current_directory": "/tmp", "standard_output": "/dev/null",
                "environment": {"PATH": "/usr/bin:/bin"}}})
    assert status == 200, doc
    job = str(doc["job_id"])
    r = c.run("squeue", "-h", "-j", job, "-o", "%z", check=True)
    assert r.stdout.strip() == "1:1:1"
    c.run("scancel", job, check=True)
    status, doc = call(c, "/slurm/v0.0.38/job/submit", tok, "POST", {
        "script": "#!/bin/sh\ntrue\n",
        "job": {"sockets_per_node": 999, "current_directory": "/tmp",
                "environment": {"PATH": "/usr/bin:/bin"}}})
    assert status >= 400, doc
    assert doc["errors"][0]["errno"] == 2014  # node config not available
    assert error_text(doc).startswith("-B 999:*:*: no node has"), doc
