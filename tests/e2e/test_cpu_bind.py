# SPDX-License-Identifier: Apache-2.0
"""srun's tasks bound to CPUs (--cpu-bind, task/affinity) and GPUs
(--gpu-bind), checked against what the kernel says each task may use.

The nodes declare what the tests need, but tasks can only be bound to
CPUs that exist: the machine's own (often 2) are read here, and job CPU
id k is the k-th usable CPU modulo their count (src/noded/affinity.h).
"""
import os
import re

import pytest

AFFINITY = ["--conf-extra=TaskPlugin=task/affinity,task/cgroup"]
REAL = sorted(os.sched_getaffinity(0))
SHOW = ("grep Cpus_allowed_list /proc/self/status; "
        "echo BIND=$SLURM_CPU_BIND TYPE=$SLURM_CPU_BIND_TYPE "
        "LIST=$SLURM_CPU_BIND_LIST VERBOSE=$SLURM_CPU_BIND_VERBOSE "
        "CVD=$CUDA_VISIBLE_DEVICES")
VERBOSE = re.compile(r"^(\d+): cpu-bind=(MASK|MAP |NONE) - node01, "
                     r"task +(\d+) +(\d+) \[(\d+)\]: mask 0x([0-9a-f]+)"
                     r"( set)?$")

needs_two_cpus = pytest.mark.usefixtures("two_cpus")  # conftest.py


def cpu_list(cpus):
    """Linux's list form of a set of CPU ids: '0-1', '0,2'."""
    cpus, out, i = sorted(cpus), [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def mask_cpus(hexmask):
    v = int(hexmask, 16)
    return {b for b in range(v.bit_length()) if v >> b & 1}


def srun(cluster, *args, user="druser1", env=None):
    """srun -l ... bash -c SHOW: ({rank: {key: value}}, verbose lines, r)."""
    r = cluster.run("srun", "-l", *args, "bash", "-c", SHOW, user=user,
                    env=env, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    tasks = {}
    for line in r.stdout.splitlines():
        rank, _, text = line.partition(": ")
        t = tasks.setdefault(int(rank), {})
        if text.startswith("Cpus_allowed_list:"):
            t["allowed"] = text.split()[1]
        else:
            t.update(kv.split("=", 1) for kv in text.split())
    verbose = {}
    for line in r.stderr.splitlines():
        m = VERBOSE.match(line)
        assert m, f"unexpected stderr line: {line!r}"
        rank, kind, task, local, _pid, mask, sets = m.groups()
        assert rank == task
        verbose[int(task)] = (kind, int(local), mask, sets)
    return tasks, verbose, r


@needs_two_cpus
@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": ["--cpus-per-node=2",
                                                  *AFFINITY]}],
                         indirect=True)
