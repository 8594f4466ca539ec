# SPDX-License-Identifier: Apache-2.0
"""slurm.conf Prolog= and Epilog=, run by droverd as root on each node of
a job: the Prolog before the job's first launch there (the batch script,
or the first srun step to reach the node), the Epilog at its end, with
Slurm's environment.  A failing Prolog drains the node ("Prolog error")
and requeues the batch job held ("launch failed requeued held"); a
failing Epilog drains the node ("Epilog error").  PrologFlags=Serial runs
them one at a time on a node; the flags Drover does not run are refused.

The scripts here record their environment in <root>/<context>.<job>.<node>,
fail while <root>/fail-<context> exists and take 4 s while
<root>/slow-<context> does.
"""
import os
import re

import pytest

from cluster import Cluster, ClusterError, run_job

SCRIPT = """#!/bin/sh
ctx=$SLURM_SCRIPT_CONTEXT
[ -e {root}/slow-$ctx ] && sleep 4
f={root}/$ctx.$SLURM_JOB_ID.$SLURMD_NODENAME
env | sort > $f.tmp && mv $f.tmp $f
[ -e {root}/fail-$ctx ] && exit 3
exit 0
"""


def prolog_cluster(root, nodes=2, gpus=0, extra=()):
    script = root / "pe.sh"
    script.write_text(SCRIPT.format(root=root))
    os.chmod(script, 0o755)
    # a glob Prolog: every match runs, in order
    (root / "prolog.d").mkdir()
    second = root / "prolog.d" / "50-second.sh"
    second.write_text(f"#!/bin/sh\ntouch {root}/second.$SLURM_JOB_ID."
                      "$SLURMD_NODENAME\n")
    os.chmod(second, 0o755)
    os.symlink(script, root / "prolog.d" / "10-first.sh")
    args = [f"--conf-extra=Prolog={root}/prolog.d/*",
            f"--conf-extra=Epilog={script}",
            "--conf-extra=PrologEpilogTimeout=30", *extra]
    return Cluster(root, nodes=nodes, gpus_per_node=gpus, up_args=args)


def env_of(root, ctx, job, node):
    path = root / f"{ctx}.{job}.{node}"
    if not path.exists():
        return None
    return dict(line.split("=", 1) for line in
                path.read_text().splitlines() if "=" in line)


def wait_env(c, root, ctx, job, node):
    c.wait_until(lambda: env_of(root, ctx, job, node) is not None,
                 timeout=30, what=f"{ctx} of job {job} on {node}")
    return env_of(root, ctx, job, node)


def node_reason(c, name):
    out = c.run("scontrol", "show", "node", name, check=True).stdout
    m = re.search(r"^\s*Reason=(\S+ \S+)", out, re.M)
    return m.group(1) if m else None


@pytest.mark.needs_root
def test_prolog_and_epilog_run_on_each_node_with_slurms_environment(
        cluster_root, tmp_path):
    root = cluster_root
    c = prolog_cluster(root, gpus=2)
    try:
        c.up()
        # the batch host's Prolog before the script; node02's at the step
        job, out, err = run_job(
            c, tmp_path,
            f"ls {root}/prolog_slurmd.$SLURM_JOB_ID.node01\n"
            "srun -N2 -n2 true\n",
            "-N2", "--gres=gpu:1", "--job-name=pe")
        assert out.startswith(f"{root}/prolog_slurmd.{job}.node01"), \
            (out, err)
        for name in ("node01", "node02"):
            pro = wait_env(c, root, "prolog_slurmd", job, name)
            epi = wait_env(c, root, "epilog_slurmd", job, name)
            assert (root / f"second.{job}.{name}").exists()
            for env in (pro, epi):
                assert env["SLURM_JOB_ID"] == job
                assert env["SLURM_JOB_USER"] == "root"
                assert env["SLURM_JOB_UID"] == "0"
                assert env["SLURM_JOB_PARTITION"] == "debug"
                assert env["SLURM_JOB_NODELIST"] == "node[01-02]"
                assert env["SLURMD_NODENAME"] == name
                assert env["SLURM_CONF"] == str(c.conf)
                # the node's GPU index, not renumbered: the scripts run
                # outside the job's cgroup
                assert env["CUDA_VISIBLE_DEVICES"] == env["SLURM_JOB_GPUS"]
                assert env["SLURM_JOB_GPUS"] in ("0", "1")
        # one Prolog per node however many steps reach it
        job2, _, _ = run_job(c, tmp_path, "srun true\nsrun true\n")
        wait_env(c, root, "epilog_slurmd", job2, "node01")
        assert env_of(root, "prolog_slurmd", job2, "node02") is None
    finally:
        c.down()


