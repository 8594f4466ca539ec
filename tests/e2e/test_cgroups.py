# SPDX-License-Identifier: Apache-2.0
"""Batch jobs in cgroups (cgroup v1): the job's memory as its limit, the OOM
killer reported as Slurm does, every process of the job killed at its end
(setsid or not), the GPUs it was not given denied.

`drover up` writes TaskPlugin=task/cgroup and a cgroup.conf with
ConstrainRAMSpace=yes and ConstrainDevices=yes; these clusters add
ConstrainSwapSpace=yes, so a job over its memory meets the OOM killer even
on a machine with swap.  The module skips when this machine's cgroup v1
memory hierarchy is not writable (a fact of the machine: a container
without its cgroups delegated, a pure cgroup v2 host), even under
DROVER_TEST_STRICT.
"""
import os
import pwd
import re
import stat
from pathlib import Path

import pytest

from cluster import Cluster, _proc_alive, require, run_job, wait_until

CGROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("freezer", "pids", "memory", "cpuset", "devices")


def own_cgroup(pid, controller):
    """The cgroup path of 'pid' in a v1 hierarchy ("memory"), or in v2
    (controller None), from /proc/PID/cgroup."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, ctls, path = line.split(":", 2)
        if (controller is None and ctls == "") or \
                (controller and controller in ctls.split(",")):
            return path
    return None


def v1_memory_writable():
    """Whether a cgroup can be made beside our own in the v1 memory
    hierarchy (where droverd, started by this process, makes its own)."""
    if (CGROOT / "cgroup.controllers").exists() or os.geteuid() != 0:
        return False
    try:
        path = own_cgroup("self", "memory")
    except OSError:
        return False
    if path is None or not (CGROOT / "memory" / "cgroup.procs").exists():
        return False
    probe = (CGROOT / "memory" / path.lstrip("/")
             / f"drover_probe_{os.getpid()}")
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return False
    return True


@pytest.fixture
def v1_memory():
    require(v1_memory_writable(), "the cgroup v1 memory hierarchy is not "
            "writable on this machine")


pytestmark = [pytest.mark.needs_root, pytest.mark.usefixtures("v1_memory")]

CGROUP_CLUSTER = {"nodes": 1, "gpus_per_node": 2,
                  "up_args": ["--cgroup-conf-extra=ConstrainSwapSpace=yes"]}


def node_port(cluster):
    m = re.search(r"^NodeName=\S+ .*\bPort=(\d+)", cluster.conf.read_text(),
                  re.M)
    return int(m.group(1))


def node_base(cluster, controller):
    """<base> of node01 in a v1 hierarchy: beside droverd's own cgroup."""
    pid = cluster.pid("node01")
    mine = own_cgroup(pid, controller).lstrip("/")
    return CGROOT / controller / mine / f"drover_node01_{node_port(cluster)}"


def test_drover_up_configures_task_cgroup(cluster_root):
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    r = c.drover_cmd("up", "--nodes=1", "--gpus-per-node=0",
                     "--cgroup-conf-extra=AllowedRAMSpace=95")
    try:
        assert r.returncode == 0, r.stderr
        assert c.conf_value("TaskPlugin") == "task/cgroup"
        assert c.conf_value("ProctrackType") == "proctrack/cgroup"
        cg = (c.dir / "etc" / "cgroup.conf").read_text()
        for line in ("ConstrainRAMSpace=yes", "ConstrainDevices=yes",
                     "AllowedRAMSpace=95"):
            assert re.search(rf"^{line}$", cg, re.M), cg
        log = c.log_file("node01").read_text()
        assert re.search(r"jobs run in cgroup v1 \([a-z,]*memory[a-z,]*\) "
                         r"under /sys/fs/cgroup/freezer\S*/drover_node01_\d+",
                         log), log
    finally:
        c.down()


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_batch_job_runs_in_its_cgroup_limited_to_its_memory(cluster,
                                                            tmp_path):
    job_id, out, _ = run_job(
        cluster, tmp_path,
        "cat /proc/self/cgroup\n"
        "p=$(grep -E '^[0-9]+:memory:' /proc/self/cgroup | cut -d: -f3)\n"
        "echo limit=$(cat /sys/fs/cgroup/memory$p/../memory.limit_in_bytes)\n",
        "--mem=100M")
    for ctl in V1_CONTROLLERS:
        want = (str(node_base(cluster, ctl))[len(f"{CGROOT}/{ctl}"):]
                + f"/job_{job_id}/step_batch")
        assert re.search(rf"^\d+:{ctl}:{re.escape(want)}$", out, re.M), out
    assert f"limit={100 << 20}\n" in out
    # The job's cgroup went with it; the node's stays for the next jobs.
    for ctl in V1_CONTROLLERS:
        assert not (node_base(cluster, ctl) / f"job_{job_id}").exists()
        assert node_base(cluster, ctl).is_dir()


