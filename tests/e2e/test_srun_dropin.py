# SPDX-License-Identifier: Apache-2.0
"""srun as a drop-in for Slurm 22.05's (issue 13): -v/-vv lines, --multi-prog,
task prolog/epilog, environment and limits propagated to the tasks.

Texts are compared with real Slurm's (copies of shared/slurm-golden cases
in tests/unit/data/slurm-golden), with the volatile fields (job id, node
names, ports, limits) replaced."""
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "unit" / "data" / \
    "slurm-golden"


def golden(name, part="stderr"):
    return (GOLDEN / f"{name}.{part}").read_text()


def mask(text, nodes):
    """Volatile fields of srun -v output replaced by placeholders."""
    for i, n in enumerate(nodes):
        text = re.sub(rf"\b{re.escape(n)}\b", f"NODE{i}", text)
    text = re.sub(r"n\[1-2\]|node\[01-02\]", "NODES", text)
    text = re.sub(r"jobid \d+", "jobid J", text)
    text = re.sub(r"requesting job \d+, user \d+", "requesting job J, user U",
                  text)
    text = re.sub(r"StepId=\d+\.", "StepId=J.", text)
    text = re.sub(r"(propagating RLIMIT_\w+)=\d+", r"\1=N", text)
    text = re.sub(r"(is|port|thread \() ?\d+", r"\1 P", text)
    return text


def test_srun_v_prints_slurms_lines(cluster):
    r = cluster.run("srun", "-v", "-n1", "true", check=True)
    want = mask(golden("srun-v-n1"), ["n1"])
    assert mask(r.stderr, ["node01"]) == want, r.stderr
    m = re.search(r"^srun: jobid (\d+): ", r.stderr, re.M)
    assert m and f"StepId={m.group(1)}.0 on host node01" in r.stderr


def fixed_part(text):
    """-vv lines but the per-node ones, whose relative order varies (as
    the golden's notes say)."""
    return [ln for ln in text.splitlines()
            if "_task_" not in ln and " done" not in ln
            and "launch returned" not in ln]


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_srun_vv_two_nodes_matches_slurm(cluster):
    r = cluster.run("srun", "-vv", "-N2", "-n2", "hostname", check=True)
    got = mask(r.stderr, ["node01", "node02"])
    want = mask(golden("srun-vv-N2-n2-hostname"), ["n1", "n2"])
    assert fixed_part(got) == fixed_part(want), r.stderr
    assert sorted(got.splitlines()) == sorted(want.splitlines())
    lines = got.splitlines()
    for t in (0, 1):  # each node's lines in Slurm's order
        seq = [lines.index(f"srun: launch/slurm: _task_start: Node NODE{t}, "
                           "1 tasks started"),
               lines.index(f"srun: launch/slurm: _task_finish: NODE{t}: "
                           f"task {t}: Completed"),
               lines.index(f"srun: debug:  task {t} done")]
        assert seq == sorted(seq), r.stderr


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_srun_v_inside_a_batch_job_names_the_job(cluster, tmp_path):
    from cluster import run_job
    job_id, out, err = run_job(cluster, tmp_path,
                               "srun -v -n2 -l true\n", "-N1", "-n2")
    assert f"srun: jobid {job_id}: nodes(1):`node01', cpu counts: 2(x1)\n" \
        in err, err
    assert f"srun: launching StepId={job_id}.0 on host node01, 2 tasks: " \
        "[0-1]\n" in err, err
    assert err.count("_task_finish: Received task exit notification for 1 "
                     f"task of StepId={job_id}.0 (status=0x0000).") == 2
    # the job's CPUs of every node, as Slurm's line and variable give them
    job_id, out, err = run_job(cluster, tmp_path,
                               "echo $SLURM_JOB_CPUS_PER_NODE "
                               "$SLURM_TASKS_PER_NODE\n"
                               "srun -v -N1 -n1 true\n", "-N2")
    assert out == "1(x2) 1(x2)\n", (out, err)
    assert f"srun: jobid {job_id}: nodes(2):`node[01-02]', cpu counts: " \
        "1(x2)\n" in err, err


# --- --multi-prog -----------------------------------------------------------

