# SPDX-License-Identifier: Apache-2.0
"""Commands outlive a controller that is away, as Slurm's do (issue 15).

Slurm's commands try each SlurmctldHost in order and, while none answers,
again once a second for MessageTimeout seconds
(slurm_open_controller_conn); then they fail with "Unable to contact slurm
controller (connect failure)".
"""
import re
import signal
import subprocess
import time

SLURM_CONNECT_FAILURE = "Unable to contact slurm controller (connect failure)"


def conf_copy(cluster, name, edit):
    """A copy of the cluster's slurm.conf beside it (so its Include and
    gres.conf paths still resolve), with 'edit' applied to its text."""
    path = cluster.conf.parent / name
    path.write_text(edit(cluster.conf.read_text()))
    return path


def test_a_submission_waits_for_the_controller_to_come_back(cluster, tmp_path):
    cluster.kill("droverctld", signal.SIGKILL)
    started = time.monotonic()
    sbatch = subprocess.Popen(
        ["sbatch", "--parsable", "--wrap", "true"], cwd=tmp_path,
        env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    squeue = subprocess.Popen(["squeue", "-h", "-o", "%i"], env=cluster.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    time.sleep(2)
    assert sbatch.poll() is None, "sbatch gave up while the controller was away"
    cluster.start()
    out, err = sbatch.communicate(timeout=30)
    assert sbatch.returncode == 0, err
    job = int(out.strip())
    _, qerr = squeue.communicate(timeout=30)
    assert squeue.returncode == 0, qerr
    assert time.monotonic() - started >= 2
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)


def test_no_controller_fails_after_message_timeout_with_slurms_text(cluster, tmp_path):
    conf = conf_copy(cluster, "short.conf",
                     lambda t: re.sub(r"(?mi)^MessageTimeout=.*\n", "", t)
                     + "MessageTimeout=2\n")
    env = dict(cluster.env, DROVER_CONF=str(conf))
    cluster.kill("droverctld", signal.SIGKILL)
    started = time.monotonic()
    r = subprocess.run(["sbatch", "--wrap", "true"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        f"{SLURM_CONNECT_FAILURE}\n")
    # Slurm's count: MessageTimeout rounds, one second apart.
    assert 0.9 <= took < 10, f"gave up after {took:.1f} s"
    r = subprocess.run(["squeue"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1
    assert r.stderr == f"slurm_load_jobs error: {SLURM_CONNECT_FAILURE}\n"
    cluster.start()


def test_commands_try_each_slurmctldhost_in_order(cluster, tmp_path):
    # The first controller named does not exist; the second is the real
    # one.  Only the commands read this copy: the daemons keep theirs.
    def backup_second(text):
        line = re.search(r"(?m)^SlurmctldHost=.*$", text).group(0)
        return text.replace(line, "SlurmctldHost=gone(ctl-gone.invalid)\n"
                            + line + "\nSlurmctldParameters="
                            "drover_raft_port=1")
    conf = conf_copy(cluster, "backup.conf", backup_second)
    env = dict(cluster.env, DROVER_CONF=str(conf))
    r = subprocess.run(["sbatch", "--parsable", "--wrap", "true"],
                       cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    cluster.wait_job_state(int(r.stdout.strip()), ["COMPLETED"], timeout=30)
    # scontrol ping asks each controller once, without waiting for it.
    r = subprocess.run(["scontrol", "ping"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.stdout == ("Slurmctld(primary) at gone is DOWN\n"
                        "Slurmctld(backup) at localhost is UP\n"), r.stderr
