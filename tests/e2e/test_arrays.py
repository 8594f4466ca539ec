# SPDX-License-Identifier: Apache-2.0
"""Job arrays: ids, environment, %A/%a, throttle, squeue/scancel/scontrol
forms, MaxArraySize, one record while pending, kill -9 of the controller."""
import json
import re
import signal


def squeue(cluster, *args):
    return cluster.run("squeue", *args, check=True).stdout


def test_array_tasks_get_env_and_output_files(cluster, tmp_path):
    script = tmp_path / "a.sh"
    script.write_text("#!/bin/bash\n#SBATCH --array=0-15:4\n"
                      "#SBATCH -o " + str(tmp_path) + "/out-%A_%a.txt\n"
                      "env | grep ^SLURM_ARRAY | sort\n")
    jid = cluster.sbatch(str(script), cwd=tmp_path)
    files = [tmp_path / f"out-{jid}_{k}.txt" for k in (0, 4, 8, 12)]
    cluster.wait_until(lambda: all(f.exists() and f.read_text() for f in files),
                       timeout=60, what="four task outputs")
    text = files[1].read_text()
    assert f"SLURM_ARRAY_JOB_ID={jid}\n" in text
    assert "SLURM_ARRAY_TASK_ID=4\n" in text
    assert "SLURM_ARRAY_TASK_COUNT=4\n" in text
    assert "SLURM_ARRAY_TASK_MIN=0\n" in text
    assert "SLURM_ARRAY_TASK_MAX=12\n" in text
    assert "SLURM_ARRAY_TASK_STEP=4\n" in text


def test_throttle_pending_line_and_r_expansion(cluster, tmp_path):
    jid = cluster.sbatch("--array=0-19%5", "--wrap", "sleep 30", cwd=tmp_path)
    cluster.wait_until(lambda: squeue(cluster, "-h", "-t", "R", "-o", "%i")
                       .count("\n") == 5, timeout=30, what="5 running tasks")
    lines = squeue(cluster, "-h", "-j", jid, "-t", "PD", "-o", "%i %r").split("\n")
    assert lines[0] == f"{jid}_[5-19%5] JobArrayTaskLimit"
    expanded = squeue(cluster, "-h", "-r", "-j", jid, "-o", "%i %t").split("\n")
    ids = sorted(l.split()[0] for l in expanded if l)
    assert len(ids) == 20
    assert f"{jid}_19" in ids and f"{jid}_0" in ids
    running = squeue(cluster, "-h", "-t", "R", "-o", "%i %A %a").split("\n")
    assert f"{jid}_0 " in running[0] or any(l.startswith(f"{jid}_0 ")
                                            for l in running)
    # ArrayTaskThrottle update lets more run.
    cluster.run("scontrol", "update", f"JobId={jid}", "ArrayTaskThrottle=8",
                check=True)
    cluster.wait_until(lambda: squeue(cluster, "-h", "-t", "R", "-o", "%i")
                       .count("\n") == 8, timeout=30, what="8 running tasks")
    assert "ArrayTaskThrottle=8" in cluster.run(
        "scontrol", "show", "job", jid, check=True).stdout
    cluster.run("scancel", jid, check=True)
    cluster.wait_until(lambda: not squeue(cluster, "-h"), timeout=30,
                       what="the array to be gone")


def test_scancel_task_forms_and_show_task(cluster, tmp_path):
    jid = cluster.sbatch("--array=0-19%2", "--wrap", "sleep 30", cwd=tmp_path)
    cluster.wait_until(lambda: squeue(cluster, "-h", "-t", "R", "-o", "%i")
                       .count("\n") == 2, timeout=30, what="2 running tasks")
    out = cluster.run("scontrol", "show", "job", f"{jid}_7", check=True).stdout
    assert f"ArrayJobId={jid}" in out and "JobState=PENDING" in out
    run0 = cluster.run("scontrol", "show", "job", f"{jid}_0", check=True).stdout
    assert "ArrayTaskId=0 " in run0 and "JobState=RUNNING" in run0
    cluster.run("scancel", f"{jid}_7", check=True)
    cluster.run("scancel", f"{jid}_[10-12]", check=True)
    cluster.run("scancel", f"{jid}_0", check=True)
    pend = squeue(cluster, "-h", "-r", "-j", jid, "-t", "PD", "-o", "%i")
    for k in (7, 10, 11, 12):
        assert f"{jid}_{k}\n" not in pend
    assert f"{jid}_8\n" in pend
    cluster.run("scancel", jid, check=True)
    cluster.wait_until(lambda: not squeue(cluster, "-h"), timeout=30,
                       what="the array to be gone")


