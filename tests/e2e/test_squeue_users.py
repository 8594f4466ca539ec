# SPDX-License-Identifier: Apache-2.0
"""squeue -u: the controller answers a listing for a few users from each
user's own list of jobs (src/ctld/job_listing.c put_by_users()) instead
of walking the table; what it lists must be what the whole listing holds
for those users, in any state asked for."""
import pytest

pytestmark = pytest.mark.parametrize(
    "cluster", [{"nodes": 1, "gpus_per_node": 0,
                 "up_args": ["--conf-extra=MinJobAge=15"]}], indirect=True)


def ids(cluster, *args):
    r = cluster.run("squeue", "-h", "-o", "%i", *args, check=True)
    return sorted(r.stdout.split(), key=int)


def owned(cluster, users, *args):
    """The whole listing, filtered here by owner."""
    r = cluster.run("squeue", "-h", "-o", "%i %u", *args, check=True)
    pairs = [line.split() for line in r.stdout.splitlines()]
    return sorted((i for i, u in pairs if u in users), key=int)


def test_squeue_u_lists_the_users_jobs(cluster, test_users):
    u1, u2 = test_users
    jobs = {u1: [], u2: [], "root": []}
    for user, n in ((u1, 3), (u2, 2), ("root", 2)):
        for _ in range(n):
            jobs[user].append(cluster.sbatch(
                "-H", "--wrap", "true", user=None if user == "root" else user,
                cwd=cluster.user_workdir(user) if user != "root" else None))
    done = cluster.sbatch("--wrap", "true", user=u1,
                          cwd=cluster.user_workdir(u1))
    cluster.wait_job_done(done, timeout=60)

    assert ids(cluster, "-u", u1) == sorted(jobs[u1], key=int)
    assert ids(cluster, "-u", u1) == owned(cluster, {u1})
    assert ids(cluster, "-u", f"{u1},{u2},{u1}") == \
        sorted(jobs[u1] + jobs[u2], key=int)
    # an ended job is there for -t all (kept until MinJobAge)
    assert done in ids(cluster, "-u", u1, "-t", "all")
    assert ids(cluster, "-u", u1, "-t", "all") == \
        owned(cluster, {u1}, "-t", "all")
    assert ids(cluster, "-u", u2, "-t", "CD") == []
    assert ids(cluster, "-u", "nobody") == []
    # a job purged from the table (MinJobAge) leaves its owner's list
    cluster.run("scancel", jobs[u2][0], check=True)
    cluster.wait_job_done(jobs[u2][0], timeout=30)
    assert ids(cluster, "-u", u2) == [jobs[u2][1]]
    cluster.wait_until(
        lambda: jobs[u2][0] not in ids(cluster, "-u", u2, "-t", "all"),
        timeout=60, what="the cancelled job purged")
    assert ids(cluster, "-u", u2, "-t", "all") == [jobs[u2][1]]
    cluster.run("scancel", "-u", u1, check=True)
    assert ids(cluster, "-u", u1) == []
