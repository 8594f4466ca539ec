# SPDX-License-Identifier: Apache-2.0
"""Hostile input from an ordinary user cannot crash the controller, slip
past a partition's MaxTime, bloat its memory and journal, or forge lines
of squeue and sacct output (issue 19: findings 3, 5, 9 and 10b).

Every attack runs as the ordinary user druser1, through the real commands
and through raw MUNGE-authenticated frames (cluster.rpc), and must be
refused with Slurm's error while the controller keeps answering and an
ordinary job still runs.
"""
import json
import re
import shutil
import socket
import struct
import tempfile
from pathlib import Path

import pytest

from cluster import Cluster, ClusterError
from conftest import sanitizer_reports
from test_requests import job, wait_reason

MAX_SCRIPT = 100000  # SchedulerParameters=max_script_size for this cluster
SCRIPT = "#!/bin/sh\ntrue\n"
FAILED = "sbatch: error: Batch job submission failed: "


@pytest.fixture(scope="module")
def c(test_users):
    """One 2-node cluster for the module: partitions debug (the default)
    and short, whose MaxTime is 10 minutes; scripts up to MAX_SCRIPT
    bytes."""
    root = Path(tempfile.mkdtemp(prefix="drover-e2e-security-input-",
                                 dir="/tmp"))
    root.chmod(0o755)
    cl = Cluster(root, nodes=2, gpus_per_node=0, up_args=[
        "--conf-extra=PartitionName=short Nodes=ALL MaxTime=10:00 State=UP",
        f"--conf-extra=SchedulerParameters=bf_continue,"
        f"max_script_size={MAX_SCRIPT}"])
    try:
        cl.up()
        yield cl
    finally:
        cl.down()
    reports = sanitizer_reports(root)
    shutil.rmtree(root, ignore_errors=True)
    assert not reports, "sanitizer reports:\n" + "\n".join(reports)


USER = "druser1"


def body(**kw):
    """A minimal valid job_submit body, with 'kw' added."""
    b = {"script": SCRIPT, "argv": [], "env": {}, "work_dir": "/tmp",
         "name": "raw"}
    b.update(kw)
    return b


def refused(c, msg_type, b, errnum, user=USER):
    """Send a raw frame that must be refused with Slurm's 'errnum'."""
    with pytest.raises(ClusterError, match=f"error {errnum}:"):
        c.rpc(msg_type, b, user=user)


def alive(c):
    """The controller still answers, and an ordinary job still runs."""
    r = c.run("squeue", user=USER)
    assert r.returncode == 0, r.stderr
    j = c.sbatch("-t", "1:00", "--wrap=true", user=USER)
    c.wait_job_state(j, ["COMPLETED"], timeout=60)


# --- finding 3: nested parsers --------------------------------------------

def test_deep_constraint_is_refused_and_controller_lives(c):
    deep = "(" * 60000
    r = c.run("sbatch", "-C", deep, "--wrap=true", user=USER)
    assert (r.returncode, r.stderr) == \
        (1, FAILED + "Invalid feature specification\n")
    # Short enough for the length limit, too deep for the parser.
    r = c.run("sbatch", "-C", "(" * 40 + "a" + ")" * 40, "--wrap=true",
              user=USER)
    assert (r.returncode, r.stderr) == \
        (1, FAILED + "Invalid feature specification\n")
    refused(c, "job_submit", body(features=deep), 2029)
    held = c.sbatch("-H", "--wrap=true", user=USER)
    r = c.run("scontrol", "update", f"JobId={held}", f"Features={deep}",
              user=USER)
    assert (r.returncode, r.stderr) == \
        (1, f"Invalid feature specification for job {held}\n")
    refused(c, "job_update", {"job_id": int(held), "features": deep}, 2029)
    c.run("scancel", held, user=USER, check=True)
    alive(c)


def test_deep_dependency_and_hostlists_are_refused(c):
    refused(c, "job_submit", body(dependency="afterok:1" + ":1" * 70000),
            2038)
    refused(c, "job_submit", body(req_nodes="n" + "[1-2]" * 20), 2018)
    refused(c, "job_submit", body(array="1," * 3000), 2081)
    alive(c)


def raw_frame(c, msg_type, body_text, user=USER):
    """Send a frame whose body is given as JSON text (for nesting deeper
    than Python's json can write).  Returns the decoded answer, or None
    when the controller closed the connection."""
    cred = c._munge_cred(msg_type, body_text, user)
    req = (f'{{"v":1,"type":"{msg_type}","cred":{json.dumps(cred)},'
           f'"body":{body_text}}}').encode()
    with socket.create_connection(("127.0.0.1", c.ctld_port), 10) as s:
        s.sendall(struct.pack(">I", len(req)) + req)
        try:
            return json.loads(c._recv_frame(s))
        except (OSError, ValueError, ClusterError):
            return None


