# SPDX-License-Identifier: Apache-2.0
"""scontrol update takes effect: a pending job's Partition=, NumNodes=,
StartTime=, Name= and Features=, checked all together before any is
applied; a node's Weight=, which orders the nodes a job gets and survives
a controller restart."""
import signal
import time

from test_requests import job, set_features

EXTRA = "--conf-extra=PartitionName=small Nodes=node01 MaxTime=INFINITE State=UP"


def update(cluster, *args, user=None):
    return cluster.run("scontrol", "update", *args, user=user)


def test_pending_job_fields_take_effect(cluster_root):
    from cluster import Cluster
    c = Cluster(cluster_root, nodes=2, gpus_per_node=0, up_args=[EXTRA])
    try:
        c.up()
        set_features(c, ["fast", "slow"])
        j = c.sbatch("-H", "--wrap=true")
        later = int(time.time()) + 3600
        r = update(c, f"JobId={j}", "Partition=small", "Name=renamed",
                   "StartTime=now+1hour", "Features=fast")
        assert (r.returncode, r.stderr) == (0, ""), r.stderr
        o = job(c, j)
        assert (o["partition"], o["name"], o["features"]) == \
            ("small", "renamed", "fast")
        assert later - 5 <= o["eligible_time"] <= later + 5
        # One bad field and nothing changes.
        r = update(c, f"JobId={j}", "Partition=debug", "Features=nosuch")
        assert (r.returncode, r.stderr) == \
            (1, f"Invalid feature specification for job {j}\n")
        assert job(c, j)["partition"] == "small"
        update(c, f"JobId={j}", "StartTime=now", "Features=")
        assert "features" not in job(c, j) or not job(c, j)["features"]
        c.run("scontrol", "release", j, check=True)
        c.wait_job_state(j, ["COMPLETED"], timeout=30)
        assert job(c, j)["nodes"] == "node01"

        k = c.sbatch("-H", "--wrap=true")
        r = update(c, f"JobId={k}", "NumNodes=2", "Features=slow")
        assert r.returncode == 0, r.stderr
        assert job(c, k)["nodes_min"] == 2
        r = update(c, f"JobId={k}", "Features=")
        c.run("scontrol", "release", k, check=True)
        c.wait_job_state(k, ["COMPLETED"], timeout=30)
        assert job(c, k)["nodes"] == "node[01-02]"
        # Only Name= may change once the job runs.
        r = update(c, f"JobId={k}", "Partition=small")
        assert r.returncode == 1
    finally:
        c.down()


def test_node_weight_orders_nodes_and_survives_restart(cluster_root,
                                                       test_user):
    from cluster import Cluster
    c = Cluster(cluster_root, nodes=2, gpus_per_node=0)
    try:
        c.up()
        r = update(c, "NodeName=node01", "Weight=10", user=test_user)
        assert (r.returncode, r.stderr) == \
            (1, "slurm_update error: Invalid user id\n")
        update(c, "NodeName=node01", "Weight=10").check_returncode()
        show = c.run("scontrol", "show", "node", "node01", check=True).stdout
        assert " Weight=10 " in show
        j = c.sbatch("--wrap=true")
        c.wait_job_state(j, ["COMPLETED"], timeout=30)
        assert job(c, j)["nodes"] == "node02"

        c.kill("droverctld", signal.SIGKILL)
        c.start()
        show = c.run("scontrol", "show", "node", "node01", check=True).stdout
        assert " Weight=10 " in show
        update(c, "NodeName=node02", "Weight=20").check_returncode()
        c.wait_nodes_idle()
        j = c.sbatch("--wrap=true")
        c.wait_job_state(j, ["COMPLETED"], timeout=30)
        assert job(c, j)["nodes"] == "node01"
    finally:
        c.down()
