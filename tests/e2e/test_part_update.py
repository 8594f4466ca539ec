# SPDX-License-Identifier: Apache-2.0
"""scontrol update|create|delete partition (issue 13), as Slurm 22.05 prints
and does them (slurm-golden/scontrol-update-partition-*,
scontrol-show-partition-maxtime60): MaxTime changed and shown, enforced on
new submissions and judged again for pending jobs; State=DOWN holds pending
jobs with PartitionDown until UP, DRAIN and INACTIVE refuse submissions;
a partition created with Nodes= takes jobs and is deleted only once no job
in it is left; Default=YES moves the default; an ordinary user changes
nothing; every change survives a kill -9 of the controller (the journal)
and a restart (the snapshot)."""
import re
import signal
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent.parent / "unit" / "data" / \
    "slurm-golden"

# The golden cluster's shape: 4 nodes of 32 CPUs, 4000 MB and 8 GPUs, one
# partition gpu (Default=YES, MaxTime=INFINITE).
GOLDEN_SHAPE = {"nodes": 4, "gpus_per_node": 8,
                "up_args": ["--cpus-per-node=32", "--mem=4000",
                            "--partition=gpu"]}
TWO = {"nodes": 2, "gpus_per_node": 0, "up_args": ["--cpus-per-node=2"]}
UNAVAILABLE = ("sbatch: error: Batch job submission failed: Required "
               "partition not available (inactive or drain)\n")


def sq(c, job, fmt="%t|%r"):
    return c.run("squeue", "-h", "-j", job, "-o", fmt,
                 check=True).stdout.strip()


def show_part(c, name, user=None):
    return c.run("scontrol", "show", "partition", name, user=user,
                 check=True).stdout


def field(c, name, key):
    m = re.search(rf"\b{key}=(\S*)", show_part(c, name))
    return m.group(1) if m else None


def triple(r):
    return (r.returncode, r.stdout, r.stderr)


