# SPDX-License-Identifier: Apache-2.0
"""Batch jobs run as written: the issue's CPU job, --wrap, overrides, states."""
import os
import re
import textwrap

CPU_JOB = """\
#!/bin/bash
#SBATCH --job-name=cpu-train
#SBATCH --partition=debug
#SBATCH --nodes=1
#SBATCH --ntasks=4
#SBATCH --cpus-per-task=2
#SBATCH --mem=16G
#SBATCH --time=02:00:00
#SBATCH --output=output_%j.log
#SBATCH --error=error_%j.log

echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST"
echo "tasks $SLURM_NTASKS cpus/task $SLURM_CPUS_PER_TASK"
echo "to stderr" >&2
"""


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_cpu_job_script_runs_unchanged_and_writes_its_output_files(cluster, tmp_path):
    script = write(tmp_path / "job.sh", CPU_JOB)
    r = cluster.run("sbatch", script, cwd=tmp_path, check=True)
    m = re.fullmatch(r"Submitted batch job (\d+)\n", r.stdout)
    assert m, r.stdout
    job_id = m.group(1)
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    out = (tmp_path / f"output_{job_id}.log").read_text()
    assert out.splitlines() == [f"job {job_id} on node01", "tasks 4 cpus/task 2"]
    assert (tmp_path / f"error_{job_id}.log").read_text() == "to stderr\n"
    assert cluster.job_field(job_id, "ExitCode") == "0:0"
    assert cluster.job_field(job_id, "JobName") == "cpu-train"
    assert cluster.job_field(job_id, "NumCPUs") == "8"


def test_sbatch_parsable_prints_only_the_id(cluster, tmp_path):
    r = cluster.run("sbatch", "--parsable", "--wrap", "true", cwd=tmp_path, check=True)
    assert re.fullmatch(r"\d+\n", r.stdout), r.stdout
    cluster.wait_job_state(r.stdout.strip(), ["COMPLETED"], timeout=30)


def test_wrap_runs_the_command_and_default_output_is_slurm_jobid_out(cluster, tmp_path):
    job_id = cluster.sbatch("--wrap", "echo hello from wrap", cwd=tmp_path)
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    assert (tmp_path / f"slurm-{job_id}.out").read_text() == "hello from wrap\n"
    assert cluster.job_field(job_id, "JobName") == "wrap"


def test_command_line_options_override_sbatch_lines(cluster, tmp_path):
    script = write(tmp_path / "o.sh", """\
        #!/bin/sh
        #SBATCH --job-name=fromscript
        #SBATCH --output=script_%j.out
        echo "$SLURM_JOB_NAME"
        """)
    job_id = cluster.sbatch("--job-name=fromcli", "-o", "cli_%j.out", script, cwd=tmp_path)
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    assert (tmp_path / f"cli_{job_id}.out").read_text() == "fromcli\n"
    assert not (tmp_path / f"script_{job_id}.out").exists()


def test_failing_job_ends_failed_with_its_exit_code(cluster, tmp_path):
    job_id = cluster.sbatch("--wrap", "exit 3", cwd=tmp_path)
    cluster.wait_job_state(job_id, ["FAILED"], timeout=30)
    assert cluster.job_field(job_id, "ExitCode") == "3:0"


def test_job_reaching_its_time_limit_ends_timeout(cluster, tmp_path):
    # --time=0:02 is two seconds (MM:SS); the script ignores SIGTERM, so
    # only the SIGKILL after KillWait ends it.
    script = write(tmp_path / "t.sh", """\
        #!/bin/bash
        trap 'echo got TERM' TERM
        for i in $(seq 600); do sleep 0.1; done
        """)
    job_id = cluster.sbatch("--time=0:02", script, cwd=tmp_path)
    cluster.wait_job_state(job_id, ["TIMEOUT"], timeout=30)
    assert "got TERM" in (tmp_path / f"slurm-{job_id}.out").read_text()
    assert cluster.job_field(job_id, "JobState") == "TIMEOUT"


def test_scancel_of_running_and_pending_jobs_ends_them_cancelled(cluster, tmp_path):
    running = cluster.sbatch("--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(running, ["RUNNING"], timeout=30)
    held = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    cluster.run("scancel", running, held, check=True)
    cluster.wait_job_state(running, ["CANCELLED"], timeout=30)
    cluster.wait_job_state(held, ["CANCELLED"], timeout=30)


def test_job_environment_names_the_allocation(cluster, tmp_path):
    job_id = cluster.sbatch("-n2", "-c2", "--mem=1G", "-J", "envdump",
                            "--wrap", "env | sort", cwd=tmp_path)
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    env = dict(l.split("=", 1) for l in
               (tmp_path / f"slurm-{job_id}.out").read_text().splitlines() if "=" in l)
    assert env["SLURM_JOB_ID"] == job_id
    assert env["SLURM_JOBID"] == job_id
    assert env["SLURM_JOB_NAME"] == "envdump"
    assert env["SLURM_NTASKS"] == "2"
    assert env["SLURM_CPUS_PER_TASK"] == "2"
    assert env["SLURM_CPUS_ON_NODE"] == "4"
    assert env["SLURM_MEM_PER_NODE"] == "1024"
    assert env["SLURM_JOB_NUM_NODES"] == "1"
    assert env["SLURM_SUBMIT_DIR"] == str(tmp_path)
    assert env["SLURMD_NODENAME"] == env["SLURM_JOB_NODELIST"]
    assert "CUDA_VISIBLE_DEVICES" not in env