def write(cluster, name, text):
    d = cluster.workdir
    if isinstance(text, bytes):
        (d / name).write_bytes(text)
    else:
        (d / name).write_text(text)
    (d / name).chmod(0o644)
    return d / name


def test_multi_prog_matches_slurm(cluster):
    write(cluster, "mp.conf",
          "# srun --multi-prog configuration: task rank, program, arguments\n"
          "0    echo first rank=%t offset=%o\n"
          "1    echo second rank=%t offset=%o\n")
    r = cluster.run("srun", "-n2", "-l", "--multi-prog", "mp.conf",
                    check=True)
    assert sorted(r.stdout.splitlines()) == \
        sorted(golden("srun-multi-prog", "stdout").splitlines())
    assert r.stderr == ""


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_multi_prog_ranges_star_offsets_and_quotes(cluster):
    """No -n: the count is the highest rank + 1; ranges, lists, '*',
    %t/%o, quotes and a continued line; tasks on both nodes."""
    write(cluster, "mp.conf",
          "  # a comment\n\n"
          "0-1,4  echo A %t %o 'a  %t' \\\n"
          "       tail\n"
          "2      sh -c 'echo B $SLURM_PROCID $SLURMD_NODENAME'\n"
          "*      echo C %t %o\n")
    r = cluster.run("srun", "-N2", "-n6", "-l", "--multi-prog", "mp.conf",
                    check=True)
    lines = sorted(r.stdout.splitlines())
    assert lines[0:2] == ["0: A 0 0 a  %t tail", "1: A 1 1 a  %t tail"]
    assert re.fullmatch(r"2: B 2 node0[12]", lines[2]), lines
    assert lines[3:] == ["3: C 3 3", "4: A 4 2 a  %t tail", "5: C 5 5"]
    write(cluster, "four.conf", "0-3 echo %t\n")
    r = cluster.run("srun", "--multi-prog", "four.conf", check=True)
    assert sorted(r.stdout.split()) == ["0", "1", "2", "3"]


@pytest.mark.parametrize("conf,args,errors", [
    ("0 echo a\n0 echo b\n", ["-n1"],
     ["Duplicate record for task 0",
      "Line 2 of configuration file bad.conf invalid"]),
    ("0 echo a\n", ["-n2"],
     ["Configuration file bad.conf invalid, no record for task id 1"]),
    ("* echo a\n1 echo b\n", ["-n2"],
     ["Task range specification with asterisk must be last",
      "Line 2 of configuration file bad.conf invalid"]),
    ("0 echo a\n5 echo b\n", ["-n2"],
     ["Invalid task id, 5 >= ntasks",
      "Line 2 of configuration file bad.conf invalid"]),
    ("0 echo a\n1x echo b\n", ["-n2"],
     ["Invalid task range specification (1x)",
      "Line 2 of configuration file bad.conf invalid"]),
    ("0\n", ["-n1"], ["Line 1 of configuration file bad.conf invalid"]),
    (None, ["-n1"], ["Unable to open configuration file bad.conf"]),
    (b"0 echo \xff\n", ["-n1"],
     ["Configuration file bad.conf invalid: not UTF-8 text"]),
])
def test_multi_prog_errors_as_slurm(cluster, conf, args, errors):
    if conf is not None:
        write(cluster, "bad.conf", conf)
    else:
        (cluster.workdir / "bad.conf").unlink(missing_ok=True)
    r = cluster.run("srun", *args, "--multi-prog", "bad.conf")
    assert r.returncode == 1
    assert r.stderr == "".join(f"srun: error: {e}\n" for e in errors)
    assert r.stdout == ""
    # nothing was allocated
    assert cluster.run("squeue", "-h").stdout == ""


# --- task prolog and epilog --------------------------------------------------

def script(path, text):
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)
    return path


@pytest.fixture
def prolog_cluster(cluster_root):
    """One node with slurm.conf TaskProlog and TaskEpilog."""
    from cluster import Cluster
    script(cluster_root / "conf_prolog.sh",
           'echo "export FROM_CONF=conf_$SLURM_PROCID"\n'
           'echo "export BOTH=conf"\n'
           'echo "print conf prolog of $SLURM_PROCID as $(id -un)"\n')
    script(cluster_root / "conf_epilog.sh",
           f'echo "conf $SLURM_PROCID $SLURM_SCRIPT_CONTEXT $(id -un) '
           f'$FROM_SRUN_ENV" >> {cluster_root}/epilogs.txt\n')
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0, up_args=[
        f"--conf-extra=TaskProlog={cluster_root}/conf_prolog.sh",
        f"--conf-extra=TaskEpilog={cluster_root}/conf_epilog.sh"])
    try:
        c.up()
        yield c
    finally:
        c.down()