@pytest.mark.parametrize("cluster", [GOLDEN_SHAPE], indirect=True)
def test_maxtime_update_as_slurm_prints_it(cluster, make_user):
    c = cluster
    user = make_user("drpart1")
    before = show_part(c, "gpu")
    # scontrol-update-partition-perm-denied: an ordinary user
    r = c.run("scontrol", "update", "PartitionName=gpu", "MaxTime=60",
              user=user)
    assert triple(r) == (1, "", "slurm_update error: Invalid user id\n")
    assert show_part(c, "gpu") == before
    # scontrol-update-partition-maxtime: root, no output
    r = c.run("scontrol", "update", "PartitionName=gpu", "MaxTime=60")
    assert triple(r) == (0, "", "")
    # scontrol-show-partition-maxtime60, byte for byte but the node names
    golden = (GOLDEN / "scontrol-show-partition-maxtime60.stdout").read_text()
    out = show_part(c, "gpu", user=user)
    assert out.replace("Nodes=node[01-04]", "Nodes=n[1-4]") == golden, out
    sinfo = c.run("sinfo", "-h", "-o", "%P %l", check=True).stdout
    assert sinfo == "gpu* 1:00:00\n"
    # enforced on new submissions as MaxTime= in slurm.conf is
    # (EnforcePartLimits=NO: the job pends with PartitionTimeLimit)
    long = c.sbatch("-t", "90", "-o", "/dev/null", "--wrap", "sleep 1",
                    user=user)
    c.wait_until(lambda: sq(c, long) == "PD|PartitionTimeLimit", 15,
                 "the 90-minute job to pend with PartitionTimeLimit")
    short = c.sbatch("-t", "30", "-o", "/dev/null", "--wrap", "true",
                     user=user)
    c.wait_job_done(short, timeout=30)
    # scontrol-update-partition-maxtime-infinite: the pending job fits now
    r = c.run("scontrol", "update", "PartitionName=gpu", "MaxTime=INFINITE")
    assert triple(r) == (0, "", "")
    assert field(c, "gpu", "MaxTime") == "UNLIMITED"
    c.wait_job_done(long, timeout=30)


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_state_down_holds_pending_jobs_until_up(cluster, make_user):
    c = cluster
    user = make_user("drpart1")
    running = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user=user)
    c.wait_job_state(running, "RUNNING", timeout=30)
    r = c.run("scontrol", "update", "PartitionName=debug", "State=DOWN")
    assert triple(r) == (0, "", "")
    assert field(c, "debug", "State") == "DOWN"
    assert c.run("sinfo", "-h", "-o", "%P %a",
                 check=True).stdout == "debug* down\n"
    # new jobs are accepted and wait; the running one goes on
    held = c.sbatch("-o", "/dev/null", "--wrap", "true", user=user)
    c.wait_until(lambda: sq(c, held) == "PD|PartitionDown", 15,
                 "the job to pend with PartitionDown")
    assert c.job_state(running) == "RUNNING"
    # INACTIVE and DRAIN refuse submissions with Slurm's text
    for state, reason, avail in (("INACTIVE", "PartitionInactive", "inact"),
                                 ("DRAIN", None, "drain")):
        c.run("scontrol", "update", "PartitionName=debug", f"State={state}",
              check=True)
        assert field(c, "debug", "State") == state
        assert c.run("sinfo", "-h", "-o", "%P %a",
                     check=True).stdout == f"debug* {avail}\n"
        r = c.run("sbatch", "-o", "/dev/null", "--wrap", "true", user=user)
        assert (r.returncode, r.stderr) == (1, UNAVAILABLE)
        if reason:
            c.wait_until(lambda: sq(c, held) == f"PD|{reason}", 15,
                         f"the job to pend with {reason}")
    # DRAIN runs what was queued; so does UP
    c.wait_job_done(held, timeout=30)
    c.run("scontrol", "update", "PartitionName=debug", "State=UP",
          check=True)
    job = c.sbatch("-o", "/dev/null", "--wrap", "true", user=user)
    c.wait_job_done(job, timeout=30)
    assert c.job_state(running) == "RUNNING"
    c.run("scancel", running, check=True)


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_create_submit_delete_and_default(cluster, make_user):
    c = cluster
    user = make_user("drpart1")
    r = c.run("scontrol", "create", "partition", "PartitionName=new",
              "Nodes=node02", "MaxTime=30")
    assert triple(r) == (0, "", "")
    out = show_part(c, "new")
    assert "   Nodes=node02\n" in out, out
    assert " MaxTime=00:30:00 " in out and " Default=NO " in out, out
    assert "State=UP TotalCPUs=2 TotalNodes=1 " in out, out
    # a name taken: Slurm's error
    r = c.run("scontrol", "create", "PartitionName=new", "Nodes=node01")
    assert triple(r) == (1, "", "Error creating the partition: Invalid "
                                "partition name specified\n")
    job = c.sbatch("-p", "new", "-o", "/dev/null", "--wrap", "sleep 300",
                   user=user)
    c.wait_job_state(job, "RUNNING", timeout=30)
    assert sq(c, job, "%P|%N") == "new|node02"
    # not while a job is in it
    r = c.run("scontrol", "delete", "PartitionName=new")
    assert triple(r) == (1, "", "delete_partition PartitionName=new: "
                                "Partition is in use\n")
    c.run("scancel", job, check=True)
    c.wait_job_done(job, timeout=30)
    r = c.run("scontrol", "delete", "PartitionName=new")
    assert triple(r) == (0, "", "")
    r = c.run("scontrol", "delete", "partition", "new")
    assert triple(r) == (1, "", "delete_partition partition: Invalid "
                                "partition name specified\n")
    r = c.run("sbatch", "-p", "new", "--wrap", "true", user=user)
    assert (r.returncode, r.stderr) == (  # slurm-golden/sbatch-bad-partition
        1, "sbatch: error: invalid partition specified: new\n"
           "sbatch: error: Batch job submission failed: Invalid partition "
           "name specified\n")
    r = c.run("scontrol", "update", "PartitionName=new", "MaxTime=5")
    assert triple(r) == (1, "", "slurm_update error: Invalid partition name "
                                "specified\n")
    # Default=YES moves the default: sinfo's * and jobs without -p
    c.run("scontrol", "create", "PartitionName=other", "Nodes=ALL",
          "Default=YES", check=True)
    assert c.run("sinfo", "-h", "-o", "%P", check=True).stdout == \
        "debug\nother*\n"
    assert field(c, "debug", "Default") == "NO"
    job = c.sbatch("-o", "/dev/null", "--wrap", "true", user=user)
    assert c.job_field(job, "Partition") == "other"
    c.run("scontrol", "update", "PartitionName=debug", "Default=YES",
          check=True)
    assert c.run("sinfo", "-h", "-o", "%P", check=True).stdout == \
        "debug*\nother\n"


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_an_ordinary_user_changes_nothing(cluster, make_user):
    c = cluster
    user = make_user("drpart1")
    before = c.run("scontrol", "show", "partition", check=True).stdout
    for args, err in (
            (("update", "PartitionName=debug", "State=DOWN"),
             "slurm_update error: Invalid user id\n"),
            (("create", "PartitionName=mine", "Nodes=ALL"),
             "Error creating the partition: Invalid user id\n"),
            (("delete", "PartitionName=debug"),
             "delete_partition PartitionName=debug: Invalid user id\n")):
        r = c.run("scontrol", *args, user=user)
        assert triple(r) == (1, "", err), args
    assert c.run("scontrol", "show", "partition",
                 check=True).stdout == before


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_scontrol_refuses_what_it_cannot_set(cluster):
    c = cluster
    for args, err in (
            (("PartitionName=debug",),
             "scontrol: error: No changes specified\n"),
            (("PartitionName=debug", "Colour=blue"),
             "scontrol: error: Update of this parameter is not supported: "
             "Colour=blue\n\nscontrol: error: Request aborted\n"),
            (("PartitionName=debug", "State=SIDEWAYS"),
             "scontrol: error: Invalid input: State=SIDEWAYS\n"
             "scontrol: error: Acceptable State values are UP, DOWN, DRAIN "
             "and INACTIVE\n"),
            (("PartitionName=debug", "MaxTime=soon"),
             "scontrol: error: Invalid input MaxTime=soon\n"),
            (("PartitionName=debug", "Hidden=maybe"),
             "scontrol: error: Invalid input: Hidden=maybe\n"
             "scontrol: error: Acceptable Hidden values are YES and NO\n")):
        r = c.run("scontrol", "update", *args)
        assert triple(r) == (1, "", err), args
    r = c.run("scontrol", "create", "partition", "MaxTime=5")
    assert triple(r) == (1, "", "scontrol: error: PartitionName must be "
                                "given.\n")
    r = c.run("scontrol", "create", "PartitionName=default")
    assert triple(r) == (1, "", 'scontrol: error: PartitionName cannot be '
                                '"DEFAULT".\n')
    # a keyword Slurm has and Drover's partitions do not model: named
    r = c.run("scontrol", "update", "PartitionName=debug", "LLN=YES")
    assert r.returncode == 1
    assert r.stderr.startswith("scontrol: error: Update of this parameter is "
                               "not supported by Drover: LLN=YES: "), r.stderr
    r = c.run("scontrol", "update", "PartitionName=debug", "Nodes=node09")
    assert triple(r) == (1, "", "slurm_update error: Invalid node name "
                                "specified\n")
    # Slurm's abbreviations and prefixes
    c.run("scontrol", "update", "PartitionName=debug", "MaxT=45", "Hid=y",
          "St=d", "OverS=f:2", check=True)
    out = c.run("scontrol", "-a", "show", "partition", "debug",
                check=True).stdout
    assert " MaxTime=00:45:00 " in out and " Hidden=YES" in out, out
    assert "State=DOWN " in out and " OverSubscribe=FORCE:2\n" in out, out
    r = c.run("scontrol", "update", "bogus=1")
    assert triple(r) == (1, "", 'No valid entity in update command\nInput '
                                'line must include "NodeName", '
                                '"PartitionName", "Reservation", or '
                                '"JobId"\n')