OOM_LINE = ("slurmstepd: error: Detected 1 oom-kill event(s) in StepId={}"
            ".batch. Some of your processes may have been killed by the "
            "cgroup out-of-memory handler.\n")


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_job_over_its_memory_ends_out_of_memory(cluster, tmp_path):
    # The script itself goes on and exits 0: the job still ends
    # OUT_OF_MEMORY with ExitCode 0:125, as in Slurm.
    job_id, out, err = run_job(
        cluster, tmp_path,
        "/usr/bin/python3 -c 'b = bytearray(300 << 20)'\n"
        "echo python=$?\n",
        "--mem=64M", states=("OUT_OF_MEMORY", "COMPLETED", "FAILED"))
    assert cluster.job_state(job_id) == "OUT_OF_MEMORY"
    assert cluster.job_field(job_id, "ExitCode") == "0:125"
    assert out == "python=137\n"
    assert err.endswith(OOM_LINE.format(job_id)), err

    def sacct():
        r = cluster.run("sacct", "-j", job_id, "-n", "-o",
                        "JobID,State,ExitCode")
        return r.stdout if "OUT_OF_ME+" in r.stdout else None
    lines = [l.split() for l in wait_until(sacct, 30, "sacct").splitlines()]
    assert [job_id, "OUT_OF_ME+", "0:125"] in lines
    assert [f"{job_id}.batch", "OUT_OF_ME+", "0:125"] in lines


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_job_under_its_memory_completes(cluster, tmp_path):
    job_id, out, err = run_job(
        cluster, tmp_path,
        "/usr/bin/python3 -c 'b = bytearray(20 << 20); print(len(b))'\n",
        "--mem=64M")
    assert out == f"{20 << 20}\n"
    assert "oom-kill" not in err


ESCAPE = ("setsid /bin/sh -c 'echo $$ > {pidfile}; exec sleep 300' "
          "</dev/null >/dev/null 2>&1 &\n"
          "while [ ! -s {pidfile} ]; do sleep 0.1; done\n")


def escaped_pid(path):
    return int(wait_until(lambda: path.exists() and path.read_text().strip(),
                          30, f"{path}"))


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_process_that_left_with_setsid_dies_with_the_job(cluster, tmp_path):
    pidfile = tmp_path / "escaped.pid"
    job_id, _, _ = run_job(cluster, tmp_path,
                           ESCAPE.format(pidfile=pidfile) + "exit 0\n")
    pid = escaped_pid(pidfile)
    wait_until(lambda: not _proc_alive(pid), 10,
               f"the escaped sleep (pid {pid}) to be killed")
    for ctl in V1_CONTROLLERS:
        assert not (node_base(cluster, ctl) / f"job_{job_id}").exists()


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_scancel_kills_a_process_that_left_with_setsid(cluster, tmp_path):
    pidfile = tmp_path / "escaped.pid"
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n" + ESCAPE.format(pidfile=pidfile)
                      + "sleep 300\n")
    job_id = cluster.sbatch("-o", "out.txt", str(script), cwd=tmp_path)
    pid = escaped_pid(pidfile)
    assert _proc_alive(pid)
    assert os.getsid(pid) == pid  # out of the job's session and group
    cluster.run("scancel", job_id, check=True)
    cluster.wait_job_state(job_id, "CANCELLED", timeout=30)
    wait_until(lambda: not _proc_alive(pid), 15,
               f"the escaped sleep (pid {pid}) to be killed")
    wait_until(lambda: not (node_base(cluster, "pids")
                            / f"job_{job_id}").exists(),
               15, "the job's cgroup to be removed")


GPU_PROBE = """\
echo given=$SLURM_JOB_GPUS visible=$CUDA_VISIBLE_DEVICES
/usr/bin/python3 - {dev} <<'EOF'
import os, sys
for i in (0, 1):
    try:
        os.close(os.open(f"{{sys.argv[1]}}/nvidia{{i}}", os.O_RDWR))
        print(f"nvidia{{i}} opened")
    except OSError as e:
        print(f"nvidia{{i}} {{e.strerror}}")
EOF
"""