def test_task_prolog_and_epilog_as_slurm(prolog_cluster, cluster_root):
    c = prolog_cluster
    cfg = c.run("scontrol", "show", "config", check=True).stdout
    assert re.search(rf"^TaskProlog\s+= {cluster_root}/conf_prolog.sh$", cfg,
                     re.M), cfg
    user_prolog = script(
        cluster_root / "user_prolog.sh",
        'echo "export BOTH=user"\n'
        'echo "unset DROP_ME"\n'
        'echo "print user prolog $SLURM_SCRIPT_CONTEXT pid=$SLURM_TASK_PID"\n'
        'echo "not a command"\n')
    user_epilog = script(
        cluster_root / "user_epilog.sh",
        f'echo "user $SLURM_PROCID $SLURM_SCRIPT_CONTEXT" >> '
        f'{cluster_root}/epilogs.txt\n')
    (cluster_root / "epilogs.txt").touch()
    (cluster_root / "epilogs.txt").chmod(0o666)
    r = c.run("srun", "-n2", "-l", f"--task-prolog={user_prolog}",
              f"--task-epilog={user_epilog}", "sh", "-c",
              'echo "$FROM_CONF $BOTH ${DROP_ME-gone} $SLURM_TASK_PID $$"',
              user="druser1", env={"DROP_ME": "1", "FROM_SRUN_ENV": "env"},
              check=True)
    out = sorted(r.stdout.splitlines())
    for rank in (0, 1):
        mine = [ln[3:] for ln in out if ln.startswith(f"{rank}: ")]
        assert mine[0] == f"conf prolog of {rank} as druser1", out
        m = re.fullmatch(rf"conf_{rank} user gone (\d+) (\d+)", mine[1])
        assert m and m.group(1) == m.group(2), out  # SLURM_TASK_PID = $$
        assert mine[2] == f"user prolog prolog_task pid={m.group(1)}", out
    # each task's epilogs ran once it ended: srun's, then slurm.conf's
    epi = (cluster_root / "epilogs.txt").read_text().splitlines()
    assert sorted(epi) == sorted([
        "user 0 epilog_task", "user 1 epilog_task",
        "conf 0 epilog_task druser1 env", "conf 1 epilog_task druser1 env"])
    for rank in (0, 1):
        assert epi.index(f"user {rank} epilog_task") < \
            epi.index(f"conf {rank} epilog_task druser1 env")


def test_failing_task_prolog_ends_the_task(cluster, tmp_path):
    bad = script(cluster.workdir / "bad_prolog.sh", "exit 3\n")
    r = cluster.run("srun", "-n1", f"--task-prolog={bad}", "echo", "never",
                    user="druser1")
    assert r.returncode == 3
    assert r.stdout == ""
    assert r.stderr == "srun: error: node01: task 0: Exited with exit code 3\n"


# --- limits, umask and counts passed to the tasks ----------------------------

SHOW = 'echo core=$(ulimit -c) nofile=$(ulimit -n) umask=$(umask) ' \
       '$SLURM_UMASK prio=$SLURM_PRIO_PROCESS'


def srun_with_limits(cluster, *args):
    """srun as druser1 from a shell with its own core and open files
    limits and umask."""
    cmd = " ".join(["srun", *args, "sh", "-c", f"'{SHOW}'"])
    return cluster.run("sh", "-c", f"ulimit -c 4321; ulimit -S -n 777; "
                       f"umask 027; {cmd}", user="druser1")


def test_propagate_default_all_and_umask(cluster):
    r = srun_with_limits(cluster, "-n1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["core=4321", "nofile=777", "umask=0027",
                                "0027", "prio=0"], r.stdout


