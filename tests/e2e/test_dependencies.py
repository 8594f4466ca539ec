# SPDX-License-Identifier: Apache-2.0
"""Job dependencies: after, afterok, afternotok, afterany, aftercorr,
singleton, ',' and '?', unknown ids, DependencyNeverSatisfied and
--kill-on-invalid-dep, and the seed pipeline as written."""


def field(cluster, jid, key):
    return cluster.job_field(jid, key)


def test_seed_pipeline_runs_in_order(cluster, tmp_path):
    log = tmp_path / "order"
    for name in ("preprocess", "train", "eval", "cleanup"):
        (tmp_path / f"{name}.sh").write_text(
            f"#!/bin/bash\nsleep 1\necho {name} >> {log}\n")
    r = cluster.run("bash", "-c",
                    "JOB1=$(sbatch --parsable preprocess.sh) && "
                    "JOB2=$(sbatch --parsable --dependency=afterok:$JOB1 train.sh) && "
                    "JOB3=$(sbatch --parsable --dependency=afterok:$JOB2 eval.sh) && "
                    "sbatch --dependency=afterany:$JOB1:$JOB2:$JOB3 cleanup.sh && "
                    "scontrol show job $JOB2 | grep -o 'Reason=[^ ]* Dependency=[^ ]*'",
                    cwd=tmp_path, check=True)
    assert "Submitted batch job" in r.stdout
    assert "Reason=Dependency Dependency=afterok:" in r.stdout
    assert "(unfulfilled)" in r.stdout
    cluster.wait_until(lambda: log.exists() and len(log.read_text().split()) == 4,
                       timeout=90, what="the pipeline to finish")
    assert log.read_text().split() == ["preprocess", "train", "eval", "cleanup"]


def test_unknown_job_id_is_satisfied(cluster, tmp_path):
    jid = cluster.sbatch("--dependency=afterok:999999", "--wrap", "true",
                         cwd=tmp_path)
    cluster.wait_job_state(jid, "COMPLETED", timeout=30)
    assert field(cluster, jid, "Dependency") == "(null)"


