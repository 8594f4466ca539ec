# SPDX-License-Identifier: Apache-2.0
"""One droverstepd per step per node (issue 4): it is the parent of the
step's tasks, it outlives a droverd that is killed and restarted (the
step goes on, its report and scancel still work), and it feeds srun's
stdin to the tasks (srun -i all / N / none / FILE).  The batch script is
a step too (issue 10): it survives a kill -9 of its node's droverd, its
output and completion arrive, and its time limit still holds."""
import os
import signal
import time

import pytest

from cluster import run_job
from test_steps import steps_of, submit, wait_step


def _ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    return int(stat[stat.rindex(")") + 2:].split()[1])


def _argv(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return [a for a in f.read().split(b"\0") if a]


def _stepd_of(pid):
    """The droverstepd above process 'pid', or None."""
    while pid > 1:
        argv = _argv(pid)
        if argv and argv[0].endswith(b"droverstepd"):
            return pid
        pid = _ppid(pid)
    return None


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_each_step_on_each_node_has_its_own_stepd(cluster, tmp_path):
    job = submit(cluster, tmp_path,
                 "srun -N2 -n2 --overlap sleep 300 &\n"
                 "srun -N2 -n2 --overlap sleep 300 &\nwait\n", "-N2", "-n2")
    wait_step(cluster, job, 0)
    wait_step(cluster, job, 1)
    cluster.wait_until(
        lambda: len(cluster.job_pids(job, steps_only=True)) >= 4, 30,
        "four sleeping tasks")
    stepds = {}
    for pid in cluster.job_pids(job, steps_only=True):
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(e.split(b"=", 1) for e in f.read().split(b"\0")
                       if b"=" in e)
        stepd = _stepd_of(pid)
        assert stepd, f"task {pid} has no droverstepd above it"
        assert _argv(stepd)[-1] == env[b"SLURMD_NODENAME"]
        stepds.setdefault(stepd, set()).add(
            (env[b"SLURMD_NODENAME"], env[b"SLURM_STEP_ID"]))
    # two steps x two nodes: four step processes, one (node, step) each
    assert sorted(len(v) for v in stepds.values()) == [1, 1, 1, 1], stepds
    assert len({next(iter(v)) for v in stepds.values()}) == 4
    assert cluster.run("scancel", job).returncode == 0


# node02 runs only the step's task: its droverd is the one killed and
# restarted (node01's runs the batch step, tested below).

@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_step_survives_a_droverd_restart(cluster, tmp_path):
    job = submit(cluster, tmp_path,
                 "srun -N2 -n2 -l bash -c 'echo started; while [ ! -e go ];"
                 " do sleep 0.2; done; echo finished'\necho rc=$?\n",
                 "-N2", "-n2")
    wait_step(cluster, job, 0)
    cluster.wait_until(
        lambda: (tmp_path / "out.txt").read_text().count("started") == 2,
        30, "the tasks to start")
    shells = [p for p in cluster.job_pids(job, steps_only=True)
              if _argv(p)[:1] == [b"bash"]]
    assert len(shells) == 2
    cluster.kill("droverd", signal.SIGKILL, node="node02")
    time.sleep(6)  # longer than the controller's grace for young steps
    assert all(os.path.exists(f"/proc/{p}") for p in shells), \
        "a task died with droverd"
    cluster.start("droverd node02")
    (tmp_path / "go").write_text("")
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)
    out = (tmp_path / "out.txt").read_text().splitlines()
    assert sorted(out) == ["0: finished", "0: started", "1: finished",
                           "1: started", "rc=0"], out
    steps = steps_of(cluster, job)
    assert steps[0]["state"] == "COMPLETED", steps
    assert steps[0]["exit_status"] == 0, steps


