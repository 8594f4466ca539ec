# SPDX-License-Identifier: Apache-2.0
"""Output options, exactly: --version, scontrol show config, --json,
squeue --start, finished-job visibility and MinJobAge, format variables."""
import json
import re
import time
from pathlib import Path

import pytest

GOLDEN = Path("/work/shared/slurm-golden")
COMMANDS = ("sbatch", "squeue", "sinfo", "scontrol", "scancel")


def test_version_on_every_command(cluster):
    for cmd in COMMANDS:
        r = cluster.run(cmd, "--version", check=True)
        lines = r.stdout.splitlines()
        assert lines[0] == "slurm 22.05.8", (cmd, r.stdout)
        assert re.fullmatch(r"drover \d+\.\d+\.\d+", lines[1]), (cmd, r.stdout)
    r = cluster.run(cluster.drover, "--version", check=True)
    assert r.stdout.splitlines()[0] == "slurm 22.05.8"


def config_lines(text):
    return [l for l in text.splitlines()[1:] if l and not l.startswith("Slurmctld(")]


@pytest.mark.parametrize("cluster", [{"nodes": 1, "up_args": ["--conf-extra=MinJobAge=7"]}],
                         indirect=True)
def test_show_config_is_the_controllers_in_slurms_layout(cluster):
    r = cluster.run("scontrol", "show", "config", check=True)
    assert re.match(r"Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n", r.stdout)
    assert r.stdout.endswith("\nSlurmctld(primary) at localhost is UP\n")
    conf = dict(re.split(r"\s*= ?", l, maxsplit=1) for l in config_lines(r.stdout))
    assert conf["MinJobAge"] == "7 sec"
    assert conf["KillWait"] == "5 sec"
    assert conf["SlurmctldPort"] == str(cluster.ctld_port)
    assert conf["ClusterName"] == "drover"
    assert conf["SLURM_VERSION"] == "22.05.8"
    for line in config_lines(r.stdout):
        key = line.split("=")[0].rstrip()
        assert line.startswith(f"{key:<23} = "), line
    golden = GOLDEN / "scontrol-show-config-full" / "stdout"
    if golden.exists():
        keys = [l.split("=")[0].rstrip() for l in config_lines(golden.read_text())]
        assert [l.split("=")[0].rstrip() for l in config_lines(r.stdout)] == keys


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_finished_job_hidden_by_squeue_kept_by_scontrol(cluster):
    job = cluster.sbatch("--wrap", "true")
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)
    r = cluster.run("squeue", "-j", job)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines() == [
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)"]
    r = cluster.run("squeue", "-j", job, "-t", "all", "-h", "-o", "%i %T")
    assert r.stdout == f"{job} COMPLETED\n"
    assert cluster.job_field(job, "JobState") == "COMPLETED"


@pytest.mark.parametrize("cluster", [{"nodes": 1, "up_args": ["--conf-extra=MinJobAge=3"]}],
                         indirect=True)
def test_finished_job_gone_after_min_job_age(cluster):
    job = cluster.sbatch("--wrap", "true")
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)

    def gone():
        return cluster.run("scontrol", "show", "job", job).returncode == 1
    cluster.wait_until(gone, timeout=60, what="the job to be purged")
    r = cluster.run("scontrol", "show", "job", job)
    assert r.stderr == "slurm_load_jobs error: Invalid job id specified\n"
    r = cluster.run("squeue", "-j", job)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "slurm_load_jobs error: Invalid job id specified\n"


@pytest.mark.parametrize("cluster", [{"nodes": 1, "up_args": ["--conf-extra=MinJobAge=3"]}],
                         indirect=True)