def test_propagate_list_none_and_bad(cluster):
    r = srun_with_limits(cluster, "-n1", "--propagate=CORE")
    words = r.stdout.split()
    assert words[0] == "core=4321" and words[1] != "nofile=777", r.stdout
    r = srun_with_limits(cluster, "-n1", "--propagate=NONE")
    words = r.stdout.split()
    assert words[0] != "core=4321" and words[1] != "nofile=777", r.stdout
    r = srun_with_limits(cluster, "-n1", "--propagate=BOGUS")
    assert r.returncode == 1
    assert r.stderr == "srun: error: --propagate=BOGUS is not valid.\n"
    r = cluster.run("sh", "-c", "ulimit -c 4321; srun -vv -n1 "
                    "--propagate=core,NOFILE true", user="druser1")
    lines = [ln for ln in r.stderr.splitlines() if "propagating" in ln]
    m = re.fullmatch(r"srun: debug:  propagating RLIMIT_CORE=(\d+)", lines[0])
    assert m and int(m.group(1)) in (4321 * 512, 4321 * 1024), lines  # bytes
    assert lines[1].startswith("srun: debug:  propagating RLIMIT_NOFILE=")
    assert lines[2:] == ["srun: debug:  propagating SLURM_PRIO_PROCESS=0",
                         "srun: debug:  propagating UMASK=0022"], lines


@pytest.mark.parametrize("cluster", [{
    "nodes": 1, "gpus_per_node": 0,
    "up_args": ["--conf-extra=PropagateResourceLimitsExcept=CORE"]}],
    indirect=True)
def test_propagate_resource_limits_except_from_slurm_conf(cluster):
    cfg = cluster.run("scontrol", "show", "config", check=True).stdout
    assert re.search(r"^PropagateResourceLimitsExcept\s+= CORE$", cfg, re.M)
    r = srun_with_limits(cluster, "-n1")
    words = r.stdout.split()
    assert words[0] != "core=4321" and words[1] == "nofile=777", r.stdout


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_preserve_env_keeps_the_jobs_counts(cluster, tmp_path):
    from cluster import run_job
    _, out, err = run_job(
        cluster, tmp_path,
        "srun -n1 -N1 sh -c 'echo step $SLURM_NTASKS $SLURM_NNODES "
        "$SLURM_NPROCS'\n"
        "srun -E -n1 -N1 sh -c 'echo E $SLURM_NTASKS $SLURM_NNODES "
        "$SLURM_NPROCS $SLURM_STEP_NUM_TASKS'\n", "-N2", "-n2")
    assert sorted(out.splitlines()) == ["E 2 2 2 2", "E 2 2 2 2",
                                        "step 1 1 1"], (out, err)


# --- task variables, --test-only, --quit-on-interrupt, -X ---------------------

@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_task_variables_slurm_sets(cluster):
    r = cluster.run("srun", "-N2", "-n3", "-l", "sh", "-c",
                    "echo $SLURM_GTIDS $SLURM_TOPOLOGY_ADDR "
                    "$SLURM_TOPOLOGY_ADDR_PATTERN $SLURM_CPUS_ON_NODE "
                    "$SLURM_LAUNCH_NODE_IPADDR $SLURM_SRUN_COMM_HOST "
                    "$SLURM_SRUN_COMM_PORT $SLURM_TASK_PID $$",
                    check=True)
    rows = {ln.split(": ")[0]: ln.split(": ")[1].split()
            for ln in r.stdout.splitlines()}
    assert rows["0"][:4] == ["0,1", "node01", "node", "2"], rows
    assert rows["1"][:4] == ["0,1", "node01", "node", "2"], rows
    assert rows["2"][:4] == ["2", "node02", "node", "1"], rows
    for w in rows.values():
        assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", w[4]) and w[5] == w[4]
        assert 0 < int(w[6]) < 65536
        assert w[7] == w[8]  # SLURM_TASK_PID is the task itself
    assert len({w[6] for w in rows.values()}) == 1


