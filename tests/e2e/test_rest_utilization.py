# SPDX-License-Identifier: Apache-2.0
"""GET /drover/v1/utilization (issue 14): the cluster's CPU and GPU
seconds hour by hour from droverdbd's hourly rollup, through the same
acct_usage_report request `sreport cluster utilization` sends, so its
hours add up to sreport's figures for the same start= and end=."""
import time
from urllib.parse import urlencode

from test_dashboard import get, token
from test_sreport import hour_floor, report, run_jobs, stamp

FIELDS = ("allocated", "down", "planned_down", "idle", "planned",
          "reported")


def sreport_seconds(c, start, end):
    lines = report(c, "-P", "-n", "-t", "seconds", "cluster", "utilization",
                   f"start={start}", f"end={end}")
    _, *figures = lines[0].split("|")
    return dict(zip(FIELDS, map(int, figures)))


def test_utilization_hours_add_up_to_sreport(acct_cluster, test_user,
                                             tmp_path):
    c = acct_cluster
    rows = run_jobs(c, tmp_path)
    want = sum((stamp(r[3]) - stamp(r[2])) * int(r[4]) for r in rows)
    start = hour_floor(min(stamp(r[2]) for r in rows))
    end = "now+1hour"
    tok = token(c, test_user)
    path = "/drover/v1/utilization?" + urlencode({"start": start,
                                                 "end": end})

    assert get(c, path)[0] == 401
    before = time.time()
    status, _, doc = get(c, path, tok)
    seen = sreport_seconds(c, start, end)
    spread = time.time() - before + 2
    assert status == 200 and doc["errors"] == [], doc
    assert doc["cluster"] == c.conf_value("ClusterName")
    assert doc["tres"] == ["cpu", "gres/gpu"]
    hours = doc["hours"]
    # Every hour of the window, oldest first, each with both TRES.
    assert [h["start"] for h in hours] == \
        list(range(doc["start"], doc["end"], 3600)), hours
    assert doc["start"] == stamp(start)
    assert doc["end"] > time.time() - 3600
    for field in FIELDS + ("count",):
        assert all(set(h[field]) == {"cpu", "gres/gpu"} for h in hours)
    total = {f: sum(h[f]["cpu"] for h in hours) for f in FIELDS}
    # The jobs' CPU seconds, as sreport counts them.
    assert total["allocated"] == seen["allocated"] \
        == doc["totals"]["allocated"]["cpu"], (total, seen)
    assert abs(total["allocated"] - want) <= 2 * 2 * len(rows)
    assert (total["down"], total["planned_down"]) == (0, 0)
    # The hour in progress counts up to now: its capacity grows between
    # the two requests, by at most a node's CPUs a second.
    cpus = int(c.run("sinfo", "-h", "-o", "%c",
                     check=True).stdout.split()[0])
    for f in ("idle", "planned", "reported"):
        assert abs(total[f] - seen[f]) <= spread * cpus, (f, total, seen)
    assert total["reported"] == sum(total[f] for f in FIELDS[:5])
    busy = [h for h in hours if h["allocated"]["cpu"]]
    # count: the hour's average capacity (the hour in progress, so far).
    assert busy and all(0 < h["count"]["cpu"] <= cpus for h in busy), busy
    # No GPUs on this cluster: GPU seconds all 0.
    assert all(h["reported"]["gres/gpu"] == 0 for h in hours)


def test_utilization_window_and_bad_times(acct_cluster, test_user):
    c = acct_cluster
    tok = token(c, test_user)
    status, _, doc = get(c, "/drover/v1/utilization", tok)
    assert status == 200, doc
    # The default: the 24 hours up to the end of the hour in progress.
    now = time.time()
    assert doc["end"] - doc["start"] == 24 * 3600
    assert doc["end"] - 3600 <= now < doc["end"], doc
    assert len(doc["hours"]) == 24
    status, _, doc = get(c, "/drover/v1/utilization?start=now-7days", tok)
    # now-7days rounds to the nearest hour, as sreport's start=: 7 days
    # and the hour in progress, or (from half past) 7 days.
    assert status == 200 and len(doc["hours"]) in (7 * 24, 7 * 24 + 1), doc
    status, _, doc = get(c, "/drover/v1/utilization?start=yesterday-ish",
                         tok)
    assert status == 400
    assert "start=yesterday-ish: Invalid time specification" in \
        doc["errors"][0]["error"], doc
    status, _, doc = get(c, "/drover/v1/utilization?start=2020-01-01", tok)
    assert status == 400 and "at most 2232 hours" in \
        doc["errors"][0]["error"], doc
