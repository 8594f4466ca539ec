# SPDX-License-Identifier: Apache-2.0
"""What the node daemons (root) write for jobs can't be turned against root
(issue 19, finding 1): the batch spool directory is droverd's, made afresh
for each run and removed whole at the end; a name planted in its place is
removed, never written through; the OOM line goes to the job's stderr as
the job's user."""

import base64
import json
import os
import random
import socket
import struct
import subprocess
import time

import pytest

from cluster import ClusterError, binary

pytestmark = pytest.mark.needs_root

VICTIM_TEXT = "root's file: must not change\n"


def victim(cluster):
    """A root-owned file (mode 0644) that an attack would overwrite."""
    path = cluster.root / "victim"
    path.write_text(VICTIM_TEXT)
    os.chmod(path, 0o644)
    return path


def assert_untouched(path):
    st = path.lstat()
    assert path.read_text() == VICTIM_TEXT
    assert (st.st_uid, st.st_gid) == (0, 0)


def job_dir(cluster, node, job):
    return cluster.dir / "spool" / node / f"job{int(job):05d}"


def wait_done(cluster, job):
    cluster.wait_job_state(job, ["COMPLETED", "FAILED"], timeout=60)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_user_cannot_plant_a_link_for_a_requeued_run(cluster, test_user):
    """The attack as reported: the job leaves a file in its spool
    directory so the directory outlives the job, the user plants
    slurm_script -> a root file and requeues: droverd must not write the
    script through the link."""
    target = victim(cluster)
    work = cluster.user_workdir(test_user)
    script = work / "plant.sh"
    script.write_text("#!/bin/bash\n"
                      "d=$(dirname \"$0\")\n"
                      "ls -ld \"$d\"\n"
                      "touch \"$d/keep\" && echo planted || echo refused\n")
    os.chown(script, *_ids(test_user))
    job = cluster.sbatch("-o", "out.%j", str(script), user=test_user, cwd=work)
    wait_done(cluster, job)
    out = (work / f"out.{job}").read_text()
    assert "refused" in out, out
    # The spool directory is droverd's: reachable, not writable, by users.
    mode_line = out.splitlines()[0]
    assert mode_line.startswith("drwx--x--x") and " root root " in mode_line, out
    d = job_dir(cluster, "node01", job)
    cluster.wait_until(lambda: not d.exists(), timeout=10,
                       what=f"{d} removed at job end")

    # With no directory left, the user cannot make one in the spool.
    r = cluster.run("bash", "-c", f"mkdir -p {d} && ln -s {target} "
                    f"{d}/slurm_script", user=test_user)
    assert r.returncode != 0, "a user wrote in SlurmdSpoolDir"

    cluster.run("scontrol", "requeue", job, user=test_user, check=True)
    cluster.wait_until(lambda: cluster.job_field(job, "Restarts") == "1",
                       timeout=30, what="Restarts=1 after requeue")
    wait_done(cluster, job)
    assert cluster.job_state(job) == "COMPLETED"
    assert_untouched(target)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_job_dir_already_there_is_replaced_not_followed(cluster, test_user):
    """Whatever is at spool/jobNNNNN when a run starts (a user's directory
    with slurm_script -> a root file, as an older droverd left it) is
    removed and made afresh: the root file keeps its text and owner."""
    target = victim(cluster)
    work = cluster.user_workdir(test_user)
    job = cluster.sbatch("-H", "-o", "out.%j", "--wrap", "echo ran", user=test_user,
                         cwd=work)
    d = job_dir(cluster, "node01", job)
    uid, gid = _ids(test_user)
    d.mkdir()
    os.chown(d, uid, gid)
    (d / "slurm_script").symlink_to(target)
    (d / "sub").mkdir()
    (d / "sub" / "escape").symlink_to(cluster.root)
    os.lchown(d / "slurm_script", uid, gid)
    cluster.run("scontrol", "release", job, check=True)
    wait_done(cluster, job)
    assert cluster.job_state(job) == "COMPLETED"
    assert (work / f"out.{job}").read_text() == "ran\n"
    assert_untouched(target)
    assert cluster.root.is_dir(), "removal followed a link out of the spool"
    cluster.wait_until(lambda: not d.exists(), timeout=10,
                       what=f"{d} removed at job end")


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_spool_writable_by_others_is_refused(cluster):
    """droverd will not run as root in a spool directory others can
    write: it says so and exits."""
    spool = cluster.dir / "spool" / "node02"
    cluster.kill("droverd", node="node02")
    os.chmod(spool, 0o777)
    r = cluster.run(binary("droverd"), "-D", "-f",
                    cluster.dir / "etc" / "slurm.conf", "-N", "node02",
                    timeout=30)
    assert r.returncode != 0
    assert f"SlurmdSpoolDir {spool} is writable by others" in r.stderr + r.stdout
    os.chmod(spool, 0o755)


