# SPDX-License-Identifier: Apache-2.0
"""srun as a drop-in for Slurm 22.05's (issue 13, second part): -w/-x/-N
of a step inside an allocation, and the SLURM_* variables srun reads."""
import re

import pytest


def sh(cluster, alloc_args, script, **kw):
    """Run 'script' under salloc 'alloc_args' (a shell inside the job)."""
    return cluster.run("salloc", *alloc_args, "bash", "-c", script, **kw)


def test_step_nodelist_and_exclude_inside_salloc(cluster):
    r = sh(cluster, ["-N3"], """
echo A $(srun -w node02 printenv SLURMD_NODENAME)
echo B $(srun -w node02 printenv SLURM_STEP_NODELIST SLURM_NNODES)
srun -w node03,node01 -l printenv SLURMD_NODENAME | sort | sed 's/^/C /'
echo D $(srun -x node01 printenv SLURMD_NODENAME | sort)
echo E $(srun -N1 -x node01,node02 printenv SLURM_STEP_NODELIST)
echo F $(srun -N2 -w node03 printenv SLURM_STEP_NODELIST | sort -u)
echo G $(srun -n1 -x node[01-02] printenv SLURMD_NODENAME)
""", check=True)
    assert r.stdout.splitlines() == [
        "A node02", "B node02 1", "C 0: node01", "C 1: node03",
        "D node02 node03", "E node03", "F node[01,03]", "G node03"], \
        (r.stdout, r.stderr)
    assert r.stderr.count("salloc: ") >= 1 and "error" not in r.stderr, \
        r.stderr


def test_step_nodelist_errors_are_slurms(cluster):
    r = sh(cluster, ["-N2"], """
srun -w node04 printenv SLURMD_NODENAME; echo rc=$?
srun -N1 -w node[01-02] printenv SLURMD_NODENAME; echo rc=$?
srun -w node02 -x node02 printenv SLURMD_NODENAME; echo rc=$?
srun -N2 -x node01 printenv SLURMD_NODENAME; echo rc=$?
""")
    assert r.stdout.splitlines() == ["rc=1"] * 4, (r.stdout, r.stderr)
    m = re.search(r"salloc: Granted job allocation (\d+)", r.stderr)
    assert m, r.stderr
    want = (f"srun: error: Unable to create step for job {m.group(1)}: "
            "Requested node configuration is not available\n")
    assert r.stderr.count(want) == 3, r.stderr
    assert "srun: error: Requested node node02 is also in the excluded " \
        "list.\nsrun: error: Job not submitted.\n" in r.stderr, r.stderr


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_step_nodelist_inside_a_batch_job(cluster, tmp_path):
    from cluster import run_job
    _, out, err = run_job(cluster, tmp_path,
                          "srun -w node02 printenv SLURMD_NODENAME\n"
                          "srun -x node02 printenv SLURM_STEP_NODELIST\n",
                          "-N2")
    assert out == "node02\nnode01\n", (out, err)


# --- the time limit ----------------------------------------------------------

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


# Once step 0 of the job runs, its limit drops to one second (scontrol
# update): the time limit strikes a running step however slow the host.
LOWER_ONCE_RUNNING = """
until scontrol show step $SLURM_JOB_ID.0 >/dev/null 2>&1; do sleep 0.2; done
scontrol update JobId=$SLURM_JOB_ID TimeLimit=0:01
wait
"""


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_time_limit_lines_in_a_batch_job(cluster, tmp_path):
    """The batch script's srun step on two nodes hits the job's limit:
    slurmstepd's JOB line in the job's stderr, the node's STEP line and
    srun's abort line."""
    from cluster import run_job
    job, out, err = run_job(cluster, tmp_path,
                            "srun -N2 -n2 sleep 60 &\n" + LOWER_ONCE_RUNNING,
                            "-N2", "--time=1", states=("TIMEOUT",))
    assert re.search(rf"^slurmstepd: error: \*\*\* JOB {job} ON node01 "
                     rf"CANCELLED AT {STAMP} DUE TO TIME LIMIT \*\*\*$", err,
                     re.M), err
    assert re.search(rf"^slurmstepd: error: \*\*\* STEP {job}\.0 ON node01 "
                     rf"CANCELLED AT {STAMP} DUE TO TIME LIMIT \*\*\*$", err,
                     re.M), err
    kill_wait = int(cluster.conf_value("KillWait") or 30)
    assert err.count("srun: Job step aborted: Waiting up to "
                     f"{kill_wait + 2} seconds for job step to finish.\n") \
        == 1, err


