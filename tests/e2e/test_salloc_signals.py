# SPDX-License-Identifier: Apache-2.0
"""salloc's -K/--kill-command (the signal its command gets when the
allocation is revoked), --bell/--no-bell, and srun's -T."""

import shutil
import subprocess
import time


def test_kill_command_signal_reaches_the_command(cluster, tmp_path):
    out = tmp_path / "out"
    cmd = ('trap "echo got USR1; exit 0" USR1; sleep 100 & wait')
    p = subprocess.Popen([cluster.which("salloc"), "--kill-command=USR1",
                          "-J", "ktest", "bash", "-c", cmd],
                         env=cluster.env, cwd=tmp_path,
                         stdout=open(out, "w"), stderr=subprocess.STDOUT)
    try:
        # salloc has the allocation (and runs the command) once it says so
        cluster.wait_until(lambda: "Granted job allocation" in
                           out.read_text(), what="the allocation")
        job = cluster.run("squeue", "-h", "-n", "ktest", "-o", "%i",
                          check=True).stdout.strip()
        cluster.run("scancel", job, check=True)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    text = out.read_text()
    assert f"Job allocation {job} has been revoked." in text
    assert "got USR1" in text
    r = cluster.run("salloc", "--kill-command=NOSUCH", "true", cwd=tmp_path)
    assert r.returncode == 1
    assert "salloc: error: Invalid signal name: NOSUCH" in r.stderr


def _on_a_terminal(cluster, tmp_path, *args):
    """salloc's stdout bytes when it runs on a terminal (script(1))."""
    line = " ".join([str(cluster.which("salloc")), *args, "true"])
    r = subprocess.run([shutil.which("script"), "-qec", line, "/dev/null"],
                       env=cluster.env, cwd=tmp_path, capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r
    return r.stdout


def test_bell_rings_only_when_asked_or_after_a_wait(cluster, tmp_path):
    assert b"\a" in _on_a_terminal(cluster, tmp_path, "--bell")
    assert b"\a" not in _on_a_terminal(cluster, tmp_path)
    assert b"\a" not in _on_a_terminal(cluster, tmp_path, "--no-bell")
    # not a terminal: never
    r = cluster.run("salloc", "--bell", "true", cwd=tmp_path, check=True)
    assert "\a" not in r.stdout


def test_srun_threads_is_checked(cluster, tmp_path):
    r = cluster.run("srun", "-T", "4", "true", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = cluster.run("srun", "-T", "x", "true", cwd=tmp_path)
    assert r.returncode != 0
    assert "--threads" in r.stderr