def two_node_step(cluster, tmp_path):
    """A batch job whose step 0 runs a task on each of two nodes, and srun
    then prints its status: the job's id and the tasks' pids."""
    job = submit(cluster, tmp_path, "srun -N2 -n2 sleep 300\necho rc=$?\n"
                 "sleep 300\n", "-N2", "-n2")
    wait_step(cluster, job, 0)
    cluster.wait_until(
        lambda: len(cluster.job_pids(job, steps_only=True)) == 2, 30,
        "the tasks")
    tasks = cluster.job_pids(job, steps_only=True)
    return job, tasks


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_scancel_reaches_a_step_after_droverd_restart(cluster, tmp_path):
    job, tasks = two_node_step(cluster, tmp_path)
    cluster.kill("droverd", signal.SIGKILL, node="node02")
    cluster.start("droverd node02")
    # the new droverd found the step from its control socket
    r = cluster.run("scancel", f"{job}.0")
    assert r.returncode == 0, r.stderr
    wait_step(cluster, job, 0, states=("CANCELLED",))
    cluster.wait_until(
        lambda: not any(os.path.exists(f"/proc/{p}") for p in tasks), 30,
        "the step's tasks to go")
    cluster.wait_until(lambda: "rc=" in (tmp_path / "out.txt").read_text(),
                       30, "srun to return")
    assert cluster.run("scancel", job).returncode == 0


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_a_cancel_a_down_droverd_missed_is_sent_again(cluster, tmp_path):
    """scancel while node02's droverd is down: the signal is refused
    there; when droverd comes back and registers the step still running,
    the controller sends the cancel again and the step ends CANCELLED."""
    job, tasks = two_node_step(cluster, tmp_path)
    cluster.kill("droverd", signal.SIGKILL, node="node02")
    r = cluster.run("scancel", f"{job}.0")
    assert r.returncode == 0, r.stderr
    time.sleep(1)  # the step_signal to node02 is refused
    assert any(os.path.exists(f"/proc/{p}") for p in tasks)
    cluster.start("droverd node02")
    wait_step(cluster, job, 0, states=("CANCELLED",))
    cluster.wait_until(
        lambda: not any(os.path.exists(f"/proc/{p}") for p in tasks), 30,
        "the step's tasks to go")
    assert "signalled again" in cluster.log_file("droverctld").read_text()
    assert cluster.run("scancel", job).returncode == 0


# --- the batch step --------------------------------------------------------