def test_time_limit_lines_under_salloc(cluster):
    r = sh(cluster, ["-t", "1"], "srun sleep 60 &\n" + LOWER_ONCE_RUNNING,
           timeout=60)
    m = re.search(r"salloc: Granted job allocation (\d+)", r.stderr)
    assert m, r.stderr
    assert re.search(rf"^slurmstepd: error: \*\*\* STEP {m.group(1)}\.0 ON "
                     rf"node01 CANCELLED AT {STAMP} DUE TO TIME LIMIT \*\*\*$",
                     r.stderr, re.M), r.stderr
    assert r.stderr.count("srun: Job step aborted: Waiting up to ") == 1, \
        r.stderr


# --- SLURM_* input variables --------------------------------------------------

def test_input_variables_stand_for_options(cluster):
    env = {"SLURM_NTASKS": "3", "SLURM_LABELIO": "1", "SLURM_NNODES": "3"}
    r = cluster.run("srun", "printenv", "SLURM_NNODES", check=True, env=env)
    assert sorted(r.stdout.splitlines()) == ["0: 3", "1: 3", "2: 3"], \
        (r.stdout, r.stderr)
    # options beat them; a label variable of 0 is off
    env["SLURM_LABELIO"] = "0"
    r = cluster.run("srun", "-n2", "-N1", "printenv", "SLURM_NNODES",
                    check=True, env=env)
    assert r.stdout == "1\n1\n", (r.stdout, r.stderr)
    r = cluster.run("srun", "-n1", "true", check=True,
                    env={"SLURM_STDOUTMODE": "o-%t.txt", "SLURM_NPROCS": "2"})
    assert r.stderr == ""
    r = cluster.run("srun", "-n2", "-l", "echo", "hi", check=True,
                    env={"SLURM_STDOUTMODE": "o-%t.txt"})
    assert r.stdout == "" and \
        (cluster.workdir / "o-1.txt").read_text() == "1: hi\n"


def test_allocation_node_count_yields_quietly(cluster):
    """Inside salloc -N2 (SLURM_NNODES=2), srun -n1 runs one task without
    the warning an explicit -N2 -n1 gets."""
    r = sh(cluster, ["-N2"], "srun -n1 printenv SLURM_NNODES; "
                             "srun -N2 -n1 printenv SLURM_NNODES",
           check=True)
    assert r.stdout == "1\n1\n", (r.stdout, r.stderr)
    assert r.stderr.count("srun: Warning: can't run 1 processes on 2 nodes, "
                          "setting nnodes to 1") == 1, r.stderr


def test_overcommit_runs_more_tasks_than_cpus(cluster):
    """salloc -N1 holds one CPU: three tasks need -O (or SLURM_OVERCOMMIT),
    as Slurm's step creation."""
    r = sh(cluster, ["-N1"], """
srun -n3 true; echo rc=$?
srun -n3 -O printenv SLURM_PROCID | sort | tr '\\n' ' '; echo
SLURM_OVERCOMMIT=1 srun -n2 printenv SLURM_PROCID | sort | tr '\\n' ' '; echo
""")
    assert r.stdout.splitlines() == ["rc=1", "0 1 2 ", "0 1 "], \
        (r.stdout, r.stderr)
    assert "Unable to create step for job " in r.stderr and \
        ": More processors requested than permitted\n" in r.stderr, r.stderr
