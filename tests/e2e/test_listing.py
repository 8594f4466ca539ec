# SPDX-License-Identifier: Apache-2.0
"""Job listings written across loop turns (src/ctld/job_listing.h).

droverctld writes a whole job_info listing a slice per loop turn; here
the slice is 1 µs (DROVER_LISTING_SLICE_US), so each turn writes 64 jobs
and a listing of thousands of array tasks spans dozens of turns while
tasks split from their master, start, end and are purged in between.
Each listing must show every job at most once, and every job that was
there before and after it (listed by the one before and the one after)
must be in it.
"""

import signal
import time

import pytest

TASKS = 6000

# alone: 6,000 tasks churning and hundreds of listings load both cores,
# which slowed a timing-bound test beside it (test_stepd's step cancel).
pytestmark = [
    pytest.mark.alone,
    pytest.mark.parametrize(
        "cluster",
        [{"nodes": 1, "gpus_per_node": 0,
          "up_args": ["--emulate-nodes=20", "--cpus-per-node=4",
                      "--conf-extra=MaxArraySize=8000",
                      "--conf-extra=MinJobAge=2"]}],
        indirect=True),
]


def listing(cluster, *args):
    r = cluster.run("squeue", "-h", "-r", "-o", "%i", *args, check=True,
                    timeout=60)
    return r.stdout.split()


def check_listings(cluster, array, *args):
    """Listings one after another until the tasks have changed under them
    a few hundred times: none shows a job twice, none loses one that the
    listings before and after it show."""
    lists, changed = [listing(cluster, *args)], 0
    deadline = time.monotonic() + 60  # 300 fast listings may be too few
    while (changed < 600 and lists[-1]
           and (len(lists) < 300
                or (changed < 100 and time.monotonic() < deadline))):
        lists.append(listing(cluster, *args))
        changed += len(set(lists[-2]) ^ set(lists[-1]))
    assert changed >= 100, f"only {changed} changes in {len(lists)} listings"
    for i, ids in enumerate(lists):
        dup = {x for x in ids if ids.count(x) > 1}
        assert not dup, f"listing {i} shows jobs twice: {sorted(dup)[:10]}"
        assert all(x.startswith(f"{array}_") for x in ids), ids[:5]
    for i in range(1, len(lists) - 1):
        lost = (set(lists[i - 1]) & set(lists[i + 1])) - set(lists[i])
        assert not lost, f"listing {i} lost jobs: {sorted(lost)[:10]}"


def test_a_listing_across_turns_shows_each_job_once(cluster, tmp_path):
    cluster.env["DROVER_LISTING_SLICE_US"] = "1"
    cluster.kill("droverctld", signal.SIGKILL)
    cluster.start()
    array = cluster.sbatch("--parsable", f"--array=1-{TASKS}", "-x", "node01",
                           "--comment=emulate:run=1", "-o", "/dev/null",
                           "--wrap", "true", cwd=tmp_path)
    # -r lists pending tasks one by one too: wait for running ones (the
    # emulated nodes register again with the restarted controller)
    cluster.wait_until(lambda: listing(cluster, "-t", "R"),
                       timeout=60, what="tasks running")
    # A job asked for by id comes from the index, whole arrays too.
    r = cluster.run("squeue", "-h", "-r", "-j", array, "-o", "%i",
                    check=True)
    ids = r.stdout.split()
    assert len(ids) == len(set(ids)) and ids
    r = cluster.run("scontrol", "show", "job", array, check=True)
    assert f"ArrayJobId={array}" in r.stdout
    # squeue's default states: the live jobs are walked, by id.
    check_listings(cluster, array)
    # Every state: the whole table is walked, in its order.
    check_listings(cluster, array, "-t", "all")
    cluster.run("scancel", array)  # whatever is left of it
