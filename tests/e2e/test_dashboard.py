# SPDX-License-Identifier: Apache-2.0
"""The dashboard (issue 14): droverrestd serves it at / and /ui/<file>
without a token, with a Content-Security-Policy; the browser test drives
it in headless Chromium (tests/e2e/web/dashboard.mjs, playwright-core and
Debian's chromium): log in with `scontrol token`'s line, filter and sort
the queue, see the node grid's GPU heatmap, read a pending job's
explanation, cancel a job from its page, watch another go PD -> R -> CD,
and see the utilisation charts.  Screenshots of each page go to
$DROVER_ARTIFACTS/dashboard (default: the test's tmp_path).

The browser test needs node, npm (playwright-core is installed into
tests/e2e/web/node_modules when missing) and /usr/bin/chromium: it skips
without them, and fails under DROVER_TEST_STRICT."""
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cluster import require

WEB = Path(__file__).resolve().parent / "web"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
V38 = "/slurm/v0.0.38"


def rest_url(c):
    return "http://" + (c.dir / "etc" / "restd.addr").read_text().strip()


def get(c, path, token=None, method="GET", body=None):
    """(status, headers, body: parsed JSON or text) of one request."""
    h = {"X-SLURM-USER-TOKEN": token} if token else {}
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(rest_url(c) + path, data=data, headers=h,
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, headers, raw = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, e.headers, e.read()
    ctype = headers.get("Content-Type", "")
    return status, headers, (json.loads(raw) if "json" in ctype
                             else raw.decode())


def token_line(c, user=None):
    """`scontrol token`'s output line, SLURM_JWT=..."""
    r = c.run("scontrol", "token", user=user, check=True)
    assert r.stdout.startswith("SLURM_JWT=")
    return r.stdout.strip()


def token(c, user=None):
    return token_line(c, user).split("=", 1)[1]


def submit(c, tok, name, script, workdir, **job):
    status, _, doc = get(c, f"{V38}/job/submit", tok, "POST", {
        "script": script,
        "job": {"name": name, "current_directory": str(workdir),
                "standard_output": "/dev/null",
                "environment": {"PATH": "/usr/bin:/bin"}, **job}})
    assert status == 200, doc
    return doc["job_id"]


def job_record(c, tok, job_id):
    status, _, doc = get(c, f"{V38}/job/{job_id}", tok)
    assert status == 200, doc
    return doc["jobs"][0]


def wait_record(c, tok, job_id, pred, what, timeout=60):
    end = time.monotonic() + timeout
    while True:
        rec = job_record(c, tok, job_id)
        if pred(rec):
            return rec
        if time.monotonic() > end:
            raise AssertionError(f"job {job_id}: not {what}: {rec}")
        time.sleep(0.3)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_dashboard_served_without_token(cluster, test_user):
    c = cluster
    status, h, text = get(c, "/")
    assert status == 200 and h["Content-Type"].startswith("text/html")
    csp = h["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert h["X-Content-Type-Options"] == "nosniff"
    assert '<script type="module" src="/ui/app.js">' in text
    # Every file the page names, and every module an ES module imports,
    # is embedded, with its content type.
    names = set(re.findall(r'"/ui/([^"]+)"', text))
    seen = set()
    while names - seen:
        name = sorted(names - seen)[0]
        seen.add(name)
        status, h, body = get(c, f"/ui/{name}")
        assert status == 200, (name, body)
        ext = name.rsplit(".", 1)[1]
        assert h["Content-Type"].split(";")[0] == {
            "js": "text/javascript", "css": "text/css"}[ext], name
        assert "script-src 'self'" in h["Content-Security-Policy"]
        names |= set(re.findall(r"from '\./([^']+)'", body))
    assert {"app.js", "api.js", "util.js", "job.js", "queue.js", "nodes.js",
            "utilisation.js", "history.js", "login.js", "style.css",
            "chart.umd.min.js"} <= seen
    # Chart.js comes with its licence.
    status, h, text = get(c, "/ui/chart.js-LICENSE.md")
    assert status == 200 and "MIT License" in text
    for bad in ("/ui/nope.js", "/ui/vendor/chart.js/LICENSE.md", "/ui/"):
        status, _, doc = get(c, bad)
        assert status == 404, (bad, doc)
    status, _, doc = get(c, "/", method="POST")
    assert status == 405

    # The page's data paths still want a token; the steps path is new.
    tok = token(c, test_user)
    assert get(c, "/drover/v1/job/1/steps")[0] == 401
    workdir = c.user_workdir(test_user)
    job = submit(c, tok, "steps", "#!/bin/bash\ntrue\n", workdir)
    assert c.wait_job_done(str(job)) == "COMPLETED"
    status, _, doc = get(c, f"/drover/v1/job/{job}/steps", tok)
    assert status == 200 and doc["errors"] == [], doc
    (step,) = doc["steps"]
    assert (step["step"], step["name"], step["state"], step["job_id"]) == \
        (f"{job}.batch", "batch", "COMPLETED", job)
    assert get(c, "/drover/v1/job/999999/steps", tok)[0] == 404
    assert get(c, "/drover/v1/job/abc/steps", tok)[0] == 400


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_job_record_explains_pending(cluster, test_user):
    """/slurm/v0.0.38/job/{id} adds pending_explain (the controller's
    words); /jobs and /drover/v1/... keep the commands' keys."""
    c = cluster
    tok = token(c, test_user)
    workdir = c.user_workdir(test_user)
    job = submit(c, tok, "held", "#!/bin/bash\ntrue\n", workdir, hold=True)
    rec = job_record(c, tok, job)
    assert rec["job_state"] == "PENDING"
    assert isinstance(rec["pending_explain"], str) and rec["pending_explain"]
    for path in (f"{V38}/jobs", "/drover/v1/jobs", f"/drover/v1/job/{job}"):
        status, _, doc = get(c, path, tok)
        assert status == 200 and doc["jobs"], (path, doc)
        assert all("pending_explain" not in j for j in doc["jobs"]), path
    assert get(c, f"{V38}/job/{job}", tok, "DELETE")[0] == 200


def browser_ready():
    """Whether node, npm's playwright-core and chromium are there, with the
    reason when not; runs `npm install` in tests/e2e/web when
    playwright-core is missing."""
    if not shutil.which("node"):
        return False, "node is not installed (apt-get install nodejs)"
    if not os.access(CHROMIUM, os.X_OK):
        return False, f"no {CHROMIUM} (apt-get install chromium)"
    if (WEB / "node_modules" / "playwright-core").is_dir():
        return True, ""
    if not shutil.which("npm"):
        return False, "npm is not installed (apt-get install npm)"
    r = subprocess.run(["npm", "install", "--no-audit", "--no-fund",
                        "--no-package-lock"], cwd=WEB, capture_output=True,
                       text=True, timeout=600)
    if r.returncode:
        return False, f"npm install failed: {r.stderr[-1500:]}"
    return True, ""


@pytest.fixture
def browser():
    """The browser test's prerequisites (before the cluster starts)."""
    ok, reason = browser_ready()
    require(ok, reason)


def artifacts_dir(tmp_path):
    base = os.environ.get("DROVER_ARTIFACTS")
    d = Path(base) / "dashboard" if base else tmp_path / "dashboard"
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 4}],
                         indirect=True)