@pytest.mark.parametrize("cluster", [TWO], indirect=True)
def test_changes_survive_controller_restarts(cluster, make_user):
    c = cluster
    user = make_user("drpart1")
    c.run("scontrol", "update", "PartitionName=debug", "MaxTime=45",
          "State=DOWN", check=True)
    c.run("scontrol", "create", "PartitionName=extra", "Nodes=node01",
          "PriorityTier=5", "Default=YES", check=True)
    c.run("scontrol", "create", "PartitionName=gone", "Nodes=node02",
          check=True)
    c.run("scontrol", "delete", "PartitionName=gone", check=True)
    held = c.sbatch("-p", "debug", "-o", "/dev/null", "--wrap", "true",
                    user=user)
    c.wait_until(lambda: sq(c, held) == "PD|PartitionDown", 15,
                 "the job to pend with PartitionDown")
    want = c.run("scontrol", "show", "partition", check=True).stdout
    assert "PartitionName=extra" in want and "gone" not in want
    # kill -9: the journal's events
    c.kill("droverctld")
    c.start("droverctld")
    assert c.run("scontrol", "show", "partition", check=True).stdout == want
    # a clean stop writes a snapshot: the merged changes
    c.kill("droverctld", signal.SIGTERM)
    c.wait_until(lambda: c.pid("droverctld") is None, 30,
                 "droverctld to stop")
    c.start("droverctld")
    assert c.run("scontrol", "show", "partition", check=True).stdout == want
    assert sq(c, held) == "PD|PartitionDown"
    c.run("scontrol", "update", "PartitionName=debug", "State=UP",
          check=True)
    c.wait_job_done(held, timeout=30)
