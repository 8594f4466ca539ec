# SPDX-License-Identifier: Apache-2.0
"""scontrol reconfigure (issue 13): droverctld reads slurm.conf and the
files beside it again; a change it reads where it uses it takes effect at
once, a change that needs a restart is refused by name with the reason and
nothing changes; an ordinary user is refused with Slurm's text
(slurm-golden/scontrol-reconfigure*)."""
import pytest

ONE = {"nodes": 1, "gpus_per_node": 0}


def reconfigure(c, **kw):
    return c.run("scontrol", "reconfigure", **kw)


@pytest.mark.parametrize("cluster", [ONE], indirect=True)
def test_reconfigure_applies_live_keys_and_refuses_the_rest(cluster,
                                                            test_user,
                                                            tmp_path):
    c = cluster
    # golden: an ordinary user, then root with nothing changed
    r = reconfigure(c, user=test_user)
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "slurm_reconfigure error: Invalid user id\n")
    r = reconfigure(c)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")

    original = c.conf.read_text()
    assert c.show_config("MaxArraySize") == "1001"
    r = c.run("sbatch", "-o", "/dev/null", "--array=1500-1501", "--wrap",
              "true", cwd=tmp_path)
    assert r.returncode != 0  # over MaxArraySize
    c.conf.write_text(original + "MaxArraySize=2000\n"
                      "PriorityWeightAge=777\nMinJobAge=600\n")
    r = reconfigure(c)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert c.show_config("MaxArraySize") == "2000"
    assert c.show_config("PriorityWeightAge") == "777"
    c.sbatch("-o", "/dev/null", "--array=1500-1501", "--wrap", "true",
             cwd=tmp_path)
    log = c.log_file("droverctld").read_text()
    for key in ("MaxArraySize", "PriorityWeightAge", "MinJobAge"):
        assert f"reconfigure: {key} changed" in log, log[-2000:]

    # a change that needs a restart: refused by name, nothing applied
    applied = c.conf.read_text()
    c.conf.write_text(applied.replace("MaxArraySize=2000",
                                      "MaxArraySize=3000")
                      + "MaxStepCount=123\nSlurmdPort=1\n"
                      "PartitionName=extra Nodes=ALL\n")
    r = reconfigure(c)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == (
        "slurm_reconfigure error: nothing changed; these changes need a "
        "restart:\n"
        "  SlurmdPort: read at start: restart the daemons that use it\n"
        "  PartitionName=extra: use scontrol "
        "update/create/delete partition, or restart droverctld\n"), r.stderr
    assert c.show_config("MaxArraySize") == "2000"
    assert c.show_config("MaxStepCount") != "123"
    # the file put right, the live change goes in
    c.conf.write_text(applied.replace("MaxArraySize=2000",
                                      "MaxArraySize=3000"))
    r = reconfigure(c)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert c.show_config("MaxArraySize") == "3000"
    # a bad line: the parser's message, nothing changed
    good = c.conf.read_text()
    c.conf.write_text(good + "MaxArraySize=lots\n")
    r = reconfigure(c)
    assert r.returncode == 1
    assert "MaxArraySize=lots" in r.stderr, r.stderr
    c.conf.write_text(good)  # (the commands read the file too)
    assert c.show_config("MaxArraySize") == "3000"
    # a file beside slurm.conf that droverd reads at its start
    cgroup = c.conf.parent / "cgroup.conf"
    was = cgroup.read_text()
    cgroup.write_text(was + "ConstrainSwapSpace=yes\n")
    r = reconfigure(c)
    assert (r.returncode, r.stderr) == (1, (
        "slurm_reconfigure error: nothing changed; these changes need a "
        "restart:\n  cgroup.conf: read by the daemons at start: restart "
        "them\n")), r.stderr
    cgroup.write_text(was)
    c.conf.write_text(original)
    assert reconfigure(c).returncode == 0
    assert c.show_config("MaxArraySize") == "1001"


@pytest.mark.parametrize("cluster", [{"nodes": 2, "gpus_per_node": 0}],
                         indirect=True)
def test_reconfigure_reaches_the_nodes(cluster, tmp_path):
    """Prolog, TaskProlog and SlurmdDebug are droverd's: after a
    reconfigure each droverd reads its slurm.conf again and the next job
    runs by the new values."""
    c = cluster
    marks = tmp_path / "marks"
    marks.mkdir()
    marks.chmod(0o777)
    prolog = c.dir / "etc" / "prolog.sh"
    prolog.write_text(f"#!/bin/sh\ntouch {marks}/prolog-$SLURM_JOB_ID\n")
    task_prolog = c.dir / "etc" / "task_prolog.sh"
    task_prolog.write_text("#!/bin/sh\necho export FROM_TASK_PROLOG=yes\n")
    for p in (prolog, task_prolog):
        p.chmod(0o755)
    # the batch script is a task too (TaskProlog runs before it, as in
    # Slurm), and so is each srun task
    show = ("echo batch=${FROM_TASK_PROLOG:-no}; "
            "srun sh -c 'echo step=${FROM_TASK_PROLOG:-no}'")
    before = c.sbatch("-o", str(tmp_path / "before.out"), "--wrap", show,
                      cwd=tmp_path)
    assert c.wait_job_done(before) == "COMPLETED"
    assert (tmp_path / "before.out").read_text() == "batch=no\nstep=no\n"
    assert not (marks / f"prolog-{before}").exists()

    original = c.conf.read_text()
    c.conf.write_text(original + f"Prolog={prolog}\n"
                      f"TaskProlog={task_prolog}\nSlurmdDebug=debug\n")
    r = reconfigure(c)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    for node in ("node01", "node02"):
        c.wait_until(lambda: "reconfigure: TaskProlog changed" in
                     c.log_file(node).read_text(), 30,
                     f"{node} to read slurm.conf again")
    after = c.sbatch("-o", str(tmp_path / "after.out"), "--wrap", show,
                     cwd=tmp_path)
    assert c.wait_job_done(after) == "COMPLETED"
    assert (tmp_path / "after.out").read_text() == "batch=yes\nstep=yes\n"
    assert (marks / f"prolog-{after}").exists()
    c.conf.write_text(original)
    assert reconfigure(c).returncode == 0