def test_jobs_purged_in_the_order_they_ended(cluster):
    """The purge takes ended jobs by end time, not by id: a job that ended
    later is kept later."""
    first = cluster.sbatch("--wrap", "sleep 6")
    second = cluster.sbatch("--wrap", "true")
    cluster.wait_job_state(second, ["COMPLETED"], timeout=30)

    def gone(job):
        return lambda: cluster.run("scontrol", "show", "job", job).returncode == 1
    cluster.wait_until(gone(second), timeout=60, what="the job that ended first to be purged")
    assert cluster.job_field(first, "JobState") in ("RUNNING", "COMPLETED")
    cluster.wait_until(gone(first), timeout=60, what="the job that ended last to be purged")


@pytest.mark.parametrize("cluster", [{"nodes": 1, "up_args": ["--conf-extra=MinJobAge=0"]}],
                         indirect=True)
def test_min_job_age_zero_purges_nothing(cluster):
    """MinJobAge=0: finished jobs are never purged, as Slurm's."""
    job = cluster.sbatch("--wrap", "true")
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)
    time.sleep(3)  # the purge runs every second
    assert cluster.job_field(job, "JobState") == "COMPLETED"
    assert cluster.run("squeue", "-j", job, "-t", "all", "-h", "-o", "%i %T").stdout \
        == f"{job} COMPLETED\n"


@pytest.mark.parametrize("cluster", [{"nodes": 2, "up_args": ["--conf-extra=SchedulerParameters=drover_backfill=slurm"]}],
                         indirect=True)
def test_squeue_start_shows_the_planned_start(cluster):
    """Under Slurm's backfill, every waiting job has a planned start."""
    first = cluster.sbatch("-N2", "--exclusive", "-t", "10", "--wrap", "sleep 60")
    cluster.wait_job_state(first, ["RUNNING"], timeout=30)
    second = cluster.sbatch("-N2", "--exclusive", "-t", "10", "--wrap", "true")
    cluster.wait_until(lambda: cluster.job_field(second, "Reason") == "Resources",
                       timeout=30, what="Reason=Resources")

    def planned():
        r = cluster.run("squeue", "--start", check=True)
        return r.stdout
    cluster.wait_until(lambda: "node[01-02]" in planned(), timeout=30,
                       what="a planned start")
    lines = planned().splitlines()
    assert lines[0] == ("             JOBID PARTITION     NAME     USER ST          "
                        "START_TIME  NODES SCHEDNODES           NODELIST(REASON)")
    assert re.fullmatch(rf"\s+{second}\s+debug\s+wrap\s+\S+ PD "
                        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\s+2 node\[01-02\]\s+\(Resources\)",
                        lines[1]), lines
    start = cluster.job_field(second, "StartTime")
    assert start != "Unknown" and start in lines[1]
    cluster.run("scancel", first, second, check=True)


@pytest.mark.parametrize(
    "cluster",
    [{"nodes": 2,
      "up_args": ["--conf-extra=SchedulerParameters=bf_max_job_test=1"]}],
    indirect=True)