def nested_body(key, depth):
    """Compact sorted JSON of body() with 'key' holding 'depth' nested
    arrays ('key' sorts first, as the credential's text must)."""
    b = body()
    b.pop(key, None)
    rest = json.dumps(b, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False)
    return f'{{"{key}":' + "[" * depth + "]" * depth + "," + rest[1:]


@pytest.mark.parametrize("depth", [2000, 100000])
def test_deeply_nested_frames_leave_the_controller_up(c, depth):
    # jansson stops at JSON_PARSER_MAX_DEPTH (2048): deeper frames are
    # refused whole; shallower ones reach the handler, which wants strings.
    for key in ("aaa", "argv"):
        resp = raw_frame(c, "job_submit", nested_body(key, depth))
        if key == "argv" or depth > 2048:
            assert resp is None or resp["type"] == "error", resp
    alive(c)


# --- finding 5: integers range- and type-checked --------------------------

@pytest.mark.parametrize("value, errnum", [
    (-2, 2051), (-1000, 2051), (2**63 - 1, 2051), (2**32 * 60, 2051),
    ("abc", 20000), (1.5, 20000), (None, 20000), (True, 20000)])
def test_bad_time_limits_are_refused(c, value, errnum):
    refused(c, "job_submit", body(time_limit_s=value), errnum)


def test_time_limit_checks_and_partition_max_time(c):
    short = {"partition": "short"}
    ok = c.rpc("job_submit", body(time_limit_s=60, **short),
               user=USER)["job_id"]
    c.wait_job_state(ok, ["COMPLETED"], timeout=60)
    assert job(c, ok)["time_limit_s"] == 60
    refused(c, "job_submit", body(time_limit_s=-5, **short), 2051)
    # No limit is over MaxTime=10:00: the job pends, as in Slurm.
    inf = c.rpc("job_submit", body(time_limit_s=-1, **short),
                user=USER)["job_id"]
    wait_reason(c, inf, "PartitionTimeLimit")
    r = c.run("sbatch", "-p", "short", "-t", "UNLIMITED", "--wrap=true",
              user=USER)
    assert r.returncode == 0, r.stderr
    over = c.sbatch("-p", "short", "-t", "20:00", "--wrap=true", user=USER)
    wait_reason(c, over, "PartitionTimeLimit")
    # Updates: the same bounds; no limit stays over MaxTime.
    for value, errnum in ((-5, 2051), (2**63 - 1, 2051), ("abc", 20000),
                          ([1], 20000)):
        refused(c, "job_update", {"job_id": int(over),
                                  "time_limit_s": value}, errnum)
    c.rpc("job_update", {"job_id": int(over), "time_limit_s": -1}, user=USER)
    wait_reason(c, over, "PartitionTimeLimit")
    assert job(c, over)["job_state"] == "PENDING"
    r = c.run("scontrol", "update", f"JobId={over}", "TimeLimit=2",
              user=USER)
    assert r.returncode == 0, r.stderr
    c.wait_job_state(over, ["COMPLETED"], timeout=60)
    assert job(c, over)["time_limit_s"] == 120
    c.run("scancel", "-u", USER, user=USER, check=True)


@pytest.mark.parametrize("key, value, errnum", [
    ("nodes_min", -1, 2006), ("nodes_min", 2**40, 2006),
    ("nodes_max", "2", 20000), ("cpus_per_task", 2**32 + 1, 2005),
    ("mem_per_node_mib", -1, 2044), ("nice", 2**31, 2123),
    ("begin_time", -1, 2054), ("hold", "yes", 20000),
    ("user_id", "0", 20000), ("argv", "x", 20000),
    ("env", {"A": 1}, 20000), ("signal_num", 1000, 20000)])
def test_other_wrong_values_are_refused(c, key, value, errnum):
    refused(c, "job_submit", body(**{key: value}), errnum)


def test_cancel_signal_is_range_checked(c):
    j = c.sbatch("-H", "--wrap=true", user=USER)
    for value, errnum in ((2**32 + 9, 20000), (0, 20000), ("9", 20000)):
        refused(c, "job_cancel", {"job_id": int(j), "signal": value}, errnum)
    assert job(c, j)["job_state"] == "PENDING"
    c.run("scancel", j, user=USER, check=True)


def test_step_create_values_are_checked(c):
    j = c.sbatch("-t", "2:00", "--wrap=sleep 30", user=USER)
    c.wait_job_state(j, ["RUNNING"], timeout=60)
    step = {"job_id": int(j), "argv": ["true"], "env": [], "cwd": "/tmp",
            "io_port": 1, "io_key": "0" * 64}
    for key, value, errnum in (
            ("io_port", 70000, 20000), ("ntasks", -1, 2006),
            ("ntasks", "2", 20000), ("mem_mib", -5, 2044),
            ("pty_rows", 2**40, 20000), ("argv", [1], 20000),
            ("env", {}, 20000), ("cwd", None, 20000)):
        refused(c, "step_create", dict(step, **{key: value}), errnum)
    c.run("scancel", j, user=USER, check=True)


