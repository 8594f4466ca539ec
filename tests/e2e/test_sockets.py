# SPDX-License-Identifier: Apache-2.0
"""-B S[:C[:T]], --sockets-per-node, --cores-per-socket, --threads-per-core
(Slurm's node filters: only nodes configured with at least that many
sockets, cores per socket and threads per core) and --gpus-per-socket
(N GPUs on each of the --sockets-per-node sockets), with scontrol show
job's Socks/Node=, ReqB:S:C:T= and TresPerSocket= and squeue's %z."""

import pytest

from cluster import wait_until

# node01: 1 socket x 8 cores; node02: 2 sockets x 4 cores (drover up's
# shape for 8 CPUs); one thread per core; 4 GPUs each.
TOPO = {"nodes": 2, "gpus_per_node": 4, "up_args": ["--cpus-per-node=8"]}
REFUSED = ("sbatch: error: Batch job submission failed: Requested node "
           "configuration is not available\n")


def one_socket_node01(cluster):
    cluster.set_node_keys(["Sockets=1 CoresPerSocket=8", ""])


@pytest.mark.parametrize("cluster", [TOPO], indirect=True)
def test_extra_node_info_filters_nodes_and_shows_in_listings(cluster,
                                                             tmp_path):
    one_socket_node01(cluster)
    two = cluster.sbatch("-B", "2:4", "--wrap", "sleep 60", cwd=tmp_path)
    wide = cluster.sbatch("--cores-per-socket=8", "--threads-per-core=1",
                          "--wrap", "sleep 60", cwd=tmp_path)
    plain = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    for j in (two, wide):
        cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    show = cluster.show_job(two)
    assert show["NodeList"] == "node02"
    assert (show["ReqB:S:C:T"], show["Socks/Node"]) == ("0:0:4:*", "2")
    show = cluster.show_job(wide)
    assert show["NodeList"] == "node01"
    assert (show["ReqB:S:C:T"], show["Socks/Node"]) == ("0:0:8:1", "*")
    show = cluster.show_job(plain)
    assert (show["ReqB:S:C:T"], show["Socks/Node"]) == ("0:0:*:*", "*")
    r = cluster.run("squeue", "-h", "-j", f"{two},{wide},{plain}", "-o",
                    "%i %z %H %I %J", "-S", "i", check=True)
    assert r.stdout == (f"{two} 2:4:* 2 4 *\n{wide} *:8:1 * 8 1\n"
                        f"{plain} *:*:* * * *\n")
    r = cluster.run("squeue", "-h", "-j", two, "-O", "SCT", check=True)
    assert r.stdout.strip() == "2:4:*"
    # no node has 4 sockets, 16 cores or 2 threads: refused at submission
    for opts in (["-B", "4"], ["-B", "*:16"], ["--threads-per-core=2"],
                 ["--sockets-per-node=2", "--cores-per-socket=8"]):
        r = cluster.run("sbatch", *opts, "--wrap", "true", cwd=tmp_path)
        assert (r.returncode, r.stderr) == (1, REFUSED), opts
    r = cluster.run("srun", "-B", "4", "true", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("srun: error: Unable to allocate resources: "
                        "Requested node configuration is not available\n")
    r = cluster.run("sbatch", "-B", "x", "--wrap", "true", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (
        1, 'sbatch: error: Invalid numeric value "x" for first arg of -B.\n')
    for j in (two, wide, plain):
        cluster.run("scancel", j, check=True)


@pytest.mark.parametrize("cluster", [TOPO], indirect=True)
def test_a_steps_extra_node_info_picks_the_jobs_nodes(cluster, tmp_path):
    one_socket_node01(cluster)
    out = tmp_path / "steps"
    j = cluster.sbatch(
        "-N2", "-o", str(out), "--wrap",
        "srun -B 2 printenv SLURMD_NODENAME; echo rc=$?; "
        "srun --sockets-per-node=4 true; echo rc=$?", cwd=tmp_path)
    assert cluster.wait_job_done(j) == "COMPLETED"
    text = out.read_text()
    assert text.startswith("node02\nrc=0\n"), text
    assert "Requested node configuration is not available" in text
    assert text.endswith("rc=1\n"), text


@pytest.mark.parametrize("cluster", [TOPO], indirect=True)
def test_gpus_per_socket_gives_that_many_per_requested_socket(cluster,
                                                              tmp_path):
    out = tmp_path / "gpus"
    j = cluster.sbatch("--gpus-per-socket=1", "--sockets-per-node=2",
                       "-o", str(out), "--wrap",
                       "echo GPUS=$SLURM_JOB_GPUS; sleep 30", cwd=tmp_path)
    cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    show = cluster.show_job(j)
    assert show["TresPerSocket"] == "gres:gpu:1"
    assert "TresPerNode" not in show
    assert "gres/gpu=2" in show["TRES"]
    assert show["Socks/Node"] == "2"

    def gpus_line():
        return out.exists() and out.read_text().strip()
    line = wait_until(gpus_line, 30, "the job's GPUS= line")
    assert len(line.removeprefix("GPUS=").split(",")) == 2, line
    cluster.run("scancel", j, check=True)
    r = cluster.run("sbatch", "--gpus-per-socket=1", "--wrap", "true",
                    cwd=tmp_path)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: --gpus-per-socket option requires "
        "--sockets-per-node specification\n")
    # 3 per socket x 2 sockets: no node has 6 GPUs
    r = cluster.run("sbatch", "--gpus-per-socket=3", "-B", "2", "--wrap",
                    "true", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, REFUSED)
