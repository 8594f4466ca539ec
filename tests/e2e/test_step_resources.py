# SPDX-License-Identifier: Apache-2.0
"""What a step takes of its job's allocation (issue 4): GPUs per task in
CUDA_VISIBLE_DEVICES, steps asking more than the allocation refused,
--exact steps side by side, a step that does not fit yet waiting with
Slurm's messages, --overlap."""
import re
import time

from cluster import run_job


def test_gpus_per_task_each_task_sees_its_own(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "echo job $CUDA_VISIBLE_DEVICES\n"
        "srun -n2 --gpus-per-task=2 -l bash -c "
        "'echo $CUDA_VISIBLE_DEVICES $GPU_DEVICE_ORDINAL $SLURM_STEP_GPUS'\n"
        "srun -n1 printenv CUDA_VISIBLE_DEVICES\n"
        "srun -n1 --gres=gpu:1 printenv CUDA_VISIBLE_DEVICES\n",
        "-N1", "-n2", "--gres=gpu:4")
    lines = out.splitlines()
    assert lines[0].startswith("job "), (out, err)
    gpus = lines[0].split()[1].split(",")
    assert len(gpus) == 4
    all4 = ",".join(gpus)
    first, second = ",".join(gpus[:2]), ",".join(gpus[2:])
    assert sorted(lines[1:3]) == [f"0: {first} {first} {all4}",
                                  f"1: {second} {second} {all4}"], (out, err)
    assert lines[3:] == [all4, gpus[0]], (out, err)
    assert err == ""


def test_step_asking_more_than_the_allocation_is_refused(cluster, tmp_path):
    job, out, err = run_job(
        cluster, tmp_path,
        "srun -n2 --gpus-per-task=4 echo ran; echo rc=$?\n"
        "srun -n8 echo ran; echo rc=$?\n"
        "srun --gres=gpu:3 echo ran; echo rc=$?\n",
        "-N1", "-n2", "--gres=gpu:4")
    assert out == "rc=1\nrc=1\nrc=0\n" or out.startswith("rc=1\nrc=1\n"), err
    lines = err.splitlines()
    assert lines[:2] == [
        f"srun: error: Unable to create step for job {job}: Requested node "
        "configuration is not available",
        f"srun: error: Unable to create step for job {job}: More processors "
        "requested than permitted"], err
    steps = cluster.rpc("step_info", {"job_ids": [int(job)],
                                      "all_states": True})["steps"]
    assert [s["step_id"] for s in steps if s["step_id"] < 100] == [0], steps


def test_exact_steps_run_side_by_side_and_a_third_waits(cluster, tmp_path):
    job, out, err = run_job(
        cluster, tmp_path,
        "s=$(date +%s.%N)\n"
        "srun -n1 --exact sleep 3 & srun -n1 --exact sleep 3 &\n"
        "sleep 1; srun -n1 --exact echo third; wait\n"
        "echo took $(echo \"$(date +%s.%N) - $s\" | bc)\n",
        "-N1", "-n2")
    lines = out.splitlines()
    assert lines[0] == "third", (out, err)
    took = float(lines[1].split()[1])
    assert 2.5 < took < 5.5, (out, err)  # the two ran at the same time
    assert err.splitlines() == [
        f"srun: Job {job} step creation temporarily disabled, retrying "
        "(Requested nodes are busy)",
        f"srun: Step created for StepId={job}.2"], err


def test_default_steps_take_the_node_overlap_steps_nothing(cluster, tmp_path):
    job, out, err = run_job(
        cluster, tmp_path,
        "srun -n1 sleep 2 & sleep 0.5\n"
        "srun --overlap -n1 echo overlap\n"
        "srun -n1 echo after; wait\n",
        "-N1", "-n2")
    assert out == "overlap\nafter\n", err
    # the third step waited for the first (it takes the job's CPUs)
    assert f"srun: Step created for StepId={job}.2" in err, err


def test_step_memory_fits_the_job(cluster, tmp_path):
    job, out, err = run_job(
        cluster, tmp_path,
        "srun --mem=2000 echo ran; echo rc=$?\n"
        "srun -n1 --exact --mem=600 sleep 2 & sleep 0.5\n"
        "srun -n1 --exact --mem=300 echo fits\n"
        "srun -n1 --exact --mem=600 echo waited; wait\n",
        "-N1", "-n2", "--mem=1000")
    assert out == "rc=1\nfits\nwaited\n", err
    assert err.splitlines() == [
        f"srun: error: Unable to create step for job {job}: Memory required "
        "by task is not available",
        f"srun: Job {job} step creation temporarily disabled, retrying "
        "(Requested nodes are busy)",
        f"srun: Step created for StepId={job}.2"], err


def test_step_mincpus_needs_that_many_of_the_jobs_cpus(cluster, tmp_path):
    """srun --mincpus inside an allocation: a node where the job has fewer
    CPUs is not one of the step's (Slurm's pn_min_cpus), and with --exact
    the step takes at least that many CPUs."""
    job, out, err = run_job(
        cluster, tmp_path,
        "srun -n1 --mincpus=3 echo ran; echo rc=$?\n"
        "srun -n1 --exact --mincpus=2 true\n"
        "srun -n1 --exact true\n",
        "-N1", "-n2")
    assert out == "rc=1\n", (out, err)
    assert err == (
        f"srun: error: Unable to create step for job {job}: Requested node "
        "configuration is not available\n"), err
    steps = cluster.rpc("step_info", {"job_ids": [int(job)],
                                      "all_states": True})["steps"]
    assert [(s["step_id"], s["ncpus"]) for s in steps
            if s["step_id"] < 100] == [(0, 2), (1, 1)], steps
