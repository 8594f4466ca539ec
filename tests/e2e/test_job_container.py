# SPDX-License-Identifier: Apache-2.0
"""JobContainerType=job_container/tmpfs with job_container.conf: each job
gets a private /tmp and /dev/shm in a mount namespace that its batch
script and every srun step join; other jobs on the node and the host do
not see them, and the job's directory under BasePath goes at its end.

The cluster lives under /var/tmp, not /tmp: a job's /tmp is private, so a
cluster (its slurm.conf, the jobs' working directories) under /tmp would
be hidden from its own jobs, as on a Slurm cluster.
"""
import os
import re
import shutil
import subprocess
import stat
import tempfile
import uuid
from pathlib import Path

import pytest

from cluster import Cluster, wait_until


@pytest.fixture
def jc_cluster(test_users):
    root = Path(tempfile.mkdtemp(prefix="drover-e2e-jc-", dir="/var/tmp"))
    os.chmod(root, 0o755)
    base = root / "jc"
    etc = root / "cluster" / "etc"
    c = Cluster(root, nodes=2, gpus_per_node=0)
    try:
        c.up()
        c.down()
        (etc / "job_container.conf").write_text(
            f"AutoBasePath=true\nBasePath={base}\n")
        with open(etc / "slurm.conf", "a") as f:
            f.write("JobContainerType=job_container/tmpfs\n")
        c.up()
        c.wait_nodes_idle()
        visible_commands(c, root)
        yield c, base
    finally:
        try:
            c.down()
        finally:
            unmount_bases(base)
            shutil.rmtree(root, ignore_errors=True)


def unmount_bases(base):
    """droverd leaves BasePath/<node> mounted when it stops (as slurmd
    does: the next start finds it mounted); the test's own go."""
    for node in sorted(base.glob("*")) if base.exists() else ():
        subprocess.run(["umount", "-l", str(node)], capture_output=True)


def visible_commands(c, root):
    """A build under /tmp (a checkout there) is hidden from the jobs by
    their private /tmp: give them a copy of the commands (statically
    linked to Drover's libraries) on a path they see, first on PATH."""
    if not str(c.bin_dir.resolve()).startswith("/tmp/"):
        return
    bin_copy = root / "bin"
    bin_copy.mkdir(mode=0o755)
    for cmd in c.bin_dir.iterdir():
        if cmd.is_file() and os.access(cmd, os.X_OK):
            shutil.copy2(cmd, bin_copy / cmd.name)
    c.env["PATH"] = f"{bin_copy}:{c.env['PATH']}"
    c.bin_dir = bin_copy  # what the fixture's "our binaries" check expects


def job_dir(base, node, job):
    return base / node / str(job)


