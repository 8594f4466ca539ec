# SPDX-License-Identifier: Apache-2.0
"""srun inside a batch job: tasks, their environment and output, exit codes,
step ids (issue 4, first slice)."""
import re
from pathlib import Path

import pytest

from cluster import run_job


def test_srun_labels_four_tasks_on_one_node(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "srun -n4 -l bash -c 'echo $SLURM_PROCID $SLURM_LOCALID "
        "$SLURM_STEP_NUM_TASKS $SLURM_STEP_ID $SLURM_JOB_ID'\n",
        "-n4", "-N1")
    lines = sorted(out.splitlines())
    job = lines[0].split()[-1]
    assert lines == [f"{r}: {r} {r} 4 0 {job}" for r in range(4)], (out, err)


def test_srun_spreads_tasks_over_two_nodes_in_blocks(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "srun -N2 -n4 bash -c 'echo $SLURM_PROCID $SLURM_NODEID "
        "$SLURM_LOCALID $SLURMD_NODENAME $SLURM_STEP_NUM_NODES "
        "$SLURM_STEP_NODELIST $SLURM_STEP_TASKS_PER_NODE'\n",
        "-N2", "-n4")
    got = sorted(out.splitlines())
    assert got == [
        "0 0 0 node01 2 node[01-02] 2(x2)",
        "1 0 1 node01 2 node[01-02] 2(x2)",
        "2 1 0 node02 2 node[01-02] 2(x2)",
        "3 1 1 node02 2 node[01-02] 2(x2)",
    ], (out, err)


def test_srun_default_is_the_jobs_tasks_and_stderr_comes_back(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "srun bash -c 'echo out$SLURM_PROCID; "
                          "echo err$SLURM_PROCID >&2'\n", "-n2")
    assert sorted(out.splitlines()) == ["out0", "out1"]
    assert sorted(err.splitlines()) == ["err0", "err1"]


def test_srun_exit_code_fails_the_job(cluster, tmp_path):
    job_id, out, err = run_job(
        cluster, tmp_path,
        "srun -n2 bash -c '[ $SLURM_PROCID = 1 ] && exit 3; exit 0'\n",
        "-n2", states=("FAILED",))
    assert err == "srun: error: node01: task 1: Exited with exit code 3\n"
    assert cluster.job_field(job_id, "ExitCode") == "3:0"


def test_srun_all_tasks_failing_use_a_task_range(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "srun -n2 bash -c 'exit 3'; echo rc=$?\n", "-n2")
    assert out == "rc=3\n"
    assert err == "srun: error: node01: tasks 0-1: Exited with exit code 3\n"


def test_sequential_steps_get_ids_0_and_1(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "srun -n1 printenv SLURM_STEP_ID\n"
                          "srun -n1 printenv SLURM_STEP_ID\n")
    assert out == "0\n1\n", err


def test_cancelling_a_job_ends_its_step_tasks_on_every_node(cluster, tmp_path):
    job_id = cluster.sbatch("-N2", "-n2", "-o", "/dev/null", "--wrap",
                            "srun sleep 300", cwd=tmp_path)
    cluster.wait_until(lambda: len(cluster.job_pids(job_id, steps_only=True)) == 2,
                       timeout=30, what="two step tasks running")
    cluster.run("scancel", job_id, check=True)
    cluster.wait_job_state(job_id, ["CANCELLED"], timeout=30)
    cluster.wait_until(lambda: cluster.job_pids(job_id, steps_only=True) == [],
                       timeout=30, what="no step task left after scancel")


def test_step_tasks_end_when_the_batch_script_ends(cluster, tmp_path):
    job_id = cluster.sbatch("-N2", "-n2", "-o", "/dev/null", "--wrap",
                            "srun sleep 300 & sleep 2; exit 0", cwd=tmp_path)
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    cluster.wait_until(lambda: cluster.job_pids(job_id, steps_only=True) == [],
                       timeout=30, what="no step task left after the job")


def test_distributed_training_launch_pattern(cluster, tmp_path):
    """docs/examples/distributed_training.sh: MASTER_ADDR from scontrol
    show hostnames, one srun task per node starting two workers each."""
    script = Path(__file__).resolve().parents[2] / "docs" / "examples" / \
        "distributed_training.sh"
    job = cluster.sbatch("-o", str(tmp_path / "ddp.out"), str(script),
                         cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)
    lines = sorted((tmp_path / "ddp.out").read_text().splitlines())
    assert lines == sorted(
        f"worker rank={n * 2 + l}/4 node={n} procid={n} local={l} "
        f"host=node0{n + 1} master=node01:29500 gpus=0,1"
        for n in (0, 1) for l in (0, 1)), lines


def test_srun_output_and_error_files_per_task(cluster, tmp_path):
    """srun -o/-e with %j %s %t %n: one file per task, named as Slurm's
    srun names them; a pattern without %t collects every task."""
    script = tmp_path / "files.sh"
    script.write_text(
        "#!/bin/bash\n"
        "srun -N2 -n4 -o 'out-%j-%s-%t-%n.txt' -e 'err-%t.txt' "
        "bash -c 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2'\n"
        "srun -n2 -o all.txt bash -c 'echo t$SLURM_PROCID'\n")
    job = cluster.sbatch("-N2", "-n4", "-o", "/dev/null", str(script),
                         cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)
    for t, n in ((0, 0), (1, 0), (2, 1), (3, 1)):
        assert (tmp_path / f"out-{job}-0-{t}-{n}.txt").read_text() == \
            f"out {t}\n"
        assert (tmp_path / f"err-{t}.txt").read_text() == f"err {t}\n"
    assert sorted((tmp_path / "all.txt").read_text().split()) == ["t0", "t1"]
