# SPDX-License-Identifier: Apache-2.0
"""srun -m / --distribution (and sbatch/salloc -m for the job's sruns):
which ranks run on which node, as Slurm 22.05 lays them out; the socket
level after ':' is accepted and passed on."""
import pytest

from cluster import run_job

# Each task prints: rank, its node, its local id, SLURM_DISTRIBUTION,
# SLURM_DIST_PLANESIZE (or -), SLURM_STEP_TASKS_PER_NODE.
SHOW = ("bash -c 'echo $SLURM_PROCID $SLURMD_NODENAME $SLURM_LOCALID "
        "$SLURM_DISTRIBUTION ${SLURM_DIST_PLANESIZE:--} "
        "$SLURM_STEP_TASKS_PER_NODE'")


def layout(out):
    """{node: [ranks in local id order]} and the set of the other fields
    from lines '[label: ]rank node localid dist planesize tpn'."""
    nodes, rest = {}, set()
    for line in out.splitlines():
        rank, node, local, *others = line.split(": ")[-1].split()
        nodes.setdefault(node, {})[int(local)] = int(rank)
        rest.add(tuple(others))
    return ({n: [r[k] for k in sorted(r)] for n, r in nodes.items()}, rest)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_cyclic_deals_ranks_round_robin_over_the_nodes(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          f"srun -N2 -n4 -m cyclic -l {SHOW}\n", "-N2", "-n4")
    got, rest = layout(out)
    assert got == {"node01": [0, 2], "node02": [1, 3]}, (out, err)
    assert rest == {("cyclic", "-", "2(x2)")}
    # -l labels each line with its own rank
    assert all(line.split(": ")[0] == line.split()[1]
               for line in out.splitlines()), out


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_block_and_the_default_put_consecutive_ranks_together(cluster,
                                                              tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          f"srun -N2 -n4 -m block {SHOW}\n"
                          f"srun -N2 -n4 {SHOW}\n", "-N2", "-n4")
    lines = out.splitlines()
    assert layout("\n".join(lines[:4]))[0] == {"node01": [0, 1],
                                              "node02": [2, 3]}, (out, err)
    got, rest = layout("\n".join(lines[4:]))
    assert got == {"node01": [0, 1], "node02": [2, 3]}
    # srun's default is block, named so for the tasks
    assert rest == {("block", "-", "2(x2)")}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_default_with_one_task_per_node_is_named_cyclic(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "srun -N2 -n2 printenv SLURM_DISTRIBUTION\n",
                          "-N2", "-n2")
    assert out == "cyclic\ncyclic\n", err


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_plane_deals_blocks_of_its_size(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          f"srun -N2 -n8 -m plane=2 {SHOW}\n", "-N2", "-n8")
    got, rest = layout(out)
    assert got == {"node01": [0, 1, 4, 5], "node02": [2, 3, 6, 7]}, (out, err)
    assert rest == {("plane", "2", "4(x2)")}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_plane_sets_the_per_node_counts_when_uneven(cluster, tmp_path):
    """-N2 -n6 -m plane=4 in a job with 4 CPUs on each node: a block of 4
    on the first node, the other 2 on the second (block: 3 and 3)."""
    _, out, err = run_job(cluster, tmp_path,
                          f"srun -N2 -n6 -m plane=4 {SHOW}\n", "-N2", "-n8")
    got, rest = layout(out)
    assert got == {"node01": [0, 1, 2, 3], "node02": [4, 5]}, (out, err)
    assert rest == {("plane", "4", "4,2")}


@pytest.mark.parametrize("cluster", [2], indirect=True)
@pytest.mark.parametrize("spec,name,want", [
    ("block:cyclic", "block:cyclic", {"node01": [0, 1], "node02": [2, 3]}),
    ("cyclic:block", "cyclic:block", {"node01": [0, 2], "node02": [1, 3]}),
    ("*:fcyclic", "block:fcyclic", {"node01": [0, 1], "node02": [2, 3]}),
    ("cyclic:*,Pack", "cyclic:cyclic,pack",
     {"node01": [0, 2], "node02": [1, 3]}),
])
def test_two_level_forms_lay_out_by_their_node_level(cluster, tmp_path, spec,
                                                     name, want):
    _, out, err = run_job(cluster, tmp_path,
                          f"srun -N2 -n4 --distribution='{spec}' {SHOW}\n",
                          "-N2", "-n4")
    got, rest = layout(out)
    assert got == want, (out, err)
    assert rest == {(name, "-", "2(x2)")}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sbatch_m_reaches_the_jobs_sruns(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "echo batch=$SLURM_DISTRIBUTION\n"
                          f"srun {SHOW}\n", "-N2", "-n4", "-m", "cyclic")
    lines = out.splitlines()
    assert lines[0] == "batch=cyclic", (out, err)
    got, rest = layout("\n".join(lines[1:]))
    assert got == {"node01": [0, 2], "node02": [1, 3]}
    assert rest == {("cyclic", "-", "2(x2)")}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sbatch_plane_passes_its_size(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "echo $SLURM_DISTRIBUTION $SLURM_DIST_PLANESIZE\n"
                          f"srun -n4 {SHOW}\n", "-N2", "-n4",
                          "--distribution=plane=1")
    lines = out.splitlines()
    assert lines[0] == "plane 1", (out, err)
    assert layout("\n".join(lines[1:]))[0] == {"node01": [0, 2],
                                              "node02": [1, 3]}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_salloc_m_sets_slurm_distribution(cluster):
    r = cluster.run("salloc", "-N2", "-n4", "-m", "cyclic:block",
                    "bash", "-c", f"echo $SLURM_DISTRIBUTION; srun {SHOW}",
                    timeout=60)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and lines[0] == "cyclic:block", r
    assert layout("\n".join(lines[1:]))[0] == {"node01": [0, 2],
                                              "node02": [1, 3]}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_cyclic_exit_lines_name_each_nodes_ranks(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "srun -N2 -n4 -m cyclic bash -c 'exit 3'; "
                          "echo rc=$?\n", "-N2", "-n4")
    assert out == "rc=3\n"
    assert sorted(err.splitlines()) == [
        "srun: error: node01: tasks 0,2: Exited with exit code 3",
        "srun: error: node02: tasks 1,3: Exited with exit code 3",
    ], err


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_cyclic_output_files_per_task(cluster, tmp_path):
    """-o with %t (rank) and %n (node index): each rank's file, named for
    the node that ran it."""
    run_job(cluster, tmp_path,
            "srun -N2 -n4 -m cyclic -o 'task.%t.%n' "
            "printenv SLURMD_NODENAME\n", "-N2", "-n4")
    files = {p.name: p.read_text() for p in tmp_path.glob("task.*")}
    assert files == {"task.0.0": "node01\n", "task.1.1": "node02\n",
                     "task.2.0": "node01\n", "task.3.1": "node02\n"}, files


