# SPDX-License-Identifier: Apache-2.0
"""kill -9 of the controller loses no acknowledged job and reuses no id."""
import signal
import subprocess
import time

import pytest

from cluster import Cluster


def test_kill9_controller_keeps_every_job_and_running_jobs_keep_running(cluster, tmp_path):
    running = cluster.sbatch("-o", str(tmp_path / "r.out"), "--wrap",
                             "sleep 4; echo survived", cwd=tmp_path)
    cluster.wait_job_state(running, ["RUNNING"], timeout=30)
    held = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    done = cluster.sbatch("--wrap", "true", cwd=tmp_path)
    cluster.wait_job_state(done, ["COMPLETED"], timeout=30)

    cluster.kill("droverctld", signal.SIGKILL)
    cluster.start()

    assert cluster.job_field(held, "JobState") == "PENDING"
    assert cluster.job_field(held, "Reason") == "JobHeldUser"
    assert cluster.job_field(done, "JobState") == "COMPLETED"
    assert cluster.job_field(running, "JobState") in ("RUNNING", "COMPLETED")
    cluster.wait_job_state(running, ["COMPLETED"], timeout=30)
    assert (tmp_path / "r.out").read_text() == "survived\n"
    new = cluster.sbatch("--wrap", "true", cwd=tmp_path)
    assert int(new) > max(int(running), int(held), int(done))


def test_kill9_during_a_submit_loop_loses_no_acknowledged_job(cluster, tmp_path):
    with cluster.held_submitter(tmp_path) as acked:
        cluster.wait_until(lambda: len(acked) >= 20, timeout=60,
                           what="20 submissions")
        cluster.kill("droverctld", signal.SIGKILL)
        time.sleep(0.5)  # submissions fail while it is down
        cluster.start()
        cluster.wait_until(lambda: len(acked) >= 40, timeout=60,
                           what="submissions resume after restart")

    out = cluster.run("squeue", "-h", "-o", "%i", check=True).stdout.split()
    known = set(map(int, out))
    missing = [j for j in acked if j not in known]
    assert not missing, f"acknowledged jobs lost: {missing}"
    assert len(acked) == len(set(acked)), "a job id was handed out twice"
    cluster.run("scancel", "-u", cluster.user, check=True)


@pytest.mark.needs_root
def test_full_disk_refuses_submissions_cleanly_and_loses_nothing(cluster_root):
    """A submission whose journal record cannot be written is refused with a
    clear error and leaves no trace; the controller keeps running, and
    everything acknowledged before and after survives a kill -9."""
    state = cluster_root / "statefs"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(state)],
                   check=True)
    c = Cluster(cluster_root, nodes=1,
                up_args=["--conf-extra", f"StateSaveLocation={state}"])
    try:
        c.up()
        before = c.sbatch("-H", "--wrap", "true")
        filler = state / "filler"
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"],
                       capture_output=True)  # until the disk is full
        r = c.run("sbatch", "-H", "--wrap", "true")
        assert r.returncode == 1
        assert r.stderr == ("sbatch: error: Batch job submission failed: "
                            "Unable to save job state, try again\n")
        assert c.run("squeue", "-h", "-o", "%i", check=True).stdout.split() == [before]
        assert c.run("scontrol", "ping", check=True).returncode == 0
        assert "could not be written" in c.log_file("droverctld").read_text()

        filler.unlink()
        after = c.sbatch("-H", "--wrap", "true")
        assert int(after) > int(before)
        c.kill("droverctld", signal.SIGKILL)
        c.start()
        assert sorted(c.run("squeue", "-h", "-o", "%i", check=True).stdout.split(),
                      key=int) == [before, after]
    finally:
        c.down()
        subprocess.run(["umount", "-l", str(state)])


# What `scontrol show job` prints of a job that must be the same after a
# restart (not RunTime, which moves on).
_KEPT = ("JobState", "Reason", "ExitCode", "Restarts", "NodeList",
         "BatchHost", "SubmitTime", "StartTime", "EndTime", "Priority",
         "Nice", "ArrayJobId", "ArrayTaskId", "TimeLimit", "Dependency",
         "EligibleTime")


def _kept(cluster, job_id):
    rec = cluster.show_job(job_id)
    assert rec is not None, f"job {job_id} unknown"
    return {k: rec.get(k) for k in _KEPT}