def test_test_only_plans_without_running(cluster):
    r = cluster.run("srun", "--test-only", "-n1", "true", check=True)
    m = re.fullmatch(r"srun: Job (\d+) to start at "
                     r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d using 1 processors on "
                     r"nodes node0\d in partition \S+\n", r.stderr)
    assert m, r.stderr
    assert r.stdout == ""
    assert cluster.run("squeue", "-h").stdout == ""
    # as in Slurm, the id shown is used up: the next job gets the next one
    r = cluster.run("sbatch", "--parsable", "--wrap", "true", check=True)
    assert int(r.stdout.split(";")[0]) == int(m.group(1)) + 1
    r = cluster.run("srun", "--test-only", "-p", "nosuch", "true")
    assert r.returncode == 1
    assert r.stderr == ("srun: error: invalid partition specified: nosuch\n"
                        "srun: error: Unable to allocate resources: Invalid "
                        "partition name specified\n")


def start_srun(cluster, *args):
    import subprocess
    return subprocess.Popen(["srun", *args], env=cluster.env,
                            cwd=cluster.workdir, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            text=True, start_new_session=True)


def tasks_running(cluster, n):
    def job():
        ids = cluster.run("squeue", "-h", "-t", "R", "-o", "%i").stdout.split()
        return ids[0] if ids else None
    j = cluster.wait_until(job, timeout=15, what="the allocation")
    cluster.wait_until(lambda: len(cluster.job_pids(j, steps_only=True)) >= n,
                       timeout=15, what=f"{n} tasks")
    return j


@pytest.mark.parametrize("flag,first", [
    ("--quit-on-interrupt", []),
    ("-X", ["srun: sending Ctrl-C to StepId={job}.0"]),
])
def test_one_ctrl_c_ends_the_step(cluster, flag, first):
    import os
    import signal
    p = start_srun(cluster, flag, "-n2", "sleep", "60")
    try:
        job = tasks_running(cluster, 2)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
    lines = [ln for ln in err.splitlines() if "CANCELLED AT" not in ln]
    assert lines == [f.format(job=job) for f in first] + [
        "srun: forcing job termination",
        "srun: Job step aborted: Waiting up to 7 seconds for job step to "
        "finish."], err
    cluster.wait_until(lambda: cluster.job_pids(job) == [], timeout=15,
                       what="no task left")


# --- --chdir and --export -----------------------------------------------------

def test_chdir_is_the_tasks_directory(cluster):
    d = cluster.workdir / "sub"
    d.mkdir(exist_ok=True)
    r = cluster.run("srun", "-D", str(d), "pwd", check=True)
    assert r.stdout == f"{d}\n"
    r = cluster.run("srun", "--chdir=sub", "pwd", check=True)
    assert r.stdout == f"{d}\n"


def test_export_forms(cluster):
    env = {"KEEP": "k", "OTHER": "o"}
    show = ["/bin/sh", "-c", 'echo "${KEEP-unset} ${OTHER-unset} '
            '${NEW-unset} ${SLURM_JOB_ID:+job}"']
    r = cluster.run("srun", "--export=ALL,NEW=n", *show, env=env, check=True)
    assert r.stdout == "k o n job\n"
    r = cluster.run("srun", "--export=KEEP,NEW=n", *show, env=env,
                    check=True)
    assert r.stdout == "k unset n job\n"
    r = cluster.run("srun", "--export=NONE", *show, env=env, check=True)
    assert r.stdout == "unset unset unset job\n"


def test_wait_kills_the_rest_after_the_first_exit(cluster):
    r = cluster.run("srun", "-n2", "-W", "2", "sh", "-c",
                    "[ $SLURM_PROCID = 0 ] && exit 3; exec sleep 60",
                    timeout=30)
    lines = [ln for ln in r.stderr.splitlines() if "CANCELLED AT" not in ln]
    job = re.search(r"StepId=(\d+)\.0", r.stderr).group(1)
    assert lines == [
        "srun: First task exited 2s ago",
        f"srun: StepId={job}.0 task 1: running",
        f"srun: StepId={job}.0 task 0: exited abnormally",
        f"srun: launch/slurm: _step_signal: Terminating StepId={job}.0",
        "srun: Job step aborted: Waiting up to 7 seconds for job step to "
        "finish.",
        "srun: error: node01: task 0: Exited with exit code 3",
        "srun: error: node01: task 1: Killed"], r.stderr
    assert r.returncode == 137
    cluster.wait_until(lambda: cluster.job_pids(job) == [], timeout=15,
                       what="no task left")