def _ids(user):
    import pwd
    pw = pwd.getpwnam(user)
    return pw.pw_uid, pw.pw_gid


# --- srun's I/O port (finding 2) ----------------------------------------

def _srun_listen_ports(user, parent=None):
    """Ports the user's srun processes (only the one started as 'parent' or
    by it, when given) listen on: what any local user can read in
    /proc/net/tcp and ss."""
    uid = _ids(user)[0]
    inodes = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm").read().strip() != "srun":
                continue
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            ppid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1]
                       .split()[1])
            if parent is not None and parent not in (int(pid), ppid):
                continue
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    ports = []
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        f = line.split()
        if f[3] == "0A" and f[9] in inodes:  # LISTEN
            addr, port = f[1].split(":")
            ports.append((socket.inet_ntoa(struct.pack("<I", int(addr, 16))),
                          int(port, 16)))
    return ports


def _frame(obj):
    data = json.dumps(obj).encode()
    return struct.pack(">I", len(data)) + data


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_srun_io_port_refuses_other_users(cluster, test_users):
    """Another user connects to a victim's srun I/O port as if it were the
    step's node: forged output, a forged exit 0 and a forged MPI abort
    are dropped unread, the victim's stdin never reaches the attacker, and
    srun reports the task's real exit code."""
    victim_user, _ = test_users
    p = subprocess.Popen(
        ["runuser", "-u", victim_user, "--", "env",
         *[f"{k}={v}" for k, v in cluster.env.items()],
         str(cluster.which("srun")), "-N1", "-n1", "bash", "-c",
         "read line; echo got:$line; sleep 2; exit 3"],
        cwd=cluster.user_workdir(victim_user), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = []
        cluster.wait_until(
            lambda: ports.extend(_srun_listen_ports(victim_user, p.pid))
            or ports, timeout=20, what="srun listening")
        host, port = ports[0]
        assert host != "0.0.0.0", "srun listens on every address"
        attacker = socket.create_connection((host, port), timeout=5)
        attacker.sendall(
            _frame({"node": "node01", "ranks": [0], "node_index": 0})
            + _frame({"task": 0, "stream": "out",
                      "data": base64.b64encode(b"FORGED\n").decode()})
            + _frame({"abort": 7})
            + _frame({"task": 0, "exit": 0, "node": "node01"}))
        time.sleep(0.5)
        out, err = p.communicate("secret\n", timeout=60)
        attacker.settimeout(5)
        leaked = b""
        try:
            while chunk := attacker.recv(65536):
                leaked += chunk
        except OSError:
            pass
        attacker.close()
    finally:
        if p.poll() is None:
            p.kill()
    assert "FORGED" not in out
    assert "got:secret" in out, (out, err)
    assert b"secret" not in leaked and b"c2VjcmV0" not in leaked
    assert p.returncode == 3, (out, err)
    assert "dropped an I/O connection that did not authenticate" in err


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_step_create_without_io_key_is_refused(cluster, test_user):
    """The controller launches no step whose srun gave no I/O key: a node
    would connect to an srun that cannot tell it from an intruder."""
    job = cluster.sbatch("--wrap", "sleep 60", user=test_user)
    cluster.wait_job_state(job, ["RUNNING"], timeout=30)
    body = {"job_id": int(job), "argv": ["true"], "env": [], "cwd": "/tmp",
            "io_port": 9, "label": False}
    with pytest.raises(ClusterError):
        cluster.rpc("step_create", body, user=test_user)
    cluster.run("scancel", job, check=True)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_node_daemons_survive_attacked_sessions(cluster, test_users):
    """A soak of the paths where droverd once corrupted its heap (seen once
    on 89dbd3f, not under ASan): srun sessions attacked with garbage and
    forged frames, their jobs cancelled mid-step, batch jobs cancelled and
    requeued.  The node daemons keep their pids and their heaps (under
    the sanitizer build the fixture fails the test on any report), and the
    cluster still runs jobs."""
    victim_user, _ = test_users
    pids = {n: cluster.pid(n) for n in ("node01", "node02")}
    env = [f"{k}={v}" for k, v in cluster.env.items()]
    rng = random.Random(19)
    for round_ in range(12):
        p = subprocess.Popen(
            ["runuser", "-u", victim_user, "--", "env", *env,
             str(cluster.which("srun")), "-N2", "-n4", "sleep", "30"],
            cwd=cluster.user_workdir(victim_user), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ports = []
        cluster.wait_until(
            lambda: ports.extend(_srun_listen_ports(victim_user, p.pid))
            or ports, timeout=20, what="srun listening")
        socks = []
        for kind in range(3):
            s = socket.create_connection(ports[0], timeout=5)
            if kind == 0:
                s.sendall(bytes(rng.getrandbits(8) for _ in range(4096)))
            elif kind == 1:
                s.sendall(struct.pack(">I", 1 << 30) + b"{" * 1000)
            else:
                s.sendall(_frame({"node": "node01", "ranks": [0, 1],
                                  "node_index": 0, "io_key": "0" * 64}))
            socks.append(s)
        batch = cluster.sbatch("--requeue", "-N1", "--wrap", "srun sleep 30",
                               user=victim_user)
        time.sleep(0.3 * (round_ % 3))
        cluster.run("scontrol", "requeue", batch)
        cluster.run("scancel", "-u", victim_user, check=True)
        p.communicate(timeout=60)
        for s in socks:
            s.close()
    for node, pid in pids.items():
        assert cluster.pid(node) == pid, f"{node}'s droverd restarted"
    cluster.wait_nodes_idle(timeout=60)
    job = cluster.sbatch("-N2", "--wrap", "srun hostname", user=victim_user)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_controller_does_not_write_its_pid_file_through_a_link(cluster):
    """A link planted where SlurmctldPidFile goes (a directory others can
    write, as /tmp is) is not followed by the controller running as root:
    the file it points to keeps its text and owner, and the pid file is
    written under a fresh name and renamed over the link (so that a
    reader never finds it empty either)."""
    target = victim(cluster)
    pidfile = cluster.pidfile("droverctld")
    pid = cluster.pid("droverctld")
    argv = [a for a in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            if a]
    cluster.kill("droverctld")
    pidfile.unlink()
    pidfile.symlink_to(target)
    with open(cluster.log_file("droverctld"), "ab") as log:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=log, start_new_session=True)
    try:
        cluster.wait_until(lambda: _pings(cluster), timeout=30,
                           what="the controller answering")
        assert_untouched(target)
        assert not pidfile.is_symlink()
        assert pidfile.read_text() == f"{p.pid}\n"
        assert not list(pidfile.parent.glob(pidfile.name + ".*"))
    finally:
        if pidfile.is_symlink():
            pidfile.unlink()
        pidfile.write_text(f"{p.pid}\n")


def _pings(cluster):
    try:
        return cluster.rpc("ping") is not None
    except (ClusterError, OSError):
        return False


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_jobs_inherit_no_daemon_descriptor(cluster, tmp_path):
    """The batch script and srun's tasks start with stdin, stdout and
    stderr only: no socket, pipe or file of droverd or droverstepd
    (root's) is left open to the user's processes (the shell's own
    descriptor of the script it reads aside)."""
    script = tmp_path / "fds.sh"
    script.write_text("#!/bin/bash\n"
                      f"ls -l /proc/$$/fd > {tmp_path}/batch.fds\n"
                      "srun bash -c 'ls -l /proc/$$/fd; true' > "
                      f"{tmp_path}/task.fds\n")
    job = cluster.sbatch("-o", "/dev/null", str(script), cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=60)

    def extra(name):
        """fd -> target of the descriptors above stderr."""
        fds = {}
        for line in (tmp_path / name).read_text().splitlines():
            if " -> " in line:
                fd, target = line.split(" -> ")
                if int(fd.split()[-1]) > 2:
                    fds[int(fd.split()[-1])] = target
        return fds

    batch = extra("batch.fds")
    assert all(t.endswith("slurm_script") for t in batch.values()), batch
    assert extra("task.fds") == {}
