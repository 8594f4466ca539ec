# SPDX-License-Identifier: Apache-2.0
"""droverd's Prometheus endpoint (issue 14, Metrics: "per-node exporter
endpoint in droverd"): SlurmdParameters=drover_metrics=, which `drover up`
sets for each node.  A real job burns CPU and holds memory and a GPU;
its series are scraped from its node, parsed with prometheus_client,
grow while it runs and go once it ended; bad requests get 4xx and
droverd keeps serving.  Where Debian's prometheus is installed, a real
server scrapes the node and the controller's /metrics and a PromQL
query joins them on job_id."""
import json
import re
import shutil
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest
from cluster import require

BURN = r'''import time
hold = b"x" * (120 << 20)  # written, so resident
end = time.time() + 120
while time.time() < end:
    pass
'''


def parser():
    try:
        from prometheus_client import parser as p
    except ImportError:
        p = None
    require(p, "python3-prometheus-client is not installed")
    return p


def node_url(c, node):
    """The node's metrics URL, as `drover status` prints it."""
    r = c.drover_cmd("status")
    m = re.search(rf"droverd {node}\s+running\s+pid \d+\s+metrics (\S+)",
                  r.stdout)
    assert m, r.stdout
    return m.group(1)


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    return {f.name: f for f in parser().text_string_to_metric_families(text)}


def samples(fams, family, job=None):
    """{step_id or None: value} of 'family' for 'job' (all when None)."""
    return {s.labels.get("step_id"): s.value
            for s in (fams[family].samples if family in fams else [])
            if job is None or s.labels.get("job_id") == job}