def test_scancel_pending_filter_spares_running_tasks(cluster, tmp_path):
    """scancel -t PENDING cancels an array's record of pending tasks, in one
    request, and not its running tasks (it cancelled the whole array)."""
    jid = cluster.sbatch("--array=0-99", "--exclusive", "--wrap", "sleep 300",
                         cwd=tmp_path)  # a task per node: most pend
    cluster.wait_until(lambda: squeue(cluster, "-h", "-t", "R", "-o", "%i")
                       .strip() != "", timeout=30, what="a running task")
    running = squeue(cluster, "-h", "-t", "R", "-j", jid, "-o", "%i")
    user = squeue(cluster, "-h", "-j", jid, "-o", "%u").split()[0]
    r = cluster.run("scancel", "-v", "-t", "PENDING", "-u", user,
                    check=True)
    # Slurm names the pending record by its id
    assert r.stderr == f"scancel: Terminating job {jid}\n"
    assert squeue(cluster, "-h", "-t", "PD", "-j", jid) == ""
    assert squeue(cluster, "-h", "-t", "R", "-j", jid, "-o", "%i") == running
    out = cluster.run("scontrol", "show", "job", f"{jid}_99",
                      check=True).stdout
    assert "JobState=CANCELLED" in out
    cluster.run("scancel", jid, check=True)
    cluster.wait_until(lambda: not squeue(cluster, "-h"), timeout=30,
                       what="the array to be gone")


def test_max_array_size_error(cluster, tmp_path):
    r = cluster.run("sbatch", "--array=0-2000000", "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Invalid job array specification\n")


def test_thousand_task_array_is_one_record_until_started(cluster, tmp_path):
    jid = cluster.sbatch("-H", "--array=0-999", "--wrap", "true", cwd=tmp_path)
    jobs = cluster.rpc("job_info", {})["jobs"]
    assert len(jobs) == 1
    assert jobs[0]["array_task_str"] == "0-999"
    assert squeue(cluster, "-h", "-o", "%i") == f"{jid}_[0-999]\n"
    cluster.run("scancel", jid, check=True)


def test_kill9_controller_mid_array_loses_no_task(cluster, tmp_path):
    jid = cluster.sbatch("--array=0-9%3", "-o", str(tmp_path / "o-%a"),
                         "--wrap", "sleep 1; echo done", cwd=tmp_path)
    cluster.wait_until(lambda: (tmp_path / "o-0").exists(), timeout=30,
                       what="task 0 to start")
    cluster.kill("droverctld", signal.SIGKILL)
    cluster.start()
    files = [tmp_path / f"o-{k}" for k in range(10)]
    cluster.wait_until(lambda: all(f.exists() and f.read_text() == "done\n"
                                   for f in files),
                       timeout=90, what="all ten tasks to finish")
    out = cluster.run("scontrol", "-o", "show", "job", jid, check=True).stdout
    assert len(re.findall(r"ArrayJobId=" + jid, out)) == 10


def test_stepped_array_pending_tasks_fold_with_their_step(cluster, tmp_path):
    jid = cluster.sbatch("-H", "--array=0-15:4", "--wrap", "true",
                         cwd=tmp_path)
    assert squeue(cluster, "-h", "-o", "%i") == f"{jid}_[0-12:4]\n"
    out = cluster.run("scontrol", "show", "job", jid, check=True).stdout
    assert "ArrayTaskId=0-12:4 " in out
    cluster.run("scancel", f"{jid}_4", check=True)
    # 0,8,12 is no longer one progression: Slurm lists it.
    assert squeue(cluster, "-h", "-o", "%i") == f"{jid}_[0,8,12]\n"
    cluster.run("scancel", jid, check=True)