def make_real_gpu_files(cluster):
    """Turn the fake GPUs into device files with a driver behind them
    (the numbers of /dev/full and /dev/zero), so that an allowed open
    works and only the cgroup can refuse one."""
    for i, (major, minor) in enumerate(((1, 7), (1, 5))):
        path = cluster.dir / "dev" / f"nvidia{i}"
        path.unlink()
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
        except PermissionError:
            require(False, "mknod is not permitted here (no CAP_MKNOD)")
        os.chmod(path, 0o666)


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_job_opens_its_gpu_and_not_the_others(cluster, tmp_path):
    # the prerequisite make_real_gpu_files() needs too: fails under
    # DROVER_TEST_STRICT (CI), skips elsewhere
    require("cannot create fake GPU devices" not in cluster.last_up.stderr,
            "mknod is not permitted here (no CAP_MKNOD)")
    make_real_gpu_files(cluster)
    probe = GPU_PROBE.format(dev=cluster.dir / "dev")
    _, out, _ = run_job(cluster, tmp_path, probe, "--gres=gpu:1")
    assert out.startswith("given=0 visible=0\n"), out
    assert "nvidia0 opened" in out, out
    assert "nvidia1 Operation not permitted" in out, out

    # With GPU 0 taken, the next job gets GPU 1, which CUDA will number 0
    # in a cgroup that hides GPU 0 (Slurm's CUDA_VISIBLE_DEVICES too).
    hold = cluster.sbatch("--gres=gpu:1", "-o", "/dev/null", "--wrap",
                          "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(hold, "RUNNING", timeout=30)
    _, out, _ = run_job(cluster, tmp_path, probe, "--gres=gpu:1")
    assert out.startswith("given=1 visible=0\n"), out
    assert "nvidia1 opened" in out, out
    assert "nvidia0 Operation not permitted" in out, out
    cluster.run("scancel", hold, check=True)
    cluster.wait_job_state(hold, "CANCELLED", timeout=30)

    _, out, _ = run_job(cluster, tmp_path, probe, "--gres=gpu:2")
    assert "nvidia0 opened" in out and "nvidia1 opened" in out, out

    _, out, _ = run_job(cluster, tmp_path, probe)
    assert "nvidia0 Operation not permitted" in out, out
    assert "nvidia1 Operation not permitted" in out, out


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_drover_down_leaves_no_cgroup_behind(cluster, tmp_path):
    bases = [node_base(cluster, ctl) for ctl in V1_CONTROLLERS]
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300",
                            cwd=tmp_path)
    cluster.wait_job_state(job_id, "RUNNING", timeout=30)
    wait_until(lambda: (bases[1] / f"job_{job_id}" / "step_batch").exists(),
               10, "the job's cgroup")
    # droverd stops first and keeps the running job's cgroup; drover down
    # then kills the job and removes what is left.
    cluster.down()
    for b in bases:
        assert not b.exists(), b


def v2_usable():
    unified = CGROOT / "unified"
    if not (unified / "cgroup.procs").exists():
        return False
    probe = unified / (own_cgroup("self", None) or "/").lstrip("/") / \
        f"drover_probe_{os.getpid()}"
    try:
        probe.mkdir()
        ok = (probe / "cgroup.kill").exists()
        probe.rmdir()
    except OSError:
        return False
    return ok


@pytest.fixture
def v2_tree():
    require(v2_usable(), "no writable cgroup v2 tree with cgroup.kill at "
            "/sys/fs/cgroup/unified")


@pytest.mark.usefixtures("v2_tree")
@pytest.mark.parametrize("cluster", [{
    "nodes": 1, "gpus_per_node": 0,
    "up_args": ["--cgroup-conf-extra=CgroupPlugin=cgroup/v2",
                "--cgroup-conf-extra=CgroupMountpoint=/sys/fs/cgroup/unified"]
}], indirect=True)
def test_cgroup_v2_tracks_the_job_and_kills_escaped_processes(cluster,
                                                              tmp_path):
    pidfile = tmp_path / "escaped.pid"
    job_id, out, _ = run_job(cluster, tmp_path,
                             "grep '^0::' /proc/self/cgroup\n"
                             + ESCAPE.format(pidfile=pidfile) + "exit 0\n")
    mine = own_cgroup(cluster.pid("node01"), None).rstrip("/")
    assert out == (f"0::{mine}/drover_node01_{node_port(cluster)}/"
                   f"job_{job_id}/step_batch\n")
    pid = escaped_pid(pidfile)
    wait_until(lambda: not _proc_alive(pid), 10,
               f"the escaped sleep (pid {pid}) to be killed")
    log = cluster.log_file("node01").read_text()
    assert "jobs run in cgroup v2" in log


