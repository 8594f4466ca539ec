# SPDX-License-Identifier: Apache-2.0
"""SBATCH_* input variables: they override #SBATCH lines and are
overridden by the command line, as in Slurm; and squeue --noconvert."""

SCRIPT = """#!/bin/bash
#SBATCH -J fromscript
#SBATCH -p nosuchpart
#SBATCH -t 5
#SBATCH --gres=gpu:1
#SBATCH -o script-%j.out
true
"""


def sbatch_env(cluster, tmp_path, env, *args):
    script = tmp_path / "job.sh"
    script.write_text(SCRIPT)
    r = cluster.run("sbatch", "-H", "--parsable", *args, str(script),
                    cwd=tmp_path, env=env, check=True)
    return r.stdout.strip()


ENV = {"SBATCH_JOB_NAME": "fromenv", "SBATCH_PARTITION": "debug",
       "SBATCH_TIMELIMIT": "7", "SBATCH_GRES": "gpu:2",
       "SBATCH_EXCLUSIVE": "exclusive", "SBATCH_OUTPUT": "env-%j.out"}


def test_sbatch_variables_override_script_lines(cluster, tmp_path):
    j = sbatch_env(cluster, tmp_path, ENV)
    rec = cluster.show_job(j)
    assert rec["JobName"] == "fromenv"
    assert rec["Partition"] == "debug"
    assert rec["TimeLimit"] == "00:07:00"
    assert rec["TresPerNode"] == "gres:gpu:2"
    assert rec["OverSubscribe"] == "NO"
    assert rec["StdOut"] == f"{tmp_path}/env-{j}.out"
    cluster.run("scancel", j, check=True)


def test_command_line_overrides_sbatch_variables(cluster, tmp_path):
    j = sbatch_env(cluster, tmp_path, ENV, "-J", "fromcli", "-t", "9",
                   "--gres=gpu:3", "-o", "cli-%j.out")
    rec = cluster.show_job(j)
    assert rec["JobName"] == "fromcli"
    assert rec["TimeLimit"] == "00:09:00"
    assert rec["TresPerNode"] == "gres:gpu:3"
    assert rec["StdOut"] == f"{tmp_path}/cli-{j}.out"
    assert rec["Partition"] == "debug"
    cluster.run("scancel", j, check=True)


def test_bad_sbatch_variable_is_an_error(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text(SCRIPT)
    r = cluster.run("sbatch", str(script), cwd=tmp_path,
                    env={"SBATCH_EXCLUSIVE": "1"})
    assert r.returncode != 0
    assert "Invalid --exclusive specification" in r.stderr


def test_script_lines_apply_without_variables(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text(SCRIPT.replace("-p nosuchpart", "-p debug"))
    r = cluster.run("sbatch", "-H", "--parsable", str(script), cwd=tmp_path,
                    check=True)
    j = r.stdout.strip()
    rec = cluster.show_job(j)
    assert rec["JobName"] == "fromscript"
    assert rec["TimeLimit"] == "00:05:00"
    assert rec["StdOut"] == f"{tmp_path}/script-{j}.out"
    cluster.run("scancel", j, check=True)


def test_squeue_noconvert_keeps_megabytes(cluster, tmp_path):
    j = cluster.sbatch("-H", "--mem=2048", "--wrap", "true", cwd=tmp_path)
    k = cluster.sbatch("-H", "--mem=1000", "--wrap", "true", cwd=tmp_path)
    r = cluster.run("squeue", "-h", "-o", "%i %m", check=True)
    assert sorted(r.stdout.splitlines()) == sorted([f"{j} 2G", f"{k} 1000M"])
    r = cluster.run("squeue", "--noconvert", "-h", "-o", "%i %m", check=True)
    assert sorted(r.stdout.splitlines()) == sorted([f"{j} 2048M",
                                                    f"{k} 1000M"])
    r = cluster.run("squeue", "--noconvert", "-h", "-O", "JobID,MinMemory",
                    check=True)
    assert f"2048M" in r.stdout
    cluster.run("scancel", j, k, check=True)
