# SPDX-License-Identifier: Apache-2.0
"""EnforcePartLimits (issue 11): with ALL (or ANY) a job over its
partition's MaxTime or MaxNodes is refused at submission with Slurm's
message, where the default NO accepts it and lets it pend with
PartitionTimeLimit / PartitionNodeLimit."""
import pytest

SMALL = "PartitionName=small Nodes=ALL MaxTime=10:00 MaxNodes=1 State=UP"


def submit(c, *args):
    return c.run("sbatch", "-o", "/dev/null", *args, "--wrap", "true")


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra=" + SMALL,
                                                  "--conf-extra="
                                                  "EnforcePartLimits=ALL"]}],
                         indirect=True)
def test_enforce_part_limits_refuses_at_submission(cluster):
    c = cluster
    assert c.show_config("EnforcePartLimits") == "ALL"
    r = submit(c, "-p", "small", "-t", "20")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "sbatch: error: Batch job submission failed: Requested time "
               "limit is invalid (missing or exceeds some limit)\n")
    r = submit(c, "-p", "small", "-N", "2")
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: Batch job submission failed: Node count "
           "specification invalid\n")
    job = c.sbatch("-p", "small", "-t", "5", "-o", "/dev/null", "--wrap",
                   "true")
    c.wait_job_done(job, timeout=30)


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra=" + SMALL,
                                                  "--conf-extra="
                                                  "EnforcePartLimits=ALL"]}],
                         indirect=True)
def test_enforce_part_limits_refuses_an_update_over_them(cluster, make_user):
    """scontrol update as the owner: over MaxTime or MaxNodes is refused
    with the submission's texts and changes nothing; an operator may."""
    c = cluster
    user = make_user("drplim1")
    job = c.sbatch("-H", "-p", "small", "-t", "5", "-o", "/dev/null",
                   "--wrap", "true", user=user)
    for kv, err in (("TimeLimit=20", "Requested time limit is invalid "
                     "(missing or exceeds some limit)"),
                    ("TimeLimit=UNLIMITED", "Requested time limit is invalid "
                     "(missing or exceeds some limit)"),
                    ("NumNodes=2", "Node count specification invalid")):
        r = c.run("scontrol", "update", f"JobId={job}", kv, user=user)
        assert (r.returncode, r.stderr) == (1, f"{err} for job {job}\n"), kv
    assert c.job_field(job, "TimeLimit") == "00:05:00"
    c.run("scontrol", "update", f"JobId={job}", "TimeLimit=8", user=user,
          check=True)
    assert c.job_field(job, "TimeLimit") == "00:08:00"
    c.run("scontrol", "update", f"JobId={job}", "TimeLimit=20", check=True)
    assert c.job_field(job, "TimeLimit") == "00:20:00"
    c.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra=" + SMALL]}],
                         indirect=True)
def test_default_no_lets_the_job_pend(cluster):
    c = cluster
    assert c.show_config("EnforcePartLimits") == "NO"
    job = c.sbatch("-p", "small", "-t", "20", "-o", "/dev/null", "--wrap",
                   "true")
    r = c.run("squeue", "-h", "-j", job, "-o", "%t %r", check=True)
    assert r.stdout.strip() == "PD PartitionTimeLimit"
    c.run("scancel", job, check=True)