@pytest.mark.needs_root
def test_failing_prolog_drains_the_node_and_holds_the_job(cluster_root,
                                                          tmp_path):
    root = cluster_root
    c = prolog_cluster(root, nodes=1)
    try:
        c.up()
        (root / "fail-prolog_slurmd").touch()
        job = c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
        c.wait_until(lambda: node_reason(c, "node01") == "Prolog error",
                     timeout=30, what="node01 drained")
        c.wait_until(lambda: c.run("squeue", "-h", "-j", job, "-o",
                                   "%T|%r").stdout
                     == "PENDING|launch failed requeued held\n",
                     timeout=30, what="the job held")
        state = c.run("sinfo", "-h", "-n", "node01", "-o", "%T",
                      check=True).stdout
        assert state.strip() in ("drained", "draining"), state
        # fixed: resume the node, release the job, and it runs
        (root / "fail-prolog_slurmd").unlink()
        c.run("scontrol", "update", "nodename=node01", "state=resume",
              check=True)
        c.run("scontrol", "release", job, check=True)
        c.wait_job_state(job, "COMPLETED", timeout=30)
        # an srun step refused by a failing Prolog: srun says so
        (root / "fail-prolog_slurmd").touch()
        r = c.run("srun", "-n1", "true", timeout=60)
        assert r.returncode != 0
        assert "Job prolog failed" in r.stderr, r.stderr
    finally:
        c.down()


@pytest.mark.needs_root
def test_failing_epilog_drains_the_node(cluster_root, tmp_path):
    root = cluster_root
    c = prolog_cluster(root, nodes=2)
    try:
        c.up()
        (root / "fail-epilog_slurmd").touch()
        job, _, _ = run_job(c, tmp_path, "srun -N2 true\n", "-N2")
        for name in ("node01", "node02"):
            wait_env(c, root, "epilog_slurmd", job, name)
            c.wait_until(lambda: node_reason(c, name) == "Epilog error",
                         timeout=30, what=f"{name} drained")
        log = c.log_file("node02").read_text()
        assert f"JobId={job}: Epilog {root}/pe.sh failed: exit code 3" in log
    finally:
        c.down()


@pytest.mark.needs_root
def test_node_is_completing_while_its_epilog_runs(cluster_root, tmp_path):
    """As Slurm: an ended job's node shows COMPLETING while its Epilog
    runs, and the next job waits for it."""
    root = cluster_root
    c = prolog_cluster(root, nodes=1)
    try:
        c.up()
        (root / "slow-epilog_slurmd").touch()
        first, _, _ = run_job(c, tmp_path, "true\n")
        state = c.run("sinfo", "-h", "-o", "%t", check=True).stdout
        node = c.run("scontrol", "show", "node", "node01",
                     check=True).stdout
        second = c.sbatch("--exclusive", "-o", "/dev/null", "--wrap",
                          "true", cwd=tmp_path)
        early = c.run("squeue", "-h", "-j", second, "-o", "%T",
                      check=True).stdout
        (root / "slow-epilog_slurmd").unlink()  # the first's sleeps on
        c.wait_job_state(second, "COMPLETED", timeout=30)
        epi = root / f"epilog_slurmd.{first}.node01"
        assert state == "comp\n", state
        assert "State=IDLE+COMPLETING " in node, node
        assert early == "PENDING\n", early
        # the second started only once the first's Epilog wrote its file
        start = c.run("scontrol", "show", "job", second,
                      check=True).stdout
        assert epi.exists(), start
        c.wait_until(lambda: c.run("sinfo", "-h", "-o", "%t").stdout
                     == "idle\n", timeout=30, what="node01 idle again")
    finally:
        c.down()


SERIAL = """#!/bin/sh
f={root}/serial.$SLURM_JOB_ID.$SLURM_SCRIPT_CONTEXT
echo "$(/bin/date +%s%N)" > $f.start
/bin/sleep 1
echo "$(/bin/date +%s%N)" > $f.end
"""


