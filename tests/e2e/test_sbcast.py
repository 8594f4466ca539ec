# SPDX-License-Identifier: Apache-2.0
"""sbcast (issue 13): a file copied to every node of a running job, written
by each node as the job's user, with Slurm's options, messages and exit
statuses (golden sbcast-salloc-N2, sbcast-salloc-N2-force, help-sbcast,
usage-sbcast).  The cluster's nodes share this host's file system, so the
second node finds the file the first one wrote, as in the golden runs."""
import os
import pwd
import re
from pathlib import Path

import pytest
from cluster import REPO, require

GOLDEN = REPO / "tests" / "unit" / "data" / "slurm-golden"

TEXT = "hello from sbcast\n"


def source_file(c, user, mode=0o644):
    """A file of 'user' holding TEXT, in their work directory."""
    src = c.user_workdir(user) / "f"
    src.write_text(TEXT)
    pw = pwd.getpwnam(user)
    os.chown(src, pw.pw_uid, pw.pw_gid)
    os.chmod(src, mode)
    return src


def salloc(c, user, shell, nodes=2):
    return c.run("salloc", f"-N{nodes}", "bash", "-c", shell, user=user,
                 timeout=120)


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sbcast_copies_to_each_node_as_the_user(cluster, test_user):
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    source_file(c, test_user)
    dest = c.user_workdir(test_user) / "copy"
    r = salloc(c, test_user, f"sbcast -f f {dest} && srun -N2 cat {dest}")
    assert r.returncode == 0, r.stderr
    assert r.stdout == TEXT * 2
    st = dest.stat()
    assert st.st_uid == pwd.getpwnam(test_user).pw_uid
    assert st.st_mode & 0o7777 == 0o700  # as slurmd creates it

    # Without -f the second node finds the first one's file: Slurm's line
    # and EEXIST (17) as the exit status, passed on by bash and salloc.
    dest.unlink()
    r = salloc(c, test_user, f"sbcast f {dest} && srun -N2 cat {dest}")
    assert r.returncode == 17, r.stderr
    assert re.search(r"^sbcast: error: REQUEST_FILE_BCAST\(node0[12]\): "
                     r"File exists$", r.stderr, re.M), r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sbcast_preserve_and_blocks(cluster, test_user):
    """-p keeps the source's mode and times; -s cuts the file in blocks
    that land at their offsets; a relative DEST is the current
    directory's."""
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    src = source_file(c, test_user, mode=0o640)
    big = bytes(range(256)) * 4099  # not a multiple of the block size
    src.write_bytes(big)
    os.utime(src, (1000000000, 1000000000))
    r = salloc(c, test_user, "sbcast -p -f -s 64k f copy2")
    assert r.returncode == 0, r.stderr
    dest = c.user_workdir(test_user) / "copy2"
    assert dest.read_bytes() == big
    st = dest.stat()
    assert st.st_mode & 0o7777 == 0o640
    assert int(st.st_mtime) == 1000000000


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_sbcast_writes_only_what_the_user_may(cluster, test_users):
    """Each node writes as the job's user: a path only root may write is
    refused (EACCES, 13), and another user cannot write into the job."""
    c = cluster
    require(os.geteuid() == 0, "runs jobs as test users")
    owner, other = test_users[0], test_users[1]
    source_file(c, owner)
    source_file(c, other)
    forbidden = Path("/root") / f"drover-sbcast-{os.getpid()}"
    r = salloc(c, owner, f"sbcast -f f {forbidden}")
    assert r.returncode == 13, r.stderr
    assert re.search(r"REQUEST_FILE_BCAST\(node0[12]\): Permission denied",
                     r.stderr), r.stderr
    assert not forbidden.exists()
    # a FIFO (or a device) as DEST: refused at once, nothing waits on it
    fifo = c.user_workdir(owner) / "fifo"
    r = c.run("mkfifo", str(fifo), user=owner)
    r = salloc(c, owner, f"sbcast -f f {fifo}")
    assert r.returncode == 6, r.stderr  # ENXIO: a FIFO without a reader
    assert "No such device or address" in r.stderr, r.stderr

    job = c.sbatch("-N2", "-o", "/dev/null", "--wrap", "sleep 60",
                   user=owner)
    c.wait_job_state(job, ("RUNNING",))
    dest = c.user_workdir(other) / "theirs"
    r = c.run("sbcast", "-j", job, "f", str(dest), user=other)
    assert r.returncode != 0
    assert "REQUEST_FILE_BCAST(node0" in r.stderr, r.stderr
    assert not dest.exists()
    c.run("scancel", job, check=True)


def test_sbcast_needs_a_job_and_prints_slurms_help(cluster, test_user):
    c = cluster
    r = c.run("sbcast", "f", "/tmp/x", user=test_user)
    assert r.returncode == 1
    assert r.stderr == ("sbcast: error: Need a job id to run this command.  "
                        "Run from within a Slurm job or use the --jobid "
                        "option.\n")
    for args, golden in ((["--help"], "help-sbcast"),
                         (["--usage"], "usage-sbcast")):
        r = c.run("sbcast", *args)
        assert r.returncode == 0
        assert r.stdout == (GOLDEN / f"{golden}.stdout").read_text()
    r = c.run("sbcast", "--send-libs", "-j", "1", "f", "/tmp/x")
    assert r.returncode == 1 and "not supported" in r.stderr
    r = c.run("sbcast", "-Czstd", "-j", "1", "f", "/tmp/x")
    assert r.returncode == 1 and "Invalid compression library" in r.stderr


# BcastParameters: Compression=lz4 makes sbcast compress by default (as
# -C), DestDir= is where a relative DEST goes.
BCAST_CONF = {"nodes": 2,
              "up_args": ["--conf-extra=BcastParameters=DestDir=/tmp,"
                          "Compression=lz4"]}


@pytest.mark.parametrize("cluster", [BCAST_CONF], indirect=True)
def test_sbcast_compresses_and_uses_destdir(cluster, test_user):
    c = cluster
    require(os.geteuid() == 0, "runs jobs as a test user")
    src = source_file(c, test_user)
    text = "".join(f"line {i} of a file lz4 shrinks\n" for i in range(40000))
    src.write_text(text)
    name = f"drover-sbcast-{os.getpid()}-{c.ctld_port}"
    dest = Path("/tmp") / name
    try:
        r = salloc(c, test_user, f"sbcast -v -f -s 100k f {name} && "
                                 f"srun -N2 md5sum /tmp/{name}")
        assert r.returncode == 0, r.stderr
        assert "sbcast: compress   = lz4" in r.stderr
        assert dest.read_text() == text
        sums = {line.split()[0] for line in r.stdout.splitlines()}
        assert len(sums) == 1 and len(r.stdout.splitlines()) == 2
        # --compress=none overrides the configured compression
        r = salloc(c, test_user, f"sbcast -v --compress=none -f f {name}")
        assert r.returncode == 0, r.stderr
        assert "sbcast: compress   = none" in r.stderr
        assert dest.read_text() == text
    finally:
        if dest.exists():
            dest.unlink()