def test_array_records_in_slurms_order_and_task_filter(cluster, tmp_path):
    jid = cluster.sbatch("--array=0-7%2", "-c4", "-J", "arr", "--wrap",
                         "sleep 60", cwd=tmp_path)
    cluster.wait_until(lambda: squeue(cluster, "-h", "-t", "R", "-o", "%i")
                       .count("\n") == 2, timeout=30, what="2 running tasks")
    # Golden squeue-array-r: pending tasks, then running task 1, task 0.
    ids = squeue(cluster, "-h", "-r", "-j", jid, "-o", "%i").split()
    assert ids == [f"{jid}_{k}" for k in (2, 3, 4, 5, 6, 7, 1, 0)]
    # Golden squeue-array-tasks-running: only the tasks named.
    out = squeue(cluster, "-j", f"{jid}_0,{jid}_1", "-o",
                 "%i %A %a %F %K %j %T")
    lines = out.split("\n")
    assert lines[0] == ("JOBID JOBID ACCOUNT ARRAY_JOB_ID ARRAY_TASK_ID "
                        "NAME STATE")
    assert [l.split()[0] for l in lines[1:] if l] == [f"{jid}_0", f"{jid}_1"]
    assert lines[1].endswith(f" {jid} 0 arr RUNNING")
    # Golden scontrol-show-job-array: the array record, then the newest task.
    out = cluster.run("scontrol", "show", "job", jid, check=True).stdout
    tasks = re.findall(r"ArrayTaskId=(\S+)", out)
    assert tasks == ["2-7%2", "1", "0"]
    assert out.split("\n")[6].endswith("EligibleTime=Unknown")
    cluster.run("scancel", jid, check=True)


def test_squeue_json_prints_empty_arrays_as_slurm(cluster, tmp_path):
    cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    out = squeue(cluster, "--json")
    assert '  "errors": [\n  ],\n' in out
    assert '"cluster": "' in out and '"cluster": "",' not in out


def test_sacct_accounts_the_record_of_pending_tasks(cluster, tmp_path):
    """As Slurm's meta record: an array's tasks not split off yet are one
    sacct row, JobID N_[2-4%1] (as squeue writes them), pending, then
    cancelled with the array; the last task split off takes its id."""
    def rows():
        out = cluster.run("sacct", "-X", "-n", "-P", "-j", jid, "-o",
                          "JobID,JobIDRaw,State", check=True).stdout
        return {line.split("|")[0]: line.split("|")[1:]
                for line in out.splitlines()}

    jid = cluster.sbatch("--array=1-4%1", "-o", "/dev/null", "--wrap",
                         "sleep 300", cwd=tmp_path)
    cluster.wait_until(lambda: rows().get(f"{jid}_1", [0, ""])[1]
                       == "RUNNING" and f"{jid}_[2-4%1]" in rows(),
                       timeout=30, what="the running task and the rest")
    got = rows()
    assert got[f"{jid}_[2-4%1]"] == [jid, "PENDING"]
    assert set(got) == {f"{jid}_1", f"{jid}_[2-4%1]"}
    assert got[f"{jid}_1"][0] != jid  # a record of its own
    out = cluster.run("sacct", "--json", "-j", jid, check=True).stdout
    tasks = {j["job_id"]: j["array"]["task"]
             for j in json.loads(out)["jobs"]}
    assert tasks[int(jid)] == "2-4%1"
    cluster.run("scancel", jid, check=True)
    cluster.wait_until(lambda: all(r[1].startswith("CANCELLED")
                                   for r in rows().values())
                       and len(rows()) == 2, timeout=30,
                       what="both records cancelled in sacct")

    # the last task split off takes the master's id, and its row
    kid = cluster.sbatch("--array=0-1", "-o", "/dev/null", "--wrap", "true",
                         cwd=tmp_path)
    cluster.wait_job_done(f"{kid}_1", timeout=60)
    cluster.wait_job_done(f"{kid}_0", timeout=60)
    jid = kid
    cluster.wait_until(lambda: {k: v[1] for k, v in rows().items()}
                       == {f"{kid}_0": "COMPLETED", f"{kid}_1": "COMPLETED"},
                       timeout=30, what="two task rows, no array row left")
    assert rows()[f"{kid}_1"][0] == kid