# --- finding 9: sizes -------------------------------------------------------

def test_script_and_string_sizes_are_bounded(c, tmp_path):
    too_long = FAILED + "Pathname of a file, directory or other parameter " \
        "too long\n"
    tmp_path.chmod(0o755)
    big = tmp_path / "big.sh"
    big.write_text(SCRIPT + "#" * (MAX_SCRIPT - len(SCRIPT) + 1) + "\n")
    big.chmod(0o644)
    r = c.run("sbatch", big, user=USER)
    assert (r.returncode, r.stderr) == (1, too_long)
    fits = tmp_path / "fits.sh"
    fits.write_text(SCRIPT + "#" * (MAX_SCRIPT - len(SCRIPT) - 1) + "\n")
    fits.chmod(0o644)
    j = c.sbatch(fits, user=USER)
    c.wait_job_state(j, ["COMPLETED"], timeout=60)
    r = c.run("sbatch", "--comment", "c" * 1025, "--wrap=true", user=USER)
    assert (r.returncode, r.stderr) == (1, too_long)
    r = c.run("sbatch", "-J", "n" * 1025, "--wrap=true", user=USER)
    assert (r.returncode, r.stderr) == (1, too_long)
    refused(c, "job_submit", body(comment="c" * 2_000_000), 2012)
    refused(c, "job_submit", body(script="#!/bin/sh\n" + "#" * 5_000_000),
            2012)
    refused(c, "job_submit", body(work_dir="/" + "d" * 5000), 2012)
    alive(c)


# --- finding 10b: control characters ----------------------------------------

CONTROL = "Job parameter holds a control character (newline, tab, escape)"


def test_newlines_cannot_forge_output_lines(c):
    fake = "x\n  99999     debug     fake     root  R       0:01      1 node01"
    r = c.run("sbatch", "-J", fake, "--wrap=true", user=USER)
    assert (r.returncode, r.stderr) == (1, FAILED + CONTROL + "\n")
    refused(c, "job_submit", body(name=fake), 20020)
    # jansson writes "\u001B" where Python writes "\u001b": the credential
    # must be over jansson's text.
    text = re.sub(r"\\u00([0-9a-f]{2})", lambda m: "\\u00" + m[1].upper(),
                  json.dumps(body(comment="a\x1b[2Jb"), sort_keys=True,
                             separators=(",", ":"), ensure_ascii=False))
    resp = raw_frame(c, "job_submit", text)
    assert resp["type"] == "error" and resp["body"]["errnum"] == 20020, resp
    refused(c, "job_submit", body(std_out="/tmp/a\nb"), 20020)
    held = c.sbatch("-H", "--wrap=true", user=USER)
    refused(c, "job_update", {"job_id": int(held), "name": fake}, 20020)
    # A command (not refused: a path may hold anything) prints escaped.
    odd = c.rpc("job_submit", body(hold=True, command="/tmp/a\nb"),
                user=USER)["job_id"]
    r = c.run("squeue", "-h", "-j", f"{held},{odd}", "-o", "%i|%j|%o",
              user=USER, check=True)
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    assert f"{odd}|raw|/tmp/a\\nb" in lines
    r = c.run("scontrol", "show", "job", str(odd), user=USER, check=True)
    assert "   Command=/tmp/a\\nb\n" in r.stdout, r.stdout
    c.run("scancel", held, str(odd), user=USER, check=True)


def test_step_named_with_a_newline_prints_on_one_line(c):
    """A step is named after its program, which the user names: a
    control character in it becomes '?', so squeue -s and scontrol show
    step keep one line per step."""
    work = c.user_workdir(USER)
    job = c.sbatch("--wrap", "ln -sf /bin/sleep \"$PWD/$(printf 'z\\nFAKE')\"; "
                   "srun \"./$(printf 'z\\nFAKE')\" 30", user=USER, cwd=work)
    c.wait_until(lambda: c.run("scontrol", "show", "step", f"{job}.0",
                               user=USER).returncode == 0,
                 timeout=30, what=f"step {job}.0")
    r = c.run("squeue", "-h", "-s", "-j", job, "-o", "%i %j", user=USER,
              check=True)
    assert r.stdout == f"{job}.batch batch\n{job}.0 z?FAKE\n", r.stdout
    r = c.run("scontrol", "show", "step", f"{job}.0", user=USER, check=True)
    assert "Name=z?FAKE" in r.stdout and "\nFAKE" not in r.stdout, r.stdout
    c.run("scancel", job, user=USER, check=True)