def test_sinfo_shows_a_node_planned_for_a_waiting_job(cluster):
    """Slurm's PLANNED: an idle node the scheduler keeps for a waiting job's
    planned start shows as planned (plnd), not idle.  Under Drover's
    default backfill, with the first job of the queue leading
    (bf_max_job_test=1)."""
    first = cluster.sbatch("-w", "node01", "--exclusive", "-t", "10",
                           "--wrap", "sleep 60")
    cluster.wait_job_state(first, ["RUNNING"], timeout=30)
    second = cluster.sbatch("-N2", "--exclusive", "-t", "10", "--wrap", "true")

    def state(fmt, node):
        return cluster.run("sinfo", "-h", "-n", node, "-o", fmt,
                           check=True).stdout.strip()
    cluster.wait_until(lambda: state("%T", "node02") == "planned", 30,
                       "node02 planned for the waiting job")
    assert state("%t", "node02") == "plnd"
    assert state("%t", "node01") == "alloc"
    assert "+PLANNED" in cluster.run("scontrol", "show", "node", "node02",
                                     check=True).stdout
    cluster.run("scancel", first, second, check=True)
    cluster.wait_until(lambda: state("%T", "node02") == "idle", 30,
                       "node02 idle again")


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_json_shapes(cluster):
    job = cluster.sbatch("-t", "5", "--wrap", "sleep 30")
    cluster.wait_job_state(job, ["RUNNING"], timeout=30)
    for args, key in ((["squeue", "--json"], "jobs"),
                      (["sinfo", "--json"], "nodes"),
                      (["scontrol", "--json", "show", "job", job], "jobs"),
                      (["scontrol", "--json", "show", "node"], "nodes"),
                      (["scontrol", "--json", "show", "partition"], "partitions")):
        r = cluster.run(*args, check=True)
        d = json.loads(r.stdout)
        assert list(d)[:2] == ["meta", "errors"], args
        assert d["meta"]["plugin"]["type"] == "openapi/v0.0.38"
        assert d["meta"]["Slurm"]["release"] == "22.05.8"
        assert d["errors"] == []
        assert d[key], args
    d = json.loads(cluster.run("squeue", "--json", check=True).stdout)
    j = d["jobs"][0]
    assert (j["job_id"], j["job_state"], j["time_limit"], j["name"]) == \
        (int(job), "RUNNING", 5, "wrap")
    d = json.loads(cluster.run("sinfo", "--json", check=True).stdout)
    assert d["nodes"][0]["name"] == "node01" and d["nodes"][0]["state"] == "mixed"
    assert d["partitions"][0]["name"] == "debug"
    cluster.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_squeue_options_and_format_variables(cluster):
    a = cluster.sbatch("-J", "bbb", "-t", "5", "--exclusive", "--wrap", "sleep 30")
    b = cluster.sbatch("-J", "aaa", "-t", "5", "--exclusive", "--wrap", "sleep 30")
    for j in (a, b):
        cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    r = cluster.run("squeue", "-h", "-S", "j", "-o", "%j", check=True)
    assert r.stdout == "aaa\nbbb\n"
    r = cluster.run("squeue", "-h", "-S", "-j", "-o", "%j", check=True)
    assert r.stdout == "bbb\naaa\n"
    r = cluster.run("squeue", "-h", "-o", "%i", env={"SQUEUE_FORMAT": "%j"},
                    check=True)
    assert sorted(r.stdout.split()) == sorted([a, b])
    r = cluster.run("squeue", "-h", "-S", "j", env={"SQUEUE_FORMAT": "%j"},
                    check=True)
    assert r.stdout == "aaa\nbbb\n"
    r = cluster.run("squeue", "-h", "-S", "j",
                    env={"SQUEUE_FORMAT2": "name:6,state:8"}, check=True)
    assert r.stdout == "aaa   RUNNING \nbbb   RUNNING \n"
    node_b = cluster.run("squeue", "-h", "-j", b, "-o", "%N", check=True).stdout.strip()
    assert node_b in ("node01", "node02")
    r = cluster.run("squeue", "-h", "-w", node_b, "-o", "%j", check=True)
    assert r.stdout == "aaa\n"
    r = cluster.run("squeue", "--me", "-h", "-o", "%u", check=True)
    assert r.stdout.split() == [cluster.user, cluster.user]
    r = cluster.run("squeue", "-l", check=True)
    lines = r.stdout.splitlines()
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", lines[0])
    assert lines[1].split() == ["JOBID", "PARTITION", "NAME", "USER", "STATE",
                                "TIME", "TIME_LIMI", "NODES", "NODELIST(REASON)"]
    r = cluster.run("sinfo", "-h", env={"SINFO_FORMAT": "%P %D"}, check=True)
    assert r.stdout == "debug* 2\n"
    r = cluster.run("sinfo", "-N", "-h", "-o", "%N %t", check=True)
    assert r.stdout == "node01 alloc\nnode02 alloc\n"
    cluster.run("scancel", a, b, check=True)