@pytest.mark.needs_root
def test_prolog_flags_serial_runs_one_script_at_a_time_on_a_node(
        cluster_root, tmp_path):
    """PrologFlags=Serial: jobs started together on one node have their
    Prologs and Epilogs run one after another, never side by side."""
    root = cluster_root
    script = root / "serial.sh"
    script.write_text(SERIAL.format(root=root))
    os.chmod(script, 0o755)
    c = Cluster(root, nodes=1, gpus_per_node=0,
                up_args=[f"--conf-extra=Prolog={script}",
                         f"--conf-extra=Epilog={script}",
                         "--conf-extra=PrologFlags=serial"])
    try:
        c.up()
        cfg = c.run("scontrol", "show", "config", check=True).stdout
        assert "\nPrologFlags             = Serial\n" in cfg, cfg
        jobs = [c.sbatch("-n1", "-o", "/dev/null", "--wrap", "true",
                         cwd=tmp_path) for _ in range(3)]
        for job in jobs:
            assert c.wait_job_done(job) == "COMPLETED"
        ends = [root / f"serial.{j}.{ctx}.end" for j in jobs
                for ctx in ("prolog_slurmd", "epilog_slurmd")]
        c.wait_until(lambda: all(p.exists() for p in ends), timeout=30,
                     what="every Prolog and Epilog ended")
        runs = sorted((int(p.with_suffix(".start").read_text()),
                       int(p.read_text())) for p in ends)
        for (_, end), (start, _) in zip(runs, runs[1:]):
            assert start >= end, runs  # none began before the last ended
    finally:
        c.down()


def test_prolog_flags_drover_does_not_run_are_refused_at_start(cluster_root):
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0,
                up_args=["--conf-extra=PrologFlags=Serial,RunInJob"])
    with pytest.raises(ClusterError,
                       match="PrologFlags=Serial,RunInJob: flag 'RunInJob' "
                             "unsupported by Drover"):
        c.up()


@pytest.mark.needs_root
def test_prolog_flags_alloc_runs_the_prolog_on_every_node_at_allocation(
        cluster_root, tmp_path):
    """PrologFlags=Alloc: every node of a job runs its Prolog when the job
    is allocated (a node no step reaches too, and for salloc); the job is
    CONFIGURING until all passed and only then starts its script.  A
    failure drains the node and holds the job, as at a launch."""
    root = cluster_root
    c = prolog_cluster(root, extra=["--conf-extra=PrologFlags=Alloc"])
    try:
        c.up()
        job, out, err = run_job(
            c, tmp_path, f"ls {root}/prolog_slurmd.$SLURM_JOB_ID.node02\n",
            "-N2")
        # node02 ran it before the script started, though no step goes
        assert out.startswith(f"{root}/prolog_slurmd.{job}.node02"), \
            (out, err)
        for name in ("node01", "node02"):
            env = wait_env(c, root, "prolog_slurmd", job, name)
            assert env["SLURM_JOB_NODELIST"] == "node[01-02]"
            wait_env(c, root, "epilog_slurmd", job, name)
        # salloc: the Prolog runs on its nodes though nothing launches
        r = c.run("salloc", "-N2", "/bin/true", timeout=60)
        m = re.search(r"Granted job allocation (\d+)", r.stderr)
        assert m, r.stderr
        for name in ("node01", "node02"):
            wait_env(c, root, "prolog_slurmd", m.group(1), name)
        # configuring while the Prologs run
        (root / "slow-prolog_slurmd").touch()
        slow = c.sbatch("-N2", "-o", "/dev/null", "--wrap", "true",
                        cwd=tmp_path)
        c.wait_until(lambda: c.run("squeue", "-h", "-j", slow, "-o",
                                   "%t").stdout == "CF\n",
                     timeout=10, what="the job configuring")
        (root / "slow-prolog_slurmd").unlink()
        assert c.wait_job_done(slow) == "COMPLETED"
        # a failure: drained, held
        (root / "fail-prolog_slurmd").touch()
        bad = c.sbatch("-N2", "-o", "/dev/null", "--wrap", "true",
                       cwd=tmp_path)
        c.wait_until(lambda: c.run("squeue", "-h", "-j", bad, "-o",
                                   "%T|%r").stdout
                     == "PENDING|launch failed requeued held\n",
                     timeout=30, what="the job held")
        c.wait_until(lambda: node_reason(c, "node02") == "Prolog error",
                     timeout=30, what="node02 drained")
    finally:
        c.down()