def test_cpu_bind_types_bind_each_task_as_the_kernel_reports(cluster):
    # verbose,cores: Slurm's line per task; the mask is what the task has
    tasks, verbose, _ = srun(cluster, "-n2", "--cpu-bind=verbose,cores")
    assert sorted(verbose) == [0, 1]
    masks = []
    for rank in (0, 1):
        kind, local, mask, sets = verbose[rank]
        assert (kind, local, sets) == ("MASK", rank, " set")
        assert tasks[rank]["allowed"] == cpu_list(mask_cpus(mask))
        assert len(mask_cpus(mask)) == 1
        masks.append(f"0x{mask}")
        assert tasks[rank]["TYPE"] == "mask_cpu:"
        assert tasks[rank]["VERBOSE"] == "verbose"
    assert mask_cpus(masks[0][2:]) != mask_cpus(masks[1][2:])
    for rank in (0, 1):
        assert tasks[rank]["LIST"] == ",".join(masks)
        assert tasks[rank]["BIND"] == "verbose,mask_cpu:" + ",".join(masks)

    # no --cpu-bind: Slurm's auto binding (2 tasks on 2 whole cores)
    tasks, verbose, _ = srun(cluster, "-n2")
    assert verbose == {}
    assert {tasks[0]["allowed"], tasks[1]["allowed"]} == {str(REAL[0]),
                                                          str(REAL[1])}
    assert tasks[0]["TYPE"] == "mask_cpu:"

    # map_cpu and mask_cpu: the node's CPU ids, per local task
    a, b = REAL[0], REAL[1]
    tasks, verbose, _ = srun(cluster, "-n2", f"--cpu-bind=verbose,map_cpu:{b},{a}")
    assert (tasks[0]["allowed"], tasks[1]["allowed"]) == (str(b), str(a))
    assert verbose[0][0] == "MAP " and verbose[0][2] == f"{1 << b:x}"
    assert tasks[1]["BIND"] == f"verbose,map_cpu:{b},{a}"
    tasks, _, _ = srun(cluster, "-n2",
                       f"--cpu-bind=mask_cpu:{1 << a:x},0x{(1 << a) | (1 << b):x}")
    assert tasks[0]["allowed"] == str(a)
    assert tasks[1]["allowed"] == cpu_list({a, b})

    # none: the step's CPUs, unbound; verbose says NONE without "set"
    tasks, verbose, _ = srun(cluster, "-n2", "--cpu-bind=verbose,none")
    for rank in (0, 1):
        assert tasks[rank]["allowed"] == cpu_list({a, b})
        assert verbose[rank][0] == "NONE" and verbose[rank][3] is None
        assert tasks[rank]["BIND"] == "verbose,none"

    # SLURM_CPU_BIND is read as --cpu-bind is; the option wins over it
    tasks, _, _ = srun(cluster, "-n2", env={"SLURM_CPU_BIND": f"map_cpu:{b}"})
    assert tasks[0]["allowed"] == tasks[1]["allowed"] == str(b)
    tasks, _, _ = srun(cluster, "-n1", f"--cpu-bind=map_cpu:{a}",
                       env={"SLURM_CPU_BIND": f"map_cpu:{b}"})
    assert tasks[0]["allowed"] == str(a)

    # --hint=nomultithread: threads, one per core
    tasks, _, _ = srun(cluster, "-n2", "--hint=nomultithread")
    assert {tasks[0]["allowed"], tasks[1]["allowed"]} == {str(a), str(b)}

    # a job with one of the two CPUs (CPU_IDs=0): bound to that one; a
    # CPU outside it, or rank without the whole node, is refused
    tasks, verbose, _ = srun(cluster, "-n1", "--cpu-bind=verbose,cores")
    assert tasks[0]["allowed"] == str(a)
    r = cluster.run("srun", "-n1", f"--cpu-bind=map_cpu:{b}", "true",
                    user="druser1", timeout=60)
    assert r.returncode != 0
    assert "not within the step's CPUs" in r.stderr, r.stderr
    r = cluster.run("srun", "-n1", "--cpu-bind=rank", "true",
                    user="druser1", timeout=60)
    assert r.returncode != 0
    assert "Entire node must be allocated for rank" in r.stderr, r.stderr


@needs_two_cpus
@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": ["--cpus-per-node=8",
                                                  *AFFINITY]}],
                         indirect=True)
def test_node_declaring_more_cpus_than_exist_binds_to_real_ones(cluster):
    # 4 threads asked on a node whose 8 declared CPUs are 2 real ones:
    # the tasks wrap around the CPUs that exist
    tasks, verbose, _ = srun(cluster, "-n4", "--cpu-bind=verbose,threads")
    got = [tasks[r]["allowed"] for r in range(4)]
    assert got == [str(REAL[0]), str(REAL[1])] * 2, got
    for rank in range(4):
        assert tasks[rank]["allowed"] == cpu_list(mask_cpus(verbose[rank][2]))
    # an id that does not exist here is refused with the reason
    r = cluster.run("srun", "-n1", "--exclusive", "--cpu-bind=map_cpu:1000",
                    "true", user="druser1", timeout=60)
    assert r.returncode != 0
    assert "map_cpu" in r.stderr and "not within" in r.stderr, r.stderr


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 2}],
                         indirect=True)
