# SPDX-License-Identifier: Apache-2.0
"""-k/--no-kill: a node of the job other than its batch host fails and
the job goes on with the others (Slurm's excise_node_from_job()); the
shrunk allocation is journaled, so a restarted controller keeps it."""

import signal

import pytest

from cluster import wait_until


def job(cluster, job_id):
    jobs = cluster.rpc("job_info", {"job_ids": [int(job_id)],
                                    "all_states": True})["jobs"]
    assert jobs, f"no job {job_id}"
    return jobs[0]


SCRIPT = ("while [ ! -e {go} ]; do sleep 1; done; "
          "srun -N2 -n2 printenv SLURMD_NODENAME | sort")


@pytest.mark.parametrize("cluster", [{"nodes": 3, "gpus_per_node": 0,
                                      "up_args": ["--conf-extra="
                                                  "SlurmdTimeout=8"]}],
                         indirect=True)
def test_failed_node_leaves_a_no_kill_job(cluster, tmp_path):
    go, out = tmp_path / "go", tmp_path / "out"
    j = cluster.sbatch("-N3", "-k", "-o", str(out),
                       "--wrap", SCRIPT.format(go=go), cwd=tmp_path)
    plain = cluster.sbatch("-N3", "--no-requeue", "--wrap", "sleep 300",
                           cwd=tmp_path)
    for k in (j, plain):
        cluster.wait_job_state(k, ["RUNNING"], timeout=30)
    assert job(cluster, j)["nodes"] == "node[01-03]"
    assert job(cluster, j)["no_kill"] is True
    cluster.kill("droverd", node="node03", sig=signal.SIGSTOP)
    try:
        wait_until(lambda: cluster.node_states()["node03"].startswith("DOWN")
                   and job(cluster, j)["nodes"] == "node[01-02]", 40,
                   "node03 DOWN and out of the job")
    finally:
        cluster.kill("droverd", node="node03", sig=signal.SIGCONT)
    assert job(cluster, j)["job_state"] == "RUNNING"
    assert cluster.wait_job_done(plain) == "NODE_FAIL"  # without -k
    log = cluster.log_file("droverctld").read_text()
    assert f"JobId={j}: node node03 failed; removed from the job" in log
    # durable: a restarted controller replays the removal
    cluster.kill("droverctld")
    cluster.start("droverctld")
    o = job(cluster, j)
    assert (o["job_state"], o["nodes"]) == ("RUNNING", "node[01-02]"), o
    go.touch()
    assert cluster.wait_job_done(j, timeout=60) == "COMPLETED"
    assert out.read_text() == "node01\nnode02\n"
    # accounting follows the controller: wait for the final record
    wait_until(lambda: cluster.run("sacct", "-X", "-n", "-P", "-j", j, "-o",
                                   "nodelist,state", check=True).stdout
               == "node[01-02]|COMPLETED\n", 30, f"job {j} in accounting")


def test_no_kill_values_and_steps(cluster, tmp_path):
    r = cluster.run("sbatch", "--no-kill=maybe", "--wrap", "true",
                    cwd=tmp_path)
    assert (r.returncode, r.stderr) == (
        255, "sbatch: error: Invalid --no-kill specification\n")
    j = cluster.sbatch("--no-kill=off", "-H", "--wrap", "true", cwd=tmp_path)
    assert job(cluster, j).get("no_kill", False) is False
    cluster.run("scancel", j, check=True)
    out = tmp_path / "step"
    j = cluster.sbatch("-o", str(out), "--wrap", "srun -k true; echo rc=$?",
                       cwd=tmp_path)
    assert cluster.wait_job_done(j) == "COMPLETED"
    assert ("srun: error: --no-kill is not supported by Drover (for a step "
            "inside an allocation)\nrc=1\n") == out.read_text()