def test_kill9_after_each_kind_of_state_change_loses_nothing(cluster, tmp_path):
    """Submit, start, steps starting and ending, completion, cancel of a
    pending and a running job, an array split by its throttle, hold,
    update, requeuehold and a drain, a dependency the scheduler judged and
    one changed by scontrol update, an array throttle changed, each
    acknowledged or seen: after a kill -9 of the controller every job,
    step and node reads the same."""
    c = cluster
    steps = c.sbatch("-o", "/dev/null", "--wrap",
                     "srun true; srun false; srun sleep 60", cwd=tmp_path)
    done = c.sbatch("--wrap", "true", cwd=tmp_path)
    pend_cancel = c.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    run_cancel = c.sbatch("--wrap", "sleep 60", cwd=tmp_path)
    held = c.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    array = c.sbatch("--array=0-5%2", "-o", "/dev/null", "--wrap", "sleep 60",
                     cwd=tmp_path)
    requeued = c.sbatch("--wrap", "sleep 60", cwd=tmp_path)
    waits = c.sbatch("-d", f"afterok:{run_cancel}", "--wrap", "true",
                     cwd=tmp_path)
    changed = c.sbatch("-d", f"afterok:{held}", "--wrap", "true",
                       cwd=tmp_path)

    c.wait_job_state(done, ["COMPLETED"], timeout=30)
    c.run("scancel", pend_cancel, check=True)
    c.wait_job_state(run_cancel, ["RUNNING"], timeout=30)
    c.run("scancel", run_cancel, check=True)
    c.run("scontrol", "update", f"JobId={held}", "TimeLimit=7", check=True)
    c.wait_job_state(requeued, ["RUNNING"], timeout=30)
    c.run("scontrol", "requeuehold", requeued, check=True)
    node = c.node_names[-1]
    c.run("scontrol", "update", f"NodeName={node}", "State=DRAIN",
          "Reason=kept_over_restart", check=True)
    c.wait_until(lambda: c.run("scontrol", "show", "step",
                               f"{steps}.2").returncode == 0,
                 timeout=30, what="the third step running")
    c.wait_job_state(run_cancel, ["CANCELLED"], timeout=30)
    # the gate judged it: afterok of a cancelled job never holds
    c.wait_until(lambda: c.job_field(waits, "Reason")
                 == "DependencyNeverSatisfied", timeout=30,
                 what="the dependency judged never satisfied")
    c.run("scontrol", "update", f"JobId={changed}",
          f"Dependency=afterany:{steps}", check=True)
    c.run("scontrol", "update", f"JobId={array}", "ArrayTaskThrottle=3",
          check=True)
    c.wait_until(lambda: c.job_field(requeued, "JobState") == "PENDING",
                 timeout=30, what="the requeued job pending")
    c.wait_until(lambda: len(c.run("squeue", "-h", "-r", "-t", "R", "-j", array)
                             .stdout.split("\n")) > 2,
                 timeout=30, what="two array tasks running")

    ids = [steps, done, pend_cancel, run_cancel, held, requeued, waits,
           changed]
    ids += c.run("squeue", "-h", "-r", "-o", "%i", "-j", array,
                 check=True).stdout.split()
    before = {j: _kept(c, j) for j in ids}
    step_before = c.run("scontrol", "-o", "show", "step", f"{steps}.2",
                        check=True).stdout
    node_before = c.run("sinfo", "-h", "-n", node, "-o", "%T %E",
                        check=True).stdout
    pending_tasks = c.run("squeue", "-h", "-t", "PD", "-o", "%i", "-j",
                          array, check=True).stdout

    c.kill("droverctld", signal.SIGKILL)
    c.start()

    after = {j: _kept(c, j) for j in ids}
    assert after == before
    assert c.run("scontrol", "-o", "show", "step", f"{steps}.2",
                 check=True).stdout == step_before
    assert c.run("sinfo", "-h", "-n", node, "-o", "%T %E",
                 check=True).stdout == node_before
    assert c.run("squeue", "-h", "-t", "PD", "-o", "%i", "-j", array,
                 check=True).stdout == pending_tasks
    assert before[requeued]["Restarts"] == "1"
    assert before[requeued]["Reason"] == "JobHeldUser"
    assert before[held]["TimeLimit"] == "00:07:00"
    assert before[changed]["Dependency"].startswith(f"afterany:{steps}")
    assert pending_tasks.endswith("%3]\n"), pending_tasks
    c.run("scancel", "-u", c.user, check=True)
    c.run("scontrol", "update", f"NodeName={node}", "State=RESUME", check=True)


def _states(cluster, jobs):
    out = cluster.run("squeue", "-h", "-t", "all", "-o", "%i %T",
                      check=True).stdout.split("\n")
    return {int(line.split()[0]): line.split()[1] for line in out if line}


def test_kill9_around_snapshots_loses_and_doubles_nothing(cluster, tmp_path):
    """With a snapshot every 20 records (DROVER_SNAPSHOT_RECORDS), written
    by a forked child while the controller goes on: kill -9s at random
    moments of a submit loop and of the snapshots lose no acknowledged job,
    and a job requeued once says Restarts=1 after each restart (a record
    applied twice would count it again)."""
    cluster.env["DROVER_SNAPSHOT_RECORDS"] = "20"
    cluster.kill("droverctld", signal.SIGKILL)
    cluster.start()
    state = cluster.dir / "state"
    requeued = cluster.sbatch("--requeue", "-o", "/dev/null", "--wrap",
                              "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(requeued, ["RUNNING"], timeout=30)
    cluster.run("scontrol", "requeue", requeued, check=True)
    cluster.wait_until(lambda: cluster.job_field(requeued, "Restarts") == "1",
                       timeout=30, what="the requeue")
    snapshots = 0
    with cluster.held_submitter(tmp_path) as acked:
        for round in range(4):
            cluster.wait_until(lambda: len(acked) >= 25 * (round + 1),
                               timeout=60, what="submissions")
            if (state / "snapshot.json").exists():
                snapshots += 1
            cluster.kill("droverctld", signal.SIGKILL)
            cluster.start()
            assert cluster.job_field(requeued, "Restarts") == "1"
    assert snapshots, "no snapshot was written"
    known = _states(cluster, acked)
    missing = [j for j in acked if j not in known]
    assert not missing, f"acknowledged jobs lost: {missing}"
    cluster.run("scancel", "-u", cluster.user, check=True)