def test_gpu_bind_and_no_cpu_binding_without_task_affinity(cluster):
    # drover up's TaskPlugin=task/cgroup: --cpu-bind binds nothing, as in
    # Slurm without task/affinity; --gpu-bind still picks each task's GPU
    assert cluster.conf_value("TaskPlugin") == "task/cgroup"
    tasks, verbose, _ = srun(cluster, "-n2", "--gres=gpu:2",
                             "--cpu-bind=verbose,cores",
                             "--gpu-bind=map_gpu:1,0")
    assert verbose == {}
    # the step has GPUs 0 and 1 (its cgroup, when it hides the others,
    # numbers them from 0: the same numbers here); each task sees one
    whole = cpu_list(REAL)
    for rank, gpu in ((0, 1), (1, 0)):
        assert tasks[rank]["allowed"] == whole
        assert "TYPE" not in tasks[rank] or tasks[rank]["TYPE"] == ""
        assert tasks[rank]["CVD"] == str(gpu)
    tasks, _, _ = srun(cluster, "-n2", "--gres=gpu:2", "--gpu-bind=single:1")
    assert [tasks[r]["CVD"] for r in (0, 1)] == ["0", "1"]
    tasks, _, _ = srun(cluster, "-n2", "--gres=gpu:2", "--gpu-bind=closest")
    assert tasks[0]["CVD"] == tasks[1]["CVD"] == "0,1"
    tasks, _, _ = srun(cluster, "-n1", "--gres=gpu:2",
                       "--gpu-bind=mask_gpu:0x2")
    assert tasks[0]["CVD"] == "1"
    # without --gpu-bind each task sees every GPU of the step, as before
    tasks, _, _ = srun(cluster, "-n2", "--gres=gpu:2")
    assert tasks[0]["CVD"] == tasks[1]["CVD"] == "0,1"

    # bad values: Slurm's messages, exit 255, nothing started
    for opt, msg in (("--cpu-bind=bogus",
                      'unrecognized --cpu-bind argument "bogus"'),
                     ("--cpu-bind=map_cpu",
                      'missing list for "--cpu-bind=<map_cpu|mask_cpu>:<list>"'),
                     ("--gpu-bind=single:0",
                      "Invalid --gpu-bind argument: single:0"),
                     ("--hint=fast", "Invalid --hint argument: fast")):
        r = cluster.run("srun", opt, "true", user="druser1", timeout=30)
        assert (r.returncode, r.stderr) == (255, f"srun: error: {msg}\n")
    r = cluster.run("srun", "--cpu-bind=help", user="druser1", timeout=30)
    assert r.returncode == 0 and "map_cpu:<list>" in r.stdout


@needs_two_cpus
@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": [
                                          "--cpus-per-node=2", *AFFINITY,
                                          "--conf-extra=TaskPluginParam="
                                          "None,Verbose"]}],
                         indirect=True)
def test_task_plugin_param_sets_the_default_binding(cluster):
    """TaskPluginParam (slurm.conf): None overrides the automatic
    binding when srun asks none, Verbose reports every binding (quiet
    turns it off), and --cpu-bind still wins."""
    a, b = REAL[0], REAL[1]
    # None: two tasks not bound (each may use both CPUs), reported.
    tasks, verbose, _ = srun(cluster, "-n2")
    assert [tasks[r]["allowed"] for r in (0, 1)] == [cpu_list({a, b})] * 2
    assert sorted(verbose) == [0, 1]
    assert verbose[0][0] == "NONE"
    # quiet: no report; an explicit type binds as asked.
    tasks, verbose, _ = srun(cluster, "-n2", "--cpu-bind=quiet,cores")
    assert verbose == {}
    assert {tasks[0]["allowed"], tasks[1]["allowed"]} == {str(a), str(b)}
    # A bad item: the controller's configuration check names it.
    r = cluster.run("scontrol", "show", "config", check=True)
    assert re.search(r"^TaskPluginParam\s+= None,Verbose$", r.stdout, re.M), \
        r.stdout


@needs_two_cpus
@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0,
                                      "up_args": ["--cpus-per-node=2",
                                                  *AFFINITY]}],
                         indirect=True)
def test_batch_script_runs_on_its_jobs_cpus(cluster, tmp_path):
    """task/affinity binds the batch script too, as Slurm's batch step:
    two 1-CPU jobs side by side each run on their own CPU (CPU_IDs=)."""
    c = cluster
    show = "grep Cpus_allowed_list /proc/self/status; sleep 30"
    jobs = [c.sbatch("-n1", "-o", f"bind{i}.out", "--wrap", show,
                     cwd=tmp_path) for i in range(2)]
    for job in jobs:
        c.wait_job_state(job, "RUNNING", timeout=30)
    got = []
    for i, job in enumerate(jobs):
        detail = c.run("scontrol", "-d", "show", "job", job,
                       check=True).stdout
        ids = re.search(r"CPU_IDs=(\S+)", detail).group(1)
        out = tmp_path / f"bind{i}.out"
        c.wait_until(lambda: out.exists() and out.read_text(), timeout=30,
                     what="the script's line")
        allowed = out.read_text().split()[1]
        assert allowed == str(REAL[int(ids) % len(REAL)]), (ids, allowed)
        got.append(allowed)
    assert got[0] != got[1], got
    c.run("scancel", *jobs, check=True)
