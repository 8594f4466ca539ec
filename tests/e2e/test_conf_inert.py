# SPDX-License-Identifier: Apache-2.0
"""slurm.conf keywords with no counterpart in Drover (issue 13,
src/conf/conf_inert.c): a value Drover does not support stops the cluster
with the file, line and why; a keyword with no effect is accepted and
droverctld says so once in its log, while commands reading the same
slurm.conf stay quiet.  And the three keywords implemented instead:
MpiDefault (srun's --mpi default), WaitTime (srun's -W default) and
GroupUpdateTime (printed by scontrol show config)."""
import re

import pytest

from cluster import Cluster


def extra(*lines, nodes=1):
    return {"nodes": nodes, "gpus_per_node": 0,
            "up_args": [f"--conf-extra={line}" for line in lines]}


NOTICES = [
    r"slurm\.conf:\d+: FastSchedule=1 has no effect in Drover: removed from "
    r"Slurm; nodes are scheduled by their configured sizes",
    r"slurm\.conf:\d+: PartitionName=billed: TRESBillingWeights=CPU=1\.0 has "
    r"no effect in Drover: billing TRES is not counted",
]


@pytest.mark.parametrize("cluster", [extra(
    "FastSchedule=1", "GroupUpdateTime=30",
    "PartitionName=billed Nodes=ALL TRESBillingWeights=CPU=1.0 State=UP")],
    indirect=True)
def test_no_effect_keyword_is_logged_by_the_controller_only(cluster):
    c = cluster
    log = c.log_file("droverctld").read_text()
    for notice in NOTICES:
        found = re.findall(notice, log)
        assert len(found) == 1, (notice, log[-3000:])
    # the commands parse the same slurm.conf and say nothing about it
    for cmd in (["sinfo"], ["squeue"], ["scontrol", "show", "partition"]):
        r = c.run(*cmd, check=True)
        assert r.stderr == "", (cmd, r.stderr)
    assert c.show_config("GroupUpdateTime") == "30 sec"
    assert c.show_config("MpiDefault") == "none"
    assert c.show_config("WaitTime") == "0 sec"


# A short name: the cluster's path, in the message, is made from it.
def test_refused_value_stops_up(cluster_root):
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    try:
        r = c.drover_cmd("up", "--nodes=1", "--gpus-per-node=0",
                         "--conf-extra=AuthType=auth/jwt")
        out = r.stdout + r.stderr
        assert r.returncode != 0, out
        assert re.search(r"slurm\.conf:\d+: AuthType=auth/jwt: Drover "
                         r"authenticates with MUNGE only \(auth/munge\)",
                         out), out
    finally:
        c.down()


@pytest.mark.parametrize("cluster", [extra("MpiDefault=pmix")],
                         indirect=True)
def test_mpi_default_is_sruns_mpi_type(cluster):
    c = cluster
    assert c.show_config("MpiDefault") == "pmix"
    show = ["sh", "-c", 'echo "$SLURM_MPI_TYPE ${PMIX_RANK-none}"']
    r = c.run("srun", "-n1", *show, check=True)
    assert r.stdout == "pmix 0\n", r.stderr
    # --mpi, then SLURM_MPI_TYPE, come before MpiDefault
    r = c.run("srun", "-n1", "--mpi=none", *show, check=True)
    assert r.stdout == "none none\n", r.stderr
    r = c.run("srun", "-n1", *show, env={"SLURM_MPI_TYPE": "none"},
              check=True)
    assert r.stdout == "none none\n", r.stderr


@pytest.mark.parametrize("cluster", [extra("WaitTime=2")], indirect=True)
def test_wait_time_is_sruns_wait_default(cluster):
    c = cluster
    assert c.show_config("WaitTime") == "2 sec"
    r = c.run("srun", "-n2", "sh", "-c",
              "[ $SLURM_PROCID = 0 ] && exit 3; exec sleep 60", timeout=30)
    assert "srun: First task exited 2s ago" in r.stderr, r.stderr
    assert r.returncode == 137
    # -W comes before WaitTime
    r = c.run("srun", "-n2", "-W", "20", "sh", "-c",
              "[ $SLURM_PROCID = 0 ] && exit 3; exec sleep 4", timeout=30)
    assert "First task exited" not in r.stderr, r.stderr
    assert r.returncode == 3


@pytest.mark.parametrize("cluster", [{
    "nodes": 1, "gpus_per_node": 0,
    "up_args": ["--cgroup-conf-extra=CgroupAutomount=yes",
                "--cgroup-conf-extra=MemorySwappiness=",
                "--dbd-conf-extra=ArchiveJobs=yes",
                "--dbd-conf-extra=AuthType=auth/munge"]}], indirect=True)
def test_no_effect_keywords_of_cgroup_and_slurmdbd_conf_are_logged(cluster):
    """cgroup.conf's and slurmdbd.conf's keywords Drover accepts and does
    not use are said once, by the daemon that reads them (were silent);
    "Key=" (Slurm's default) and AuthType=auth/munge (what Drover does)
    are not."""
    c = cluster
    ctld = c.log_file("droverctld").read_text()
    found = re.findall(r"cgroup\.conf:\d+: CgroupAutomount=yes has no "
                       r"effect in Drover: Drover mounts nothing; it uses "
                       r"the hierarchies mounted", ctld)
    assert len(found) == 1, ctld[-3000:]
    assert "MemorySwappiness" not in ctld
    dbd = c.log_file("droverdbd").read_text()
    found = re.findall(r"slurmdbd\.conf:\d+: ArchiveJobs=yes has no effect "
                       r"in Drover: no archiving; PurgeJobAfter deletes old "
                       r"jobs", dbd)
    assert len(found) == 1, dbd[-3000:]
    assert "AuthType" not in dbd
    for cmd in (["sinfo"], ["sacct", "-n"]):
        assert c.run(*cmd, check=True).stderr == "", cmd