def test_bad_syntax_is_rejected(cluster, tmp_path):
    r = cluster.run("sbatch", "--dependency=afterfoo:1", "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert "Job dependency problem" in r.stderr


def test_afterok_of_failed_job_never_satisfied_and_kill(cluster, tmp_path):
    bad = cluster.sbatch("--wrap", "exit 3", cwd=tmp_path)
    stay = cluster.sbatch(f"--dependency=afterok:{bad}", "--wrap", "true",
                          cwd=tmp_path)
    kill = cluster.sbatch(f"--dependency=afterok:{bad}",
                          "--kill-on-invalid-dep=yes", "--wrap", "true",
                          cwd=tmp_path)
    notok = cluster.sbatch(f"--dependency=afternotok:{bad}", "--wrap", "true",
                           cwd=tmp_path)
    cluster.wait_job_state(notok, "COMPLETED", timeout=30)
    cluster.wait_until(lambda: field(cluster, stay, "Reason")
                       == "DependencyNeverSatisfied", timeout=30,
                       what="DependencyNeverSatisfied")
    assert field(cluster, stay, "JobState") == "PENDING"
    assert field(cluster, stay, "Dependency") == f"afterok:{bad}(failed)"
    cluster.wait_job_state(kill, "CANCELLED", timeout=30)
    cluster.run("scancel", stay, check=True)


def test_after_any_of_and_all_of(cluster, tmp_path):
    a = cluster.sbatch("--wrap", "sleep 2", cwd=tmp_path)
    hold = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    after = cluster.sbatch(f"--dependency=after:{a}", "--wrap", "true",
                           cwd=tmp_path)
    anyof = cluster.sbatch(f"--dependency=afterany:{a}?afterany:{hold}",
                           "--wrap", "true", cwd=tmp_path)
    allof = cluster.sbatch(f"--dependency=afterany:{a},afterany:{hold}",
                           "--wrap", "true", cwd=tmp_path)
    cluster.wait_job_state(after, "COMPLETED", timeout=30)
    cluster.wait_job_state(anyof, "COMPLETED", timeout=30)
    assert field(cluster, allof, "Reason") == "Dependency"
    cluster.run("scancel", hold, check=True)
    cluster.wait_job_state(allof, "COMPLETED", timeout=30)


def test_after_with_minutes_waits(cluster, tmp_path):
    a = cluster.sbatch("--wrap", "sleep 30", cwd=tmp_path)
    cluster.wait_job_state(a, "RUNNING", timeout=30)
    b = cluster.sbatch(f"--dependency=after:{a}+1", "--wrap", "true",
                       cwd=tmp_path)
    assert field(cluster, b, "Dependency") == f"after:{a}+1(unfulfilled)"
    assert field(cluster, b, "JobState") == "PENDING"
    cluster.run("scancel", a, b, check=True)


def test_aftercorr_runs_matching_tasks(cluster, tmp_path):
    a = cluster.sbatch("--array=0-2", "-o", str(tmp_path / "a-%a"), "--wrap",
                       "sleep 1; echo a", cwd=tmp_path)
    b = cluster.sbatch("--array=0-2", f"--dependency=aftercorr:{a}",
                       "-o", str(tmp_path / "b-%a"), "--wrap",
                       f"cat {tmp_path}/a-$SLURM_ARRAY_TASK_ID", cwd=tmp_path)
    files = [tmp_path / f"b-{k}" for k in range(3)]
    cluster.wait_until(lambda: all(f.exists() and f.read_text() for f in files),
                       timeout=60, what="b's tasks to finish")
    assert all(f.read_text() == "a\n" for f in files)
    assert b


def test_singleton_runs_one_at_a_time(cluster, tmp_path):
    first = cluster.sbatch("-J", "solo", "--wrap", "sleep 3", cwd=tmp_path)
    second = cluster.sbatch("-J", "solo", "--dependency=singleton", "--wrap",
                            "true", cwd=tmp_path)
    cluster.wait_job_state(first, "RUNNING", timeout=30)
    assert field(cluster, second, "Reason") == "Dependency"
    assert field(cluster, second, "Dependency") == "singleton(unfulfilled)"
    cluster.wait_job_state(second, "COMPLETED", timeout=30)
    assert (int(field(cluster, second, "StartTime") != "")) == 1


def test_update_dependency_add_change_and_clear(cluster, tmp_path):
    first = cluster.sbatch("--wrap", "sleep 2", cwd=tmp_path)
    job = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    cluster.run("scontrol", "update", f"JobId={job}",
                f"Dependency=afterok:{first}", check=True)
    assert field(cluster, job, "Dependency") == \
        f"afterok:{first}(unfulfilled)"
    cluster.run("scontrol", "update", f"JobId={job}",
                f"Dependency=afternotok:{first}", check=True)
    cluster.run("scontrol", "release", job, check=True)
    cluster.wait_job_state(first, "COMPLETED", timeout=30)
    cluster.wait_until(lambda: field(cluster, job, "Reason")
                       == "DependencyNeverSatisfied", timeout=30,
                       what="DependencyNeverSatisfied")
    cluster.run("scontrol", "update", f"JobId={job}", "Dependency=",
                check=True)
    cluster.wait_job_state(job, "COMPLETED", timeout=30)
    assert field(cluster, job, "Dependency") == "(null)"


def test_update_dependency_errors(cluster, tmp_path):
    job = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    r = cluster.run("scontrol", "update", f"JobId={job}",
                    "Dependency=afterfoo:1")
    assert r.returncode == 1
    assert "Job dependency problem" in r.stderr
    r = cluster.run("scontrol", "update", f"JobId={job}",
                    f"Dependency=afterok:{job}")
    assert r.returncode == 1
    assert field(cluster, job, "Dependency") == "(null)"
    run = cluster.sbatch("--wrap", "sleep 30", cwd=tmp_path)
    cluster.wait_job_state(run, "RUNNING", timeout=30)
    r = cluster.run("scontrol", "update", f"JobId={run}",
                    f"Dependency=afterok:{job}")
    assert r.returncode == 1
    assert "Job is no longer pending execution" in r.stderr
    cluster.run("scancel", run, job)


def test_aftercorr_failed_task_never_satisfied(cluster, tmp_path):
    a = cluster.sbatch("--array=0-2", "-o", "/dev/null", "--wrap",
                       "[ $SLURM_ARRAY_TASK_ID != 1 ]", cwd=tmp_path)
    b = cluster.sbatch("--array=0-2", f"--dependency=aftercorr:{a}",
                       "-o", str(tmp_path / "b-%a"), "--wrap", "true",
                       cwd=tmp_path)
    cluster.wait_until(lambda: (tmp_path / "b-0").exists()
                       and (tmp_path / "b-2").exists(), timeout=60,
                       what="b's tasks 0 and 2 to run")
    cluster.wait_until(lambda: field(cluster, f"{b}_1", "Reason")
                       == "DependencyNeverSatisfied", timeout=30,
                       what="task 1 DependencyNeverSatisfied")
    assert field(cluster, f"{b}_1", "JobState") == "PENDING"
    assert not (tmp_path / "b-1").exists()
    r = cluster.run("squeue", "-h", "-o", "%i %r", "-j", b, check=True)
    assert r.stdout.split() == [f"{b}_1", "DependencyNeverSatisfied"]
    k = cluster.sbatch("--array=0-2", f"--dependency=aftercorr:{a}",
                       "--kill-on-invalid-dep=yes", "-o", "/dev/null",
                       "--wrap", "true", cwd=tmp_path)
    cluster.wait_until(lambda: field(cluster, f"{k}_1", "JobState")
                       == "CANCELLED", timeout=30, what="task 1 cancelled")
