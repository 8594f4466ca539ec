# SPDX-License-Identifier: Apache-2.0
"""strigger (issue 13): event triggers set, listed and cleared with Slurm's
options and texts (goldens help-strigger, usage-strigger, strigger-get,
strigger-get-none, strigger-get-alice, strigger-set-node-down), and the
controller running the trigger's program as the user who set it: a node
going DOWN (its droverd killed), coming back UP, DRAINED, IDLE for a
while, the configuration read again (scontrol reconfigure), a job
finishing, a job nearing its time limit.  A trigger set
before a controller restart still fires after it; a restart (the journal
replayed) runs no program again."""
import os
import pwd
import time

import pytest
from cluster import REPO, require

GOLDEN = REPO / "tests" / "unit" / "data" / "slurm-golden"

# Nodes are declared DOWN after SlurmdTimeout of silence.
NODE_CONF = {"nodes": 2, "up_args": ["--conf-extra=SlurmdTimeout=8"]}


def program(c, user, name):
    """An executable script of 'user' that appends "WHO ARGS" to a file;
    returns (script, file).  Trigger programs get an empty environment,
    so it names its commands by path."""
    d = c.user_workdir(user)
    out = d / f"{name}.out"
    script = d / f"{name}.sh"
    script.write_text("#!/bin/sh\n"
                      f'echo "$(/usr/bin/id -un) $*" >> {out}\n')
    pw = pwd.getpwnam(user)
    os.chown(script, pw.pw_uid, pw.pw_gid)
    os.chmod(script, 0o755)
    return script, out


def lines_of(path):
    return path.read_text().splitlines() if path.exists() else []


def strigger(c, *args, user=None):
    return c.run("strigger", *args, user=user)


def test_strigger_prints_slurms_help_and_refuses_what_drover_lacks(cluster):
    c = cluster
    for args, golden in ((["--help"], "help-strigger"),
                         (["--usage"], "usage-strigger")):
        r = strigger(c, *args)
        assert r.returncode == 0
        assert r.stdout == (GOLDEN / f"{golden}.stdout").read_text()
    r = strigger(c, "--get")  # golden strigger-get-none: nothing at all
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = strigger(c, "--set", "--down")
    assert r.returncode == 1
    assert r.stderr == "strigger: error: You must specify a --program value\n"
    r = strigger(c, "--set", "--down", "--program=true")
    assert "must start with" in r.stderr and r.returncode == 1
    r = strigger(c, "--clear")
    assert r.stderr == ("strigger: error: You must specify a --id, --jobid, "
                        "or --user to clear\n")
    for opt in ("-a", "-C", "-g", "-h", "-F", "--burst_buffer",
                "--front_end"):
        r = strigger(c, "--set", opt, "--program=/bin/true")
        assert r.returncode == 1, opt
        assert "is not supported by Drover" in r.stderr, (opt, r.stderr)
    r = strigger(c, "--clear", "--id=999")
    assert r.returncode == 1
    assert r.stderr == "slurm_clear_trigger: No such process\n"