def raw_request(port, data):
    """The status line's code of a raw HTTP exchange (0: closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        buf = b""
        try:
            while b"\r\n" not in buf:
                more = s.recv(4096)
                if not more:
                    break
                buf += more
        except ConnectionResetError:
            pass
    m = re.match(rb"HTTP/1\.[01] (\d{3})", buf)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 2}],
                         indirect=True)
def test_node_metrics_follow_a_job(cluster, test_user, tmp_path):
    c = cluster
    url1, url2 = node_url(c, "node01"), node_url(c, "node02")
    assert url1 != url2 and url1.startswith("http://127.0.0.1:")
    assert f"metrics of node01: {url1}" in c.last_up.stdout
    work = c.user_workdir(test_user)
    (work / "burn.py").write_text(BURN)
    job = c.sbatch("-w", "node02", "--gres=gpu:1", "--mem=400M",
                   "--wrap", f"python3 {work / 'burn.py'}",
                   user=test_user, cwd=work)
    c.wait_job_state(job, ("RUNNING",))

    def held():
        f = scrape(url2)
        mem = samples(f, "drover_node_job_memory_bytes", job).get(None, 0)
        return f if mem >= 120 << 20 else None
    fams = c.wait_until(held, timeout=30, what="the job's memory in use")
    cpu0 = samples(fams, "drover_node_job_cpu_seconds", job)[None]
    mem = samples(fams, "drover_node_job_memory_bytes", job)[None]
    assert 120 << 20 <= mem <= 400 << 20
    assert samples(fams, "drover_node_job_memory_limit_bytes", job) == \
        {None: 400 << 20}
    assert samples(fams, "drover_node_job_processes", job)[None] >= 1
    steps = samples(fams, "drover_node_step_memory_bytes", job)
    assert steps["batch"] >= 120 << 20
    (gpu,) = fams["drover_node_job_gpu_info"].samples
    assert (gpu.labels["job_id"], gpu.labels["user"], gpu.labels["node"],
            gpu.labels["gpu_index"]) == (job, test_user, "node02", "0")
    user = {s.labels["user"] for s in
            fams["drover_node_job_memory_bytes"].samples}
    assert user == {test_user}
    node = {s.name: s.value for fam in ("drover_node_cpus",
                                        "drover_node_gpus",
                                        "drover_node_jobs_running")
            for s in fams[fam].samples}
    assert node["drover_node_gpus"] == 2 and node["drover_node_cpus"] >= 1
    assert node["drover_node_jobs_running"] == 1
    # The other node runs nothing of it.
    assert samples(scrape(url1), "drover_node_job_cpu_seconds") == {}

    # The busy job's CPU time grows (polled: on a loaded machine it gets
    # less than a CPU; a fixed sleep made this a race).
    def cpu_grew():
        cpu = samples(scrape(url2), "drover_node_job_cpu_seconds", job)[None]
        return cpu >= cpu0 + 1.0
    c.wait_until(cpu_grew, timeout=60, what="the job's CPU seconds to grow")

    c.run("scancel", job, check=True)
    c.wait_job_done(job)
    c.wait_until(lambda: not samples(scrape(url2),
                                     "drover_node_job_cpu_seconds"),
                 timeout=30, what="the job's series to go")
    fams = scrape(url2)
    assert fams["drover_node_jobs_running"].samples[0].value == 0
    assert not fams["drover_node_job_gpu_info"].samples


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_node_metrics_refuse_bad_requests(cluster):
    c = cluster
    url = node_url(c, "node01")
    port = urllib.parse.urlsplit(url).port
    pid = c.pid("droverd node01")
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
    assert raw_request(port, b"GET /other HTTP/1.1\r\nHost: x\r\n\r\n") == 404
    assert raw_request(port, b"POST /metrics HTTP/1.1\r\nHost: x\r\n"
                       b"Content-Length: 2\r\n\r\nhi") == 405
    assert raw_request(port, req + b"Content-Length: 2\r\n\r\nhi") == 400
    assert raw_request(port, b"BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n") \
        == 405
    # A line that is no request at all: MHD answers 400 or just closes.
    assert raw_request(port, b"GARBAGE\x00\xff\r\n\r\n") in (0, 400)
    assert 400 <= raw_request(
        port, req + b"X-Big: " + b"a" * 64000 + b"\r\n\r\n") < 500
    assert 400 <= raw_request(
        port, b"GET /" + b"m" * 64000 + b" HTTP/1.1\r\n\r\n") < 500
    # Idle connections past the limits (8 per address, 16 in all) are
    # closed after 10 s: scrapes work again.
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]

    def try_scrape():
        try:
            return scrape(url)
        except (urllib.error.URLError, ConnectionError, OSError):
            return None
    try:
        fams = c.wait_until(try_scrape, timeout=30,
                            what="a scrape past idle connections")
    finally:
        for s in idle:
            s.close()
    assert fams["drover_node_jobs_running"].samples[0].value == 0
    assert c.pid("droverd node01") == pid
    assert c.run("srun", "-N1", "true", timeout=60).returncode == 0


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 1}],
                         indirect=True)
def test_prometheus_joins_node_and_controller(cluster, tmp_path):
    """A real Prometheus scrapes droverd's endpoint and the controller's
    (droverrestd, with a token); PromQL joins the node's CPU series to
    the controller's GPU series on job_id."""
    prom = shutil.which("prometheus")
    require(prom, "prometheus is not installed (apt-get install prometheus)")
    c = cluster
    node = urllib.parse.urlsplit(node_url(c, "node01")).netloc
    rest = (c.dir / "etc" / "restd.addr").read_text().strip()
    tok = c.run("scontrol", "token", "lifespan=600",
                check=True).stdout.strip().split("=", 1)[1]
    job = c.sbatch("--gres=gpu:1", "--wrap",
                   "while :; do :; done")
    c.wait_job_state(job, ("RUNNING",))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = tmp_path / "prometheus.yml"
    conf.write_text(
        "global: {scrape_interval: 1s, scrape_timeout: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: drover\n"
        f"    authorization: {{credentials: '{tok}'}}\n"
        f"    static_configs: [{{targets: ['{rest}']}}]\n"
        "  - job_name: droverd\n"
        f"    static_configs: [{{targets: ['{node}']}}]\n")
    p = subprocess.Popen(
        [prom, f"--config.file={conf}",
         f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=open(tmp_path / "prom.log", "w"))
    q = ("drover_node_job_cpu_seconds_total * on(job_id) group_left(uuid) "
         "drover_job_gpu_info")

    def query():
        u = f"http://127.0.0.1:{port}/api/v1/query?" + \
            urllib.parse.urlencode({"query": q})
        try:
            with urllib.request.urlopen(u, timeout=5) as r:
                return json.loads(r.read())["data"]["result"] or None
        except (urllib.error.URLError, ConnectionError):
            return None
    try:
        res = c.wait_until(query, timeout=60,
                           what="Prometheus to join node and controller")
        (r,) = res
        assert r["metric"]["job_id"] == job
        assert r["metric"]["node"] == "node01"
        assert float(r["value"][1]) > 0
    finally:
        p.terminate()
        p.wait(timeout=30)
        c.run("scancel", job)