@pytest.mark.parametrize("cluster", [1], indirect=True)
@pytest.mark.parametrize("cmd,spec,text", [
    ("srun", "bogus", "Invalid --distribution specification\n"),
    ("srun", "fcyclic", "Invalid --distribution specification\n"),
    ("srun", "block:cyclic:block:block",
     "Invalid --distribution specification\n"),
    ("srun", "plane", "Invalid plane size or size not specified\n"
                      "srun: error: Invalid --distribution specification\n"),
    ("sbatch", "plane=0", "Invalid plane size or size not specified\n"
                          "sbatch: error: Invalid --distribution "
                          "specification\n"),
    ("salloc", "cyclic:bogus", "Invalid --distribution specification\n"),
])
def test_bad_distribution_is_slurms_error(cluster, cmd, spec, text):
    args = [cmd, "-m", spec] + (["--wrap", "true"] if cmd == "sbatch"
                                else ["true"])
    r = cluster.run(*args, timeout=30)
    assert (r.returncode, r.stderr) == (255, f"{cmd}: error: {text}")


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_bad_slurm_distribution_variable_stops_srun(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "SLURM_DISTRIBUTION=diagonal srun true; "
                          "echo rc=$?\n")
    assert out == "rc=255\n"
    assert err == "srun: error: Invalid --distribution specification\n"


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_scontrol_show_step_names_the_distribution(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "srun -N2 -n4 -m cyclic:block bash -c '[ $SLURM_PROCID = 0 ] && "
        "scontrol show step $SLURM_JOB_ID.$SLURM_STEP_ID; true'\n"
        "srun -N2 -n4 bash -c '[ $SLURM_PROCID = 0 ] && "
        "scontrol show step $SLURM_JOB_ID.$SLURM_STEP_ID; true'\n",
        "-N2", "-n4")
    dists = [w for w in out.split() if w.startswith("Dist=")]
    assert dists == ["Dist=CBlock", "Dist=Block"], (out, err)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_arbitrary_follows_the_nodelist_in_order(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "srun -m arbitrary -w node02,node01,node02 "
                          f"{SHOW}\n", "-N2", "-n4")
    got, rest = layout(out)
    assert got == {"node01": [1], "node02": [0, 2]}, (out, err)
    # the step's nodes in allocation order: node01 runs 1, node02 2
    assert rest == {("arbitrary", "-", "1,2")}


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_slurm_hostfile_makes_srun_arbitrary(cluster, tmp_path):
    (tmp_path / "hosts").write_text("node02\nnode[01-02]\nnode01\n")
    _, out, err = run_job(cluster, tmp_path,
                          f"SLURM_HOSTFILE={tmp_path}/hosts srun {SHOW}\n"
                          f"SLURM_HOSTFILE={tmp_path}/hosts srun -n2 "
                          "printenv SLURMD_NODENAME\n", "-N2", "-n4")
    lines = out.splitlines()
    got, rest = layout("\n".join(lines[:4]))
    assert got == {"node01": [1, 3], "node02": [0, 2]}, (out, err)
    assert rest == {("arbitrary", "-", "2(x2)")}
    # -n2 takes the first two hosts of the file
    assert sorted(lines[4:]) == ["node01", "node02"], (out, err)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_arbitrary_needs_hosts_in_the_allocation(cluster, tmp_path):
    job, out, err = run_job(cluster, tmp_path,
                            "srun -m arbitrary true; echo rc=$?\n"
                            "srun -m arbitrary -w node01,node07 true; "
                            "echo rc=$?\n", "-N1", "-n2")
    assert out == "rc=1\nrc=1\n", err
    assert err == (
        "srun: error: With Arbitrary distribution you need to specify a "
        "nodelist or hostfile with the -w option\n"
        f"srun: error: Unable to create step for job {job}: Requested node "
        "configuration is not available\n")