@pytest.mark.parametrize("cluster", [NODE_CONF], indirect=True)
def test_node_down_trigger_survives_a_restart_and_fires(cluster, test_user):
    c = cluster
    require(os.geteuid() == 0, "SlurmUser is root: kills daemons")
    victim = c.node_names[1]
    once, once_out = program(c, "root", "once")
    perm, perm_out = program(c, "root", "perm")
    # A plain user may not set node triggers (golden strigger-set-node-down).
    r = strigger(c, "--set", "--node", "--down", "--program=/bin/true",
                 user=test_user)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "slurm_set_trigger: Access/permission denied\n"
    # Slurm's table (golden strigger-get, with root as the user).
    r = strigger(c, "--set", "--node", "--down", "--program=/bin/true")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    want = (GOLDEN / "strigger-get.stdout").read_text().replace(
        "slurm   ", "root    ")
    r = strigger(c, "--get")
    assert r.stdout == want
    assert strigger(c, "--get", "-N").stdout == want.splitlines(True)[1]
    # Anyone lists them (golden strigger-get-alice).
    assert strigger(c, "--get", user=test_user).stdout == want
    assert strigger(c, "--clear", "--id=1").returncode == 0
    assert strigger(c, "--get").stdout == ""

    c.run("strigger", "--set", f"--node={victim}", "--down",
          f"--program={once}", check=True)
    c.run("strigger", "--set", "--down", "--flags=perm",
          f"--program={perm}", check=True)
    r = strigger(c, "--get", "-N")
    assert [ln.split()[1:6] for ln in r.stdout.splitlines()] == [
        ["node", victim, "down", "0", "root"],
        ["node", "*", "down", "0", "root"]], r.stdout
    assert "PERM" in r.stdout.splitlines()[1]

    c.restart_alone("droverctld")  # kill -9: the journal replays them
    c.wait_nodes_idle(timeout=60)
    assert len(strigger(c, "--get", "-N").stdout.splitlines()) == 2
    up, up_out = program(c, "root", "up")
    c.run("strigger", "--set", "--up", f"--node={victim}",
          f"--program={up}", check=True)
    c.kill("droverd", node=victim)
    c.wait_until(lambda: lines_of(once_out) and lines_of(perm_out),
                 timeout=60, what="the down triggers' programs")
    assert lines_of(once_out) == [f"root {victim}"]
    assert lines_of(perm_out) == [f"root {victim}"]
    # The one-shot trigger is gone, the PERM one stays.
    r = strigger(c, "--get", "-N", "--down")
    assert len(r.stdout.splitlines()) == 1 and "PERM" in r.stdout
    # Replay runs no program again: the node stays down across a restart.
    c.restart_alone("droverctld")
    c.wait_until(lambda: strigger(c, "--get").returncode == 0, timeout=30,
                 what="the controller back")
    time.sleep(5)
    assert lines_of(once_out) == [f"root {victim}"]
    assert lines_of(perm_out) == [f"root {victim}"]
    assert lines_of(up_out) == []
    c.start()  # the node's droverd again: it returns to service
    c.wait_until(lambda: lines_of(up_out), timeout=60,
                 what="the up trigger's program")
    assert lines_of(up_out) == [f"root {victim}"]


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_drained_and_idle_triggers(cluster):
    c = cluster
    drained, drained_out = program(c, "root", "drained")
    idle, idle_out = program(c, "root", "idle")
    first = c.node_names[0]
    c.run("strigger", "--set", "-D", f"--program={drained}", check=True)
    c.run("strigger", "--set", "-I", "--offset=4", f"--node={first}",
          f"--program={idle}", check=True)
    c.wait_until(lambda: lines_of(idle_out), timeout=30,
                 what="the idle trigger's program")
    assert lines_of(idle_out) == [f"root {first}"]
    assert lines_of(drained_out) == []
    c.run("scontrol", "update", f"NodeName={first}", "State=DRAIN",
          "Reason=test", check=True)
    c.wait_until(lambda: lines_of(drained_out), timeout=30,
                 what="the drained trigger's program")
    assert lines_of(drained_out) == [f"root {first}"]
    assert strigger(c, "--get").stdout == ""


def test_job_triggers_run_as_the_owner(cluster, test_users):
    c = cluster
    owner, other = test_users
    fini, fini_out = program(c, owner, "fini")
    tl, tl_out = program(c, owner, "tl")
    # Time limit 1 minute; --offset=-50 fires 50 s before it.
    long_job = c.sbatch("-t", "1", "-o", "/dev/null", "--wrap", "sleep 300",
                        user=owner)
    short_job = c.sbatch("-o", "/dev/null", "--wrap", "sleep 4", user=owner)
    c.wait_job_state(long_job, ("RUNNING",))
    started = time.time()
    r = strigger(c, "--set", f"--jobid={long_job}", "--fini",
                 f"--program={fini}", user=other)
    assert r.returncode == 1
    assert r.stderr == "slurm_set_trigger: Access/permission denied\n"
    c.run("strigger", "--set", f"--jobid={long_job}", "--time",
          "--offset=-50", f"--program={tl}", user=owner, check=True)
    c.run("strigger", "--set", f"--jobid={short_job}", "-f",
          f"--program={fini}", user=owner, check=True)
    r = strigger(c, "--get", "-N", f"--jobid={long_job}")
    assert r.stdout.split()[1:7] == ["job", long_job, "time", "-50", owner,
                                     str(tl)], r.stdout
    # Another user may not clear them; the owner may.
    c.run("strigger", "--set", f"--jobid={long_job}", "--fini",
          "--program=/bin/true", user=owner, check=True)
    r = strigger(c, "--get", "-N", "--fini", f"--jobid={long_job}",
                 f"--user={owner}")
    trig_id = r.stdout.split()[0]
    r = strigger(c, "--clear", f"--id={trig_id}", user=other)
    assert r.stderr == "slurm_clear_trigger: Access/permission denied\n"
    assert strigger(c, "--clear", f"--id={trig_id}", user=owner).returncode \
        == 0

    c.wait_until(lambda: lines_of(fini_out), timeout=60,
                 what="the fini trigger's program")
    assert lines_of(fini_out) == [f"{owner} {short_job}"]
    c.wait_until(lambda: lines_of(tl_out), timeout=50,
                 what="the time trigger's program")
    assert lines_of(tl_out) == [f"{owner} {long_job}"]
    assert time.time() - started < 55  # before the time limit
    assert c.job_state(long_job) == "RUNNING"
    assert strigger(c, "--get").stdout == ""  # both fired, removed
    c.run("scancel", long_job, check=True)


