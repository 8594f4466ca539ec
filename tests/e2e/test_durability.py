# SPDX-License-Identifier: Apache-2.0
"""kill -9 of the controller loses no acknowledged job and reuses no id."""
import signal
import subprocess
import threading
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
    acked = []
    stop = threading.Event()

    def submit_loop():
        while not stop.is_set():
            r = cluster.run("sbatch", "--parsable", "-H", "--wrap", "true",
                            cwd=tmp_path, timeout=30)
            if r.returncode == 0:
                acked.append(int(r.stdout.strip()))

    t = threading.Thread(target=submit_loop)
    t.start()
    cluster.wait_until(lambda: len(acked) >= 20, timeout=60, what="20 submissions")
    cluster.kill("droverctld", signal.SIGKILL)
    time.sleep(0.5)  # submissions fail while it is down
    cluster.start()
    cluster.wait_until(lambda: len(acked) >= 40, timeout=60,
                       what="submissions resume after restart")
    stop.set()
    t.join(timeout=60)

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