def _batch_host_pid(cluster, job):
    """The batch script's process (the shell that runs it)."""
    pids = [p for p in cluster.job_pids(job) if _stepd_of(p)
            and b"slurm_script" in b" ".join(_argv(p))]
    return pids[0] if pids else None


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_batch_jobs_survive_a_droverd_kill9(cluster, tmp_path):
    go = tmp_path / "go"
    jobs = [cluster.sbatch("-o", str(tmp_path / f"b{i}.out"), "--wrap",
                           f"echo started {i}; while [ ! -e {go} ]; do "
                           f"sleep 0.2; done; echo finished {i}; exit {i}",
                           cwd=tmp_path) for i in range(3)]
    limited = cluster.sbatch("-t", "1", "-o", str(tmp_path / "t.out"),
                             "--wrap", "echo limited; sleep 300",
                             cwd=tmp_path)
    for j in jobs + [limited]:
        cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    cluster.wait_until(
        lambda: all((tmp_path / f"b{i}.out").exists()
                    and "started" in (tmp_path / f"b{i}.out").read_text()
                    for i in range(3)), 30, "the scripts to start")
    script = _batch_host_pid(cluster, jobs[0])
    assert script, "the batch script has no droverstepd above it"

    cluster.kill("droverd", signal.SIGKILL, node=cluster.node_names[0])
    time.sleep(6)  # past the controller's grace for young jobs
    assert os.path.exists(f"/proc/{script}"), "the script died with droverd"
    cluster.start(f"droverd {cluster.node_names[0]}")
    time.sleep(6)  # a registration or two: the jobs are still known
    for j in jobs:
        assert cluster.job_field(j, "JobState") == "RUNNING"

    go.write_text("")
    for i, j in enumerate(jobs):
        cluster.wait_job_state(j, ["COMPLETED", "FAILED"], timeout=60)
        assert (tmp_path / f"b{i}.out").read_text() == \
            f"started {i}\nfinished {i}\n"
        assert cluster.job_field(j, "ExitCode") == f"{i}:0"
    # the time limit was kept by the batch step itself, not by droverd
    cluster.wait_job_state(limited, ["TIMEOUT"], timeout=120)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_steps_run_by_the_configuration_droverd_loaded(cluster, tmp_path):
    """droverstepd reads no configuration file: droverd hands it the
    configuration it loaded with each launch (issue 10).  Rename the node
    in slurm.conf and gres.conf on disk after the daemons started: a batch
    job and an srun step still run on it, by the configuration in force."""
    etc = cluster.conf.parent
    saved = {n: (etc / n).read_text() for n in ("slurm.conf", "gres.conf")}
    try:
        for name, text in saved.items():
            (etc / name).write_text(text.replace("NodeName=node",
                                                 "NodeName=gone"))
        _, out, err = run_job(cluster, tmp_path,
                              "echo on $SLURMD_NODENAME\n")
        assert (out, err) == ("on node01\n", "")
        r = cluster.run("srun", "-n1", "printenv", "SLURMD_NODENAME",
                        check=True)
        assert r.stdout == "node01\n"
    finally:
        for name, text in saved.items():
            (etc / name).write_text(text)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_a_step_without_mpi_does_not_load_libpmix(cluster, tmp_path):
    """libpmix (and libevent, hwloc) are loaded by the droverstepd of a
    --mpi=pmix step only (src/noded/pmix_dl.h): the others start lighter."""
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300",
                         cwd=tmp_path)
    cluster.wait_job_state(job, ["RUNNING"], timeout=30)
    cluster.wait_until(lambda: _batch_host_pid(cluster, job), 30,
                       "the batch script")
    stepd = _stepd_of(_batch_host_pid(cluster, job))
    with open(f"/proc/{stepd}/maps") as f:
        maps = f.read()
    assert "libuv" in maps  # the map is droverstepd's
    assert "libpmix" not in maps
    cluster.run("scancel", job, check=True)


# --- srun -i -------------------------------------------------------------

@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_stdin_goes_to_every_task_by_default(cluster, tmp_path):
    _, out, err = run_job(cluster, tmp_path,
                          "printf 'a\\nb\\n' | srun -N2 -n3 -l cat\n",
                          "-N2", "-n3")
    assert sorted(out.splitlines()) == \
        ["0: a", "0: b", "1: a", "1: b", "2: a", "2: b"], (out, err)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_stdin_to_one_task_with_i_rank(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "printf 'x\\n' | srun -N2 -n3 -l -i 2 "
        "bash -c 'cat; echo end'\n"
        "printf 'y\\n' | srun -n2 -l --input=none bash -c 'cat; echo none'\n",
        "-N2", "-n3")
    assert sorted(out.splitlines()) == \
        ["0: end", "0: none", "1: end", "1: none", "2: end", "2: x"], \
        (out, err)


def test_stdin_from_a_file_per_task(cluster, tmp_path):
    for t in range(2):
        (tmp_path / f"in.{t}").write_text(f"file{t}\n")
    job, out, err = run_job(cluster, tmp_path,
                            "srun -n2 -l -i in.%t cat\n", "-n2")
    assert sorted(out.splitlines()) == ["0: file0", "1: file1"], (out, err)


def test_stdin_of_srun_outside_a_job(cluster):
    r = cluster.run("srun", "-N1", "-n2", "-l", "cat", input="hello\n",
                    timeout=60)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == ["0: hello", "1: hello"]


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_stdin_a_task_never_reads_is_bounded(cluster, tmp_path):
    """A task that reads none of its stdin: droverstepd (root) holds at
    most 64 MiB of it for the task, then closes that stdin; the step runs
    on and ends normally."""
    r = cluster.run("bash", "-c", "head -c 70M /dev/zero | srun sleep 6",
                    cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    log = cluster.log_file("node01").read_text()
    assert "task 0 reads none of its stdin (64 MiB waiting)" in log