def test_reconfig_trigger_fires_on_scontrol_reconfigure(cluster, test_user):
    """-r/--reconfig: Slurm's TYPE "reconfig" on a node resource ("*"),
    set by root/SlurmUser only, kept across a controller restart, fired
    by an accepted `scontrol reconfigure` (not a refused one) with the
    argument "reconfig"; gone after firing unless PERM."""
    c = cluster
    once, once_out = program(c, "root", "reconf_once")
    perm, perm_out = program(c, "root", "reconf_perm")
    r = strigger(c, "--set", "-r", "--program=/bin/true", user=test_user)
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "slurm_set_trigger: Access/permission denied\n")
    r = strigger(c, "--set", "-r", f"--program={once}")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    c.run("strigger", "--set", "--reconfig", "--flags=PERM",
          f"--program={perm}", check=True)
    c.run("strigger", "--set", "--down", "--program=/bin/true", check=True)
    header = (GOLDEN / "strigger-get.stdout").read_text().splitlines()[0]
    row = "%7s %-9s %7s %-35s %6s %-8s %-5s %s"
    want = [header,
            row % (1, "node", "*", "reconfig", 0, "root", "", once),
            row % (2, "node", "*", "reconfig", 0, "root", "PERM", perm),
            row % (3, "node", "*", "down", 0, "root", "", "/bin/true")]
    assert strigger(c, "--get").stdout.splitlines() == want
    # Slurm's strigger filters --get by --down but not by --reconfig.
    assert strigger(c, "--get", "--down").stdout.splitlines() == [
        header, want[3]]
    assert strigger(c, "--get", "-r").stdout.splitlines() == want
    assert strigger(c, "--clear", "--id=3").returncode == 0

    c.restart_alone("droverctld")  # kill -9: the journal replays them
    c.wait_until(lambda: strigger(c, "--get").returncode == 0, timeout=30,
                 what="the controller back")
    assert strigger(c, "--get").stdout.splitlines() == want[:3]
    # A reconfigure refused changes nothing: no event.
    original = c.conf.read_text()
    c.conf.write_text(original + "SlurmdPort=1\n")
    assert c.run("scontrol", "reconfigure").returncode == 1
    c.conf.write_text(original)
    time.sleep(5)  # two periodic checks (2 s)
    assert lines_of(once_out) == [] and lines_of(perm_out) == []

    c.run("scontrol", "reconfigure", check=True)
    c.wait_until(lambda: lines_of(once_out) and lines_of(perm_out),
                 timeout=30, what="the reconfig triggers' programs")
    assert lines_of(once_out) == ["root reconfig"]
    assert lines_of(perm_out) == ["root reconfig"]
    assert strigger(c, "--get").stdout.splitlines() == [header, want[2]]
    c.run("scontrol", "reconfigure", check=True)
    c.wait_until(lambda: len(lines_of(perm_out)) == 2, timeout=30,
                 what="the PERM reconfig trigger firing again")
    assert lines_of(once_out) == ["root reconfig"]
    assert strigger(c, "--clear", "--id=2").returncode == 0
    assert strigger(c, "--get").stdout == ""


HA = {"nodes": 2, "gpus_per_node": 0, "up_args": ["--controllers=3"]}


@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_a_trigger_outlives_its_leader_and_fires_once(cluster):
    """Set on one leader, replicated through Raft; after a kill -9 of
    that leader the new one fires it, and only it runs the program."""
    c = cluster
    drained, drained_out = program(c, "root", "drained")
    old = c.leader()
    c.run("strigger", "--set", "-D", f"--program={drained}", check=True)
    c.kill(old)
    c.wait_until(lambda: c.controller_roles().get(old) is None
                 and any(r == "leader"
                         for r in c.controller_roles().values()),
                 timeout=60, what="a new leader")
    assert c.leader() != old
    first = c.node_names[0]
    c.run("scontrol", "update", f"NodeName={first}", "State=DRAIN",
          "Reason=test", check=True)
    c.wait_until(lambda: lines_of(drained_out), timeout=60,
                 what="the drained trigger's program")
    time.sleep(5)
    assert lines_of(drained_out) == [f"root {first}"]
    assert strigger(c, "--get").stdout == ""