def test_without_cgroup_rights_jobs_still_run(cluster_root, test_user):
    """An ordinary user's cluster cannot use the cgroup tree: droverd says
    so and runs the jobs anyway."""
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    require(c.run("test", "-x", c.drover, user=test_user).returncode == 0,
            f"{test_user} cannot execute {c.drover}")
    pw = pwd.getpwnam(test_user)
    os.chown(cluster_root, pw.pw_uid, pw.pw_gid)
    up = c.run(c.drover, "up", "--dir", c.dir, "--nodes=1",
               "--gpus-per-node=0", user=test_user, timeout=120)
    try:
        assert up.returncode == 0, up.stderr + c.log_tails()
        work = c.user_workdir(test_user)
        job_id = c.sbatch("-o", "out.txt", "--mem=64M", "--wrap", "echo ran",
                          user=test_user, cwd=work)
        c.wait_job_state(job_id, "COMPLETED", timeout=60)
        assert (work / "out.txt").read_text() == "ran\n"
        log = c.log_file("node01").read_text()
        assert re.search(r"cannot create /sys/fs/cgroup/\S+: Permission "
                         r"denied: jobs run without cgroups", log), log
    finally:
        c.run(c.drover, "down", "--dir", c.dir, user=test_user)


# --- srun steps: droverstepd puts them in job_N/step_S ---------------------

@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_step_runs_in_its_cgroup_with_its_memory(cluster, tmp_path):
    job_id, out, err = run_job(
        cluster, tmp_path,
        "srun --mem=60M bash -c '"
        "p=$(grep -E \"^[0-9]+:memory:\" /proc/self/cgroup | cut -d: -f3); "
        "echo step=$p; "
        "echo limit=$(cat /sys/fs/cgroup/memory$p/memory.limit_in_bytes); "
        "echo job=$(cat /sys/fs/cgroup/memory$p/../memory.limit_in_bytes)'\n",
        "--mem=100M")
    want = (str(node_base(cluster, "memory"))[len(f"{CGROOT}/memory"):]
            + f"/job_{job_id}/step_0")
    assert f"step={want}\n" in out, (out, err)
    assert f"limit={60 << 20}\n" in out, out
    assert f"job={100 << 20}\n" in out, out
    # both gone with the job
    assert not (node_base(cluster, "memory") / f"job_{job_id}").exists()


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_step_over_its_memory_is_oom_killed(cluster, tmp_path):
    _, out, err = run_job(
        cluster, tmp_path,
        "srun --mem=40M /usr/bin/python3 -c 'b = bytearray(300 << 20)'\n"
        "echo rc=$?\n", "--mem=200M")
    assert "rc=137\n" in out, (out, err)
    assert "Killed" in err, err


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_step_end_kills_what_its_tasks_left_with_setsid(cluster, tmp_path):
    pidfile = tmp_path / "escaped.pid"
    start = __import__("time").monotonic()
    _, out, err = run_job(
        cluster, tmp_path,
        "srun bash -c 'setsid sleep 300 </dev/null >/dev/null 2>&1 & "
        f"echo $! > {pidfile}; echo task done'\n"
        "echo rc=$?\nsleep 1\n")
    assert out == "task done\nrc=0\n", (out, err)
    assert __import__("time").monotonic() - start < 30
    pid = escaped_pid(pidfile)
    wait_until(lambda: not _proc_alive(pid), 10,
               f"the escaped sleep (pid {pid}) to be killed")


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_step_sees_only_its_gpu(cluster, tmp_path):
    # the prerequisite make_real_gpu_files() needs too: fails under
    # DROVER_TEST_STRICT (CI), skips elsewhere
    require("cannot create fake GPU devices" not in cluster.last_up.stderr,
            "mknod is not permitted here (no CAP_MKNOD)")
    make_real_gpu_files(cluster)
    probe = tmp_path / "probe.sh"
    probe.write_text("#!/bin/bash\n" + GPU_PROBE.format(dev=cluster.dir / "dev")
                     .replace("$SLURM_JOB_GPUS", "$SLURM_STEP_GPUS"))
    probe.chmod(0o755)
    _, out, err = run_job(
        cluster, tmp_path,
        f"srun --gres=gpu:1 --exact -n1 {probe} &\nwait\n"
        f"srun -n1 --gpus-per-task=1 --overlap {probe}\n",
        "--gres=gpu:2", "-n2")
    # every step: one GPU visible as 0, the other refused by the cgroup
    assert out.count("visible=0\n") == 2, (out, err)
    assert out.count(" opened\n") == 2, out
    assert out.count("Operation not permitted") == 2, out