@pytest.mark.needs_root
def test_private_tmp_and_shm_per_job(jc_cluster):
    c, base = jc_cluster
    tag = uuid.uuid4().hex
    work = c.workdir
    release = work / f"release-{tag}"
    script = work / f"job1-{tag}.sh"
    victim = work / f"victim-{tag}"
    victim.mkdir()
    (victim / "keep").write_text("keep")
    script.write_text(
        "#!/bin/bash\n"
        f"ln -s {victim} /tmp/link-{tag}; mkdir /tmp/d; "
        f"ln -s {victim}/keep /tmp/d/keep-link\n"
        f"echo batch-{tag} > /tmp/x-{tag}\n"
        f"echo shm-{tag} > /dev/shm/y-{tag}\n"
        "stat -c 'tmp %U %a' /tmp\n"
        f"srun cat /tmp/x-{tag} /dev/shm/y-{tag}\n"
        f"srun sh -c 'echo step-{tag} >> /tmp/x-{tag}'\n"
        f"cat /tmp/x-{tag}\n"
        f"touch {work}/ready-{tag}\n"
        f"while [ ! -e {release} ]; do sleep 0.2; done\n")
    script.chmod(0o755)
    out1 = work / f"out1-{tag}.txt"
    job1 = c.sbatch("-w", "node01", "-n1", "-o", str(out1), str(script),
                    user="druser1", cwd=work)
    wait_until(lambda: (work / f"ready-{tag}").exists(), 60,
               "job 1 to write its /tmp and /dev/shm")

    # The job's directory: root's, with the user's /tmp in it.
    jd = job_dir(base, "node01", job1)
    st = jd.stat()
    assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700
    tmp = jd / f".{job1}"
    st = tmp.stat()
    assert st.st_uid == Path(c.user_workdir("druser1")).stat().st_uid
    assert stat.S_IMODE(st.st_mode) == 0o700
    assert (tmp / f"x-{tag}").read_text() == f"batch-{tag}\nstep-{tag}\n", \
        out1.read_text() if out1.exists() else "no output file"
    # The host's /tmp and /dev/shm do not have them.
    assert not Path(f"/tmp/x-{tag}").exists()
    assert not Path(f"/dev/shm/y-{tag}").exists()

    # Another job on the same node sees its own, empty /tmp and /dev/shm.
    out2 = work / f"out2-{tag}.txt"
    listing = 'echo "tmp=[$(ls -A /tmp)] shm=[$(ls -A /dev/shm)]"'
    job2 = c.sbatch("-w", "node01", "-n1", "-o", str(out2), "--wrap",
                    f"{listing}; srun sh -c '{listing}'; "
                    f"cat /tmp/x-{tag} || echo no-x",
                    user="druser2", cwd=work)
    c.wait_job_state(job2, ["COMPLETED"], timeout=60)
    text2 = out2.read_text()
    assert text2.count("tmp=[] shm=[]\n") == 2, text2
    assert text2.endswith("No such file or directory\nno-x\n"), text2
    wait_until(lambda: not job_dir(base, "node01", job2).exists(), 30,
               "job 2's container removed at its end")

    release.touch()
    c.wait_job_state(job1, ["COMPLETED"], timeout=60)
    text1 = out1.read_text()
    assert "tmp druser1 700" in text1, text1
    assert f"batch-{tag}\nshm-{tag}\n" in text1, text1
    assert text1.count(f"step-{tag}") == 1, text1
    wait_until(lambda: not jd.exists(), 30,
               "job 1's container removed at its end")
    # droverd renames a job's container to .trash.* and a child of its
    # removes that: wait for it.
    def left():
        return [p.name for p in (base / "node01").iterdir()
                if not p.name.startswith(".drover")]
    wait_until(lambda: left() == [], 30, "node01's base emptied of .trash.*")
    # Links the job left in its /tmp were removed, not followed.
    assert (victim / "keep").read_text() == "keep"


@pytest.mark.needs_root
def test_srun_job_steps_share_the_container(jc_cluster):
    """An srun job (no batch script): its steps run in the job's
    container; two nodes, each with its own."""
    c, base = jc_cluster
    cfg = c.run("scontrol", "show", "config", check=True).stdout
    assert re.search(r"^JobContainerType\s+= job_container/tmpfs$", cfg,
                     re.M), cfg
    r = c.run("srun", "-N2", "-l", "sh", "-c",
              'echo "$SLURMD_NODENAME" > /tmp/who; cat /tmp/who; '
              "stat -c %U /tmp; ls -A /dev/shm | wc -l",
              user="druser1", cwd=c.workdir, check=True)
    lines = sorted(r.stdout.split("\n"))
    assert [l for l in lines if l] == sorted(
        ["0: node01", "0: druser1", "0: 0", "1: node02", "1: druser1",
         "1: 0"]), r.stdout
    assert not Path("/tmp/who").exists() or \
        Path("/tmp/who").read_text().strip() not in ("node01", "node02")
    wait_until(lambda: all(not any(p.name[0].isdigit()
                                   for p in (base / n).iterdir())
                           for n in ("node01", "node02")), 30,
               "the containers removed once the step ended")


@pytest.mark.needs_root
def test_basepath_in_dirs_is_refused(jc_cluster):
    c, base = jc_cluster
    c.down()
    etc = c.dir / "etc"
    (etc / "job_container.conf").write_text(
        "AutoBasePath=true\nBasePath=/tmp/jc\n")
    r = c.drover_cmd("up")
    assert r.returncode != 0
    # `drover up` fails on the first droverd it finds exited, which may be
    # node02's: node01's may write its reason a moment later
    c.wait_until(lambda: re.search(
        r"BasePath /tmp/jc/node01 cannot also be in Dirs",
        c.log_file("node01").read_text()), 10,
        "node01's droverd naming BasePath in its log")
