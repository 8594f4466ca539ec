# SPDX-License-Identifier: Apache-2.0
"""MPI across the local cluster (issue 4): Open MPI's ranks get their
world from droverd's PMIx server under `srun --mpi=pmix`, and from its own
daemons (launched with srun) under `mpirun`.  Jobs run as an ordinary user:
Open MPI refuses root."""
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from cluster import require

HERE = Path(__file__).resolve().parent

@pytest.fixture(autouse=True)
def mpicc_installed():
    require(shutil.which("mpicc"), "mpicc (Open MPI) is not installed")

# Every fake node of the local cluster is the same real host: Open MPI's
# shared-memory BTL names its segments by real host name and local rank,
# so ranks of node01 and node02 would share segments.  TCP over the
# loopback works (docs/compatibility.md).
OMPI_ONE_HOST = ("export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo\n")

EXPECTED = sorted(f"rank {r} of 4 on node0{r // 2 + 1} sum 6"
                  for r in range(4))


@pytest.fixture
def mpi_user(cluster, make_user):
    """(user, workdir holding mpi_hello built with mpicc)."""
    user = make_user("drmpi1")
    work = cluster.user_workdir(user)
    exe = work / "mpi_hello"
    subprocess.run(["mpicc", "-o", str(exe), str(HERE / "data" / "mpi_hello.c")],
                   check=True, timeout=120)
    pw = __import__("pwd").getpwnam(user)
    os.chown(exe, pw.pw_uid, pw.pw_gid)
    return user, work


def run_as(cluster, user, work, script, *args, states=("COMPLETED",)):
    path = work / "job.sh"
    path.write_text("#!/bin/bash\n" + OMPI_ONE_HOST + script)
    path.chmod(0o755)
    job = cluster.sbatch("-D", str(work), "-o", "out.txt", "-e", "err.txt",
                         *args, str(path), user=user)
    cluster.wait_job_state(job, list(states), timeout=90)
    return ((work / "out.txt").read_text(), (work / "err.txt").read_text())


@pytest.mark.parametrize("mpi", ["pmix", "pmix_v4"])
def test_srun_mpi_pmix_runs_one_world(cluster, mpi_user, mpi):
    user, work = mpi_user
    out, err = run_as(cluster, user, work,
                      f"srun --mpi={mpi} ./mpi_hello\n", "-N2", "-n4")
    assert sorted(out.splitlines()) == EXPECTED, (out, err)


def test_srun_mpi_abort_kills_the_step(cluster, mpi_user):
    user, work = mpi_user
    out, err = run_as(cluster, user, work,
                      "srun --mpi=pmix ./mpi_hello abort; echo rc=$?\n",
                      "-N2", "-n4")
    assert out.splitlines()[-1] != "rc=0", (out, err)
    assert "task 1: MPI_Abort with status 3; killing the step" in err, err


def test_srun_without_mpi_gives_open_mpi_no_pmix(cluster, mpi_user):
    """--mpi=none (the default, MpiDefault=none): no PMIx server, and
    Open MPI refuses a direct launch without one, as under Slurm."""
    user, work = mpi_user
    out, err = run_as(cluster, user, work, "srun ./mpi_hello\n", "-N2", "-n4",
                      states=("FAILED",))
    assert out == ""
    assert 'direct launched using "srun"' in err, err


def test_srun_bad_mpi_type_starts_nothing(cluster, mpi_user):
    user, work = mpi_user
    out, err = run_as(cluster, user, work,
                      "srun --mpi=foo ./mpi_hello; echo rc=$?\n", "-N2", "-n4")
    assert out == "rc=1\n"
    assert err.splitlines()[-1] == (
        "srun: error: Invalid MPI type 'foo', --mpi=list for acceptable types")


def test_srun_mpi_list_needs_no_job(cluster):
    r = cluster.run("srun", "--mpi=list")
    assert (r.returncode, r.stdout) == (0, "MPI plugin types are...\n\tnone\n"
                                        "\tpmix\nspecific pmix plugin versions "
                                        "available: pmix_v4\n")


def test_mpirun_inside_sbatch(cluster, mpi_user):
    user, work = mpi_user
    out, err = run_as(cluster, user, work, "mpirun ./mpi_hello\n",
                      "-N2", "-n4")
    assert sorted(out.splitlines()) == EXPECTED, (out, err)


def mpi_layout(out):
    """{node: [ranks]} from 'rank R of S on NODE sum X procid P local L'
    lines, checking each line's own claims on the way: the MPI rank is
    SLURM_PROCID, the world is 4 with sum 6, and the ranks MPI counts as
    on the same node (from PMIx's map) are exactly those the node ran."""
    nodes, local = {}, {}
    for line in out.splitlines():
        w = line.split()
        rank, size, node, total, procid = (int(w[1]), int(w[3]), w[5],
                                           int(w[7]), int(w[9]))
        assert (size, total, procid) == (4, 6, rank), line
        nodes.setdefault(node, []).append(rank)
        local[rank] = sorted(int(r) for r in w[11].split(","))
    nodes = {n: sorted(r) for n, r in nodes.items()}
    for ranks in nodes.values():
        for r in ranks:
            assert local[r] == ranks, (out, r)
    return nodes


@pytest.mark.parametrize("dist,want", [
    ("cyclic", {"node01": [0, 2], "node02": [1, 3]}),
    ("plane=1", {"node01": [0, 2], "node02": [1, 3]}),
])
def test_srun_mpi_pmix_follows_the_distribution(cluster, mpi_user, dist,
                                                want):
    user, work = mpi_user
    out, err = run_as(cluster, user, work,
                      f"srun --mpi=pmix -m {dist} ./mpi_hello local\n",
                      "-N2", "-n4")
    assert mpi_layout(out) == want, (out, err)


def test_srun_mpi_pmix_block_map(cluster, mpi_user):
    user, work = mpi_user
    out, err = run_as(cluster, user, work,
                      "srun --mpi=pmix -m block ./mpi_hello local\n",
                      "-N2", "-n4")
    assert mpi_layout(out) == {"node01": [0, 1], "node02": [2, 3]}, (out, err)


def test_srun_sends_step_frames_only_to_the_step_nodes(cluster, mpi_user):
    """A connection to srun's I/O port that never said the step's hello
    (anyone may connect) gets none of the frames srun sends every node:
    not the PMIx fence answers, not the MPI abort."""
    from test_security_node import _srun_listen_ports
    user, work = mpi_user
    path = work / "job.sh"
    path.write_text("#!/bin/bash\n" + OMPI_ONE_HOST
                    + "srun --mpi=pmix bash -c 'sleep 3; exec ./mpi_hello "
                      "abort'\n")
    path.chmod(0o755)
    job = cluster.sbatch("-D", str(work), "-o", "out.txt", "-e", "err.txt",
                         "-N2", "-n4", str(path), user=user)
    ports = []
    cluster.wait_until(lambda: ports.extend(_srun_listen_ports(user))
                       or ports, timeout=60, what="srun listening")
    got = b""
    with socket.create_connection(ports[0], timeout=5) as s:
        s.settimeout(30)  # srun drops it after 10 s without a hello
        try:
            while chunk := s.recv(65536):
                got += chunk
        except OSError:
            pass
    cluster.wait_job_state(job, ["COMPLETED", "FAILED"], timeout=90)
    err = (work / "err.txt").read_text()
    assert "MPI_Abort with status 3; killing the step" in err, err
    assert got == b"", got[:200]