# --- ConstrainCores=yes: the job's cpuset is its real CPUs ------------------

def cpu_ranges(ids):
    """[0, 1, 2, 5] as the kernel prints lists: "0-2,5"."""
    out, ids = [], sorted(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(out)


def job_cpus(count):
    """The CPUs of a job given 'count' CPUs on the node: its CPU ids
    0..count-1 on the CPUs this machine has, in order, wrapping around
    (droverstepd's hwloc order is the kernel's on the machines we run)."""
    have = sorted(os.sched_getaffinity(0))
    return cpu_ranges(have[:min(count, len(have))])


CORES_CLUSTER = {"nodes": 1, "gpus_per_node": 0,
                 "up_args": ["--cgroup-conf-extra=ConstrainCores=yes"]}


@pytest.mark.parametrize("cluster", [CORES_CLUSTER], indirect=True)
def test_constrain_cores_confines_the_job_to_its_cpus(cluster, tmp_path):
    probe = ("grep Cpus_allowed_list /proc/self/status\n"
             "p=$(grep -E '^[0-9]+:cpuset:' /proc/self/cgroup | cut -d: -f3)\n"
             "echo job_cpuset=$(cat /sys/fs/cgroup/cpuset$p/../cpuset.cpus)\n")
    _, out, err = run_job(cluster, tmp_path, probe, "-n1")
    assert out == (f"Cpus_allowed_list:\t{job_cpus(1)}\n"
                   f"job_cpuset={job_cpus(1)}\n"), (out, err)
    # more CPUs than the machine has: all of them (the ids wrap around)
    _, out, err = run_job(cluster, tmp_path,
                          "srun -n1 grep Cpus_allowed_list /proc/self/status\n"
                          "grep Cpus_allowed_list /proc/self/status\n", "-c4")
    assert out == f"Cpus_allowed_list:\t{job_cpus(4)}\n" * 2, (out, err)


@pytest.mark.parametrize("cluster", [CGROUP_CLUSTER], indirect=True)
def test_without_constrain_cores_a_job_has_every_cpu(cluster, tmp_path):
    _, out, _ = run_job(cluster, tmp_path,
                        "grep Cpus_allowed_list /proc/self/status\n", "-n1")
    assert out == f"Cpus_allowed_list:\t{job_cpus(1 << 16)}\n", out


def job_cpu_ids(cluster, job):
    """CPU_IDs= of the job's one node in `scontrol -d show job`."""
    r = cluster.run("scontrol", "-d", "show", "job", job, check=True)
    m = re.search(r"^\s+Nodes=\S+ CPU_IDs=(\S+) ", r.stdout, re.M)
    assert m, r.stdout
    return m.group(1)


@pytest.mark.usefixtures("two_cpus")
@pytest.mark.parametrize("cluster", [CORES_CLUSTER], indirect=True)
def test_jobs_sharing_a_node_get_different_cpus(cluster, tmp_path):
    """The controller gives each job its own CPU ids on a shared node
    (ctld/cpu_ids.h): two one-CPU jobs get CPU_IDs=0 and 1, their
    cpusets are different real CPUs, a job started after the first ended
    takes its id again, and a restarted controller keeps them."""
    c = cluster
    have = sorted(os.sched_getaffinity(0))
    probe = ("grep Cpus_allowed_list /proc/self/status > {out}\n"
             "while [ ! -e {out}.stop ]; do sleep 0.2; done\n")
    jobs, outs = [], []
    for k in range(2):
        out = c.user_workdir("druser1") / f"cpus{k}.txt"
        outs.append(out)
        jobs.append(c.sbatch("-n1", "-o", "/dev/null", "--wrap",
                             probe.format(out=out), user="druser1"))
    for out in outs:
        c.wait_until(lambda: out.exists() and out.read_text(),
                     what=f"{out.name} written")
    assert [job_cpu_ids(c, j) for j in jobs] == ["0", "1"]
    assert [o.read_text() for o in outs] == [
        f"Cpus_allowed_list:\t{have[0]}\n", f"Cpus_allowed_list:\t{have[1]}\n"]
    c.kill("droverctld")  # kill -9: the ids come back from the journal
    c.start()
    assert [job_cpu_ids(c, j) for j in jobs] == ["0", "1"]
    # The first ends; a new job takes CPU 0 again, the second keeps 1.
    (outs[0].parent / (outs[0].name + ".stop")).write_text("")
    assert c.wait_job_done(jobs[0]) == "COMPLETED"
    third = c.sbatch("-n1", "-H", "--wrap", "true", user="druser1")
    c.run("scontrol", "release", third, check=True)
    c.wait_until(lambda: c.job_state(third) in ("RUNNING", "COMPLETED"),
                 what="the third job to start")
    if c.job_state(third) == "RUNNING":
        assert job_cpu_ids(c, third) == "0"
    (outs[1].parent / (outs[1].name + ".stop")).write_text("")
    assert c.wait_job_done(jobs[1]) == "COMPLETED"


MIG_PROBE = """\
echo given=$SLURM_JOB_GPUS visible=$CUDA_VISIBLE_DEVICES
/usr/bin/python3 - {dev} <<'EOF'
import os, sys
for name in ("nvidia0", "nvidia-cap1", "nvidia-cap2", "nvidia-cap3"):
    try:
        os.close(os.open(f"{{sys.argv[1]}}/{{name}}", os.O_RDONLY))
        print(f"{{name}} opened")
    except OSError as e:
        print(f"{{name}} {{e.strerror}}")
EOF
"""


@pytest.mark.parametrize("cluster", [dict(CGROUP_CLUSTER, gpus_per_node=3)],
                         indirect=True)
def test_mig_instances_share_their_parent_gpu_file(cluster, tmp_path):
    """MIG instances as gres.conf MultipleFiles= lines (the parent GPU's
    /dev/nvidia0 and each instance's capability file), typed by profile:
    a job gets its instance's files and the shared parent, the other
    instances' capability files are denied, and a job without a GPU is
    denied all of them."""
    require("cannot create fake GPU devices" not in cluster.last_up.stderr,
            "mknod is not permitted here (no CAP_MKNOD)")
    c = cluster
    dev = c.dir / "dev"
    c.down()
    c.conf.write_text(c.conf.read_text().replace(
        "Gres=gpu:3", "Gres=gpu:1g.10gb:2,gpu:2g.20gb:1"))
    (c.dir / "etc" / "gres.conf").write_text("".join(
        f"NodeName=node01 Name=gpu Type={t} "
        f"MultipleFiles={dev}/nvidia0,{dev}/nvidia-cap{i}\n"
        for i, t in ((1, "1g.10gb"), (2, "1g.10gb"), (3, "2g.20gb"))))
    # /dev/full, zero, random and kmsg's numbers: opens that work unless
    # the cgroup refuses them
    for name, minor in (("nvidia0", 7), ("nvidia-cap1", 5),
                        ("nvidia-cap2", 8), ("nvidia-cap3", 11)):
        path = dev / name
        if path.exists():
            path.unlink()
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    c.up()
    probe = MIG_PROBE.format(dev=dev)
    _, out, err = run_job(c, tmp_path, probe, "--gres=gpu:2g.20gb:1")
    assert out == ("given=2 visible=0\nnvidia0 opened\n"
                   "nvidia-cap1 Operation not permitted\n"
                   "nvidia-cap2 Operation not permitted\n"
                   "nvidia-cap3 opened\n"), (out, err)
    _, out, _ = run_job(c, tmp_path, probe, "--gres=gpu:1g.10gb:1")
    assert out == ("given=0 visible=0\nnvidia0 opened\n"
                   "nvidia-cap1 opened\n"
                   "nvidia-cap2 Operation not permitted\n"
                   "nvidia-cap3 Operation not permitted\n"), out
    _, out, _ = run_job(c, tmp_path, probe)
    assert out.count("Operation not permitted") == 4, out
