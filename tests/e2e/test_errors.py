# SPDX-License-Identifier: Apache-2.0
"""Bad input gets a clear error and a non-zero exit; daemons keep running."""
import socket
import struct


def test_bad_options_and_values_are_rejected_like_slurm(cluster, tmp_path):
    cases = [
        (["--nosuchoption", "--wrap=true"], 255,
         "sbatch: unrecognized option '--nosuchoption'\n"
         "Try \"sbatch --help\" for more information\n"),
        (["--time=bogus", "--wrap=true"], 255,
         "sbatch: error: Invalid --time specification\n"),
        (["--mem=abc", "--wrap=true"], 255,
         "sbatch: error: Invalid --mem specification\n"),
        (["-p", "nosuch", "--wrap=true"], 1,
         "sbatch: error: invalid partition specified: nosuch\n"
         "sbatch: error: Batch job submission failed: Invalid partition name specified\n"),
    ]
    for args, rc, err in cases:
        r = cluster.run("sbatch", *args, cwd=tmp_path)
        assert (r.returncode, r.stderr) == (rc, err), args


def test_bad_gres_and_no_shebang_are_rejected(cluster, tmp_path):
    r = cluster.run("sbatch", "--gres=gpu:nosuch:1", "--wrap=true",
                    cwd=tmp_path)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: Batch job submission failed: Requested node "
           "configuration is not available\n")
    r = cluster.run("sbatch", "--gres=gpu:x:y:z", "--wrap=true", cwd=tmp_path)
    assert r.returncode != 0 and "gres" in r.stderr.lower()
    script = tmp_path / "noshebang.sh"
    script.write_text("echo no shebang here\n")
    r = cluster.run("sbatch", str(script), cwd=tmp_path)
    assert r.returncode == 1
    assert "This does not look like a batch script" in r.stderr


def test_unknown_job_ids_get_slurms_answers(cluster):
    r = cluster.run("scontrol", "show", "job", "999999")
    assert (r.returncode, r.stderr) == (1, "slurm_load_jobs error: Invalid job id specified\n")
    r = cluster.run("scancel", "abc")
    assert (r.returncode, r.stderr) == (1, "scancel: error: Invalid job id abc\n")


def test_garbage_frames_and_unauthenticated_requests_do_not_hurt_the_controller(cluster):
    port = cluster.ctld_port
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"\x00\x00\x00\x05hello")
        reply = s.recv(65536)
    assert b"malformed" in reply.lower() or b"\"errnum\":20000" in reply
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        body = b'{"v":1,"type":"job_submit","body":{"script":"#!/bin/sh\\ntrue"}}'
        s.sendall(struct.pack(">I", len(body)) + body)
        reply = s.recv(65536)
    assert b"1007" in reply  # EDRV_PROTOCOL_AUTH
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"\xff\xff\xff\xff" + b"x" * 100)
        s.recv(65536)
    # Still answering, state intact.
    assert cluster.run("scontrol", "ping", check=True).returncode == 0
    assert cluster.run("sinfo", "-h", "-o", "%D", check=True).stdout.strip() == "4"


def test_malformed_config_line_names_file_and_line(tmp_path, drover_bin):
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=x\nNodeName=n1 CPUs=4 RealMemory=abc\n")
    import subprocess
    r = subprocess.run([drover_bin("droverctld"), "-D", "-f", str(conf)],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode != 0
    assert "slurm.conf:2:" in r.stderr and "RealMemory" in r.stderr