def test_dashboard_in_chromium(browser, cluster, test_user, tmp_path):
    c = cluster
    line = token_line(c, test_user)
    tok = line.split("=", 1)[1]
    workdir = c.user_workdir(test_user)
    # The blocker holds 3 of each node's 4 GPUs; the waiter wants 2.
    blocker = submit(c, tok, "blocker", "#!/bin/bash\nsleep 300\n", workdir,
                     nodes="2", tres_per_node="gres/gpu:3")
    wait_record(c, tok, blocker, lambda r: r["job_state"] == "RUNNING",
                "RUNNING")
    waiter = submit(c, tok, "waiter", "#!/bin/bash\nsleep 5\n", workdir,
                    tres_per_node="gres/gpu:2")
    wait_record(c, tok, waiter, lambda r: r["state_reason"] == "Resources",
                "pending on Resources")

    shots = artifacts_dir(tmp_path)
    env = dict(os.environ, DASH_URL=rest_url(c), DASH_TOKEN=line,
               DASH_BLOCKER=str(blocker), DASH_WAITER=str(waiter),
               DASH_ARTIFACTS=str(shots), CHROMIUM=CHROMIUM)
    r = subprocess.run(["node", str(WEB / "dashboard.mjs")], env=env,
                       capture_output=True, text=True, timeout=300)
    print(r.stdout + r.stderr)
    print(f"[drover] dashboard screenshots in {shots}")
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(r.stdout.strip().splitlines()[-1])
    seen = result["seen"]   # the states the page showed, in order
    assert seen[0] == "PENDING" and seen[-1] == "COMPLETED", seen
    assert "RUNNING" in seen, seen
    assert c.job_state(str(blocker)) == "CANCELLED"
    assert c.job_state(str(waiter)) == "COMPLETED"
    pngs = sorted(p.name for p in shots.glob("*.png"))
    assert pngs == ["01-login.png", "02-queue.png", "03-nodes.png",
                    "04-job-pending.png", "05-job-cancelled.png",
                    "05a-job-usage.png",
                    "06-job-completed.png", "07-utilisation.png"], pngs
