# SPDX-License-Identifier: Apache-2.0
"""Three controllers across real network partitions (issue 15).

`drover up --controllers 3 --isolate` puts each controller, and each
droverd, in its own network namespace, on a veth pair to a bridge;
setting the root side of a veth down cuts that controller or node off
from everything else.  A cut-off leader acknowledges nothing, the other two
elect a leader and go on; once healed, the cut-off one follows again and
holds the same state.  Runs as root (ip netns); `drover down`, which the
fixture runs even when a test fails, removes namespaces, veths and bridge.
"""
import errno
import re
import signal
import subprocess
import time
from contextlib import contextmanager

import pytest

from cluster import command_dirs

# Bounds on latencies (stale reads stop within 3 s of a cut), three
# controllers and host network changes (namespaces, veths, a bridge): run
# with the machine to itself (run_e2e.py's serial pass).
pytestmark = pytest.mark.alone

ISOLATED = {"nodes": 1, "gpus_per_node": 0,
            "up_args": ["--controllers=3", "--isolate",
                        "--conf-extra=MessageTimeout=5"]}


def ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def netns_of(cluster, ctl):
    """The network namespace controller 'ctl' runs in (from its pid)."""
    r = subprocess.run(["ip", "netns", "identify", str(cluster.pid(ctl))],
                       check=True, capture_output=True, text=True)
    return r.stdout.strip()


def veth_of(cluster, ctl):
    """The root side of 'ctl''s veth pair: drvTAGcN for drover-TAG-ctlN."""
    m = re.fullmatch(r"drover-([0-9a-f]{6})-ctl(\d+)", netns_of(cluster, ctl))
    assert m, netns_of(cluster, ctl)
    return f"drv{m.group(1)}c{m.group(2)}"


@contextmanager
def veth_down(veth):
    """What is behind 'veth' cut off from everything in the block."""
    ip("link", "set", veth, "down")
    try:
        yield
    finally:
        ip("link", "set", veth, "up")


def cut_off(cluster, ctl):
    """'ctl' cut off from everything in the block (its veth down)."""
    return veth_down(veth_of(cluster, ctl))


def conf_naming(cluster, ctls, name):
    """A copy of slurm.conf whose SlurmctldHost lines are only 'ctls' (the
    commands then try only those)."""
    lines = cluster.conf.read_text().splitlines(keepends=True)
    keep = [l for l in lines if not l.startswith("SlurmctldHost=")
            or any(l.startswith(f"SlurmctldHost={c}(") for c in ctls)]
    path = cluster.conf.parent / name
    path.write_text("".join(keep))
    return path


def run_with(cluster, conf, *cmd, netns=None, timeout=60):
    """A command with DROVER_CONF=conf, inside 'netns' when given."""
    full = ["ip", "netns", "exec", netns, *cmd] if netns else list(cmd)
    return subprocess.run(full, env=dict(cluster.env, DROVER_CONF=str(conf)),
                          cwd=cluster.workdir, capture_output=True,
                          text=True, timeout=timeout)


def submit(cluster, conf, count):
    ids = []
    for _ in range(count):
        r = run_with(cluster, conf, "sbatch", "--parsable", "-H", "--wrap",
                     "true")
        assert r.returncode == 0, r.stderr
        ids.append(int(r.stdout))
    return ids


def queue_ids(cluster):
    out = cluster.run("squeue", "-h", "-o", "%i", check=True).stdout
    return [int(x) for x in out.split()]


def make_leader(cluster, ctl):
    """Hand the leadership to 'ctl' (scontrol takeover; libraft gives up a
    transfer to a server that does not catch up within an election
    timeout, so again until it leads)."""
    index = int(ctl[3:]) - 1

    def leads():
        if cluster.controller_roles().get(ctl) == "leader":
            return True
        cluster.run("scontrol", "takeover", str(index), check=True)
        try:
            cluster.wait_until(lambda: cluster.controller_roles().get(ctl)
                               == "leader", timeout=3)
            return True
        except Exception:
            return False
    cluster.wait_until(leads, timeout=45, what=f"{ctl} taking over")


def state_of(cluster, ctl):
    """The job ids as controller 'ctl' holds them: it is made the leader
    and squeue asks it alone."""
    make_leader(cluster, ctl)
    only = conf_naming(cluster, [ctl], f"only-{ctl}.conf")
    r = run_with(cluster, only, "squeue", "-h", "-o", "%i")
    assert r.returncode == 0, r.stderr
    return sorted(int(x) for x in r.stdout.split())


def test_isolate_needs_a_raft_group(tmp_path):
    drover = command_dirs()[0] / "drover"
    r = subprocess.run([str(drover), "up", "--dir", str(tmp_path / "c"),
                        "--isolate"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1
    assert r.stderr == ("drover: error: --isolate needs --controllers=2 or "
                        "more (it puts each controller of a Raft group in "
                        "its own network namespace)\n")


@pytest.mark.parametrize("cluster", [ISOLATED], indirect=True)
def test_isolated_controllers_have_their_own_network_and_name(cluster):
    roles = cluster.controller_roles()
    assert sorted(roles) == ["ctl1", "ctl2", "ctl3"]
    assert sorted(roles.values()) == ["follower", "follower", "leader"]
    for ctl in roles:
        ns = netns_of(cluster, ctl)
        assert ns.endswith(f"-{ctl}")
        r = subprocess.run(["nsenter", "-t", str(cluster.pid(ctl)), "-u",
                            "hostname"], capture_output=True, text=True,
                           check=True)
        assert r.stdout.strip() == ctl  # its SlurmctldHost name
    assert re.search(r"^SlurmctldHost=ctl2\(10\.77\.\d+\.3\)$",
                     cluster.conf.read_text(), re.M)
    # Jobs run: the nodes reach the controllers through the bridge and
    # back.
    job = cluster.sbatch("--wrap", "true")
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)
    nets = {netns_of(cluster, c) for c in roles}
    for ctl in roles:  # as after a crash: the names still find them
        cluster.kill(ctl, signal.SIGKILL)
    r = cluster.drover_cmd("down")
    assert "removed" in r.stdout, r.stdout
    left = subprocess.run(["ip", "netns", "list"], capture_output=True,
                          text=True).stdout
    assert not any(n in left for n in nets), left
    cluster.up()  # namespaces made again for the same directory
    assert {netns_of(cluster, c) for c in roles} == nets
    cluster.leader(timeout=30)


@pytest.mark.parametrize("cluster", [ISOLATED], indirect=True)
def test_a_cut_off_leader_acknowledges_nothing_and_rejoins(cluster):
    before = submit(cluster, cluster.conf, 3)
    old = cluster.leader()
    others = [c for c in ("ctl1", "ctl2", "ctl3") if c != old]
    only_old = conf_naming(cluster, [old], "only-old.conf")
    only_others = conf_naming(cluster, others, "others.conf")
    ns = netns_of(cluster, old)
    with cut_off(cluster, old):
        cut = time.monotonic()
        # Sent to the cut-off leader itself, at once: it may take it in,
        # but can never commit it; it answers when it loses its term.
        direct = subprocess.Popen(
            ["ip", "netns", "exec", ns, "sbatch", "--parsable", "-H",
             "--wrap", "true"], env=dict(cluster.env, DROVER_CONF=str(
                 only_old)), cwd=cluster.workdir, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        # Reads: once libraft steps it down (no majority heard within an
        # election timeout, checked once per timeout: 2 s at most, 3 with
        # slack for a loaded machine) it
        # serves no stale queue (it stands by; the command, finding no
        # other, gives up).
        while True:
            asked = time.monotonic() - cut
            r = run_with(cluster, only_old, "squeue", "-h", netns=ns,
                         timeout=60)
            if r.returncode != 0:
                break
        assert asked < 3.0, f"stale reads {asked:.1f} s after the cut"
        assert not r.stdout, r
        out, err = direct.communicate(timeout=60)
        direct = subprocess.CompletedProcess(direct.args, direct.returncode,
                                             out, err)
        new = cluster.leader(timeout=30)
        assert new in others
        during = submit(cluster, only_others, 5)
        # The commands pass over the unreachable one by themselves, after
        # TCPTimeout (2 s), not MessageTimeout (5 s here).
        start = time.monotonic()
        during += submit(cluster, cluster.conf, 1)
        assert time.monotonic() - start < 4.5
    assert direct.returncode != 0, \
        f"the cut-off leader acknowledged job {direct.stdout.strip()}"
    # Taken in and then dropped: Slurm's "the controller went away" error,
    # not the standby one (which would make the command send it again to
    # the next controller, though the request may have been done).
    assert "Zero Bytes were transmitted or received" in direct.stderr, \
        direct.stderr
    cluster.wait_until(lambda: "starting again from the replicated log"
                       in cluster.log_file(old).read_text(), timeout=30,
                       what=f"{old} stepping down")
    cluster.wait_until(lambda: cluster.controller_roles().get(old)
                       == "follower", timeout=30, what=f"{old} following")
    acked = before + during
    assert len(set(acked)) == len(acked), f"an id handed out twice: {acked}"
    ids = queue_ids(cluster)
    assert len(set(ids)) == len(ids), f"a job listed twice: {ids}"
    assert set(acked) <= set(ids), f"lost: {set(acked) - set(ids)}"
    # The old leader holds the same state as the new one.
    assert state_of(cluster, old) == sorted(ids)


@pytest.mark.parametrize("cluster", [ISOLATED], indirect=True)
def test_a_cut_off_follower_catches_up(cluster):
    leader = cluster.leader()
    follower = next(c for c in ("ctl1", "ctl2", "ctl3") if c != leader)
    others = [c for c in ("ctl1", "ctl2", "ctl3") if c != follower]
    with cut_off(cluster, follower):
        during = submit(cluster, conf_naming(cluster, others, "o.conf"), 5)
        assert cluster.leader() == leader
    # Pre-vote: coming back, it does not depose the leader.
    cluster.wait_until(lambda: cluster.controller_roles().get(follower)
                       == "follower", timeout=30, what=f"{follower} back")
    assert cluster.leader() == leader
    ids = queue_ids(cluster)
    assert set(during) <= set(ids)
    assert state_of(cluster, follower) == sorted(ids)


@contextmanager
def small_disk(cluster, ctl, size_mib=100):
    """Controller 'ctl''s StateSaveLocation/<ctl> on a tmpfs of 'size_mib'
    (it is restarted onto it); unmounted at the end."""
    state = cluster.dir / "state" / ctl
    cluster.kill(ctl, signal.SIGKILL)
    saved = state.with_name(f"{ctl}.saved")
    state.rename(saved)
    state.mkdir(mode=0o700)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m,mode=700",
                    "tmpfs", str(state)], check=True)
    try:
        subprocess.run(["cp", "-a", f"{saved}/.", str(state)], check=True)
        cluster.start()
        yield state
    finally:
        subprocess.run(["umount", "-l", str(state)])


def fill(path):
    """Fill the file system of 'path' with path/filler until ENOSPC.  It
    may be full already (the controller's preallocated Raft segments can
    take the last of it first): then even creating the filler fails so."""
    chunk = b"\0" * (1 << 20)
    try:
        with open(path / "filler", "wb") as f:
            while True:
                f.write(chunk)
                f.flush()
    except OSError as e:
        assert e.errno == errno.ENOSPC, e


def big_script(cluster):
    """A 1 MB batch script: each job is a 1 MB Raft entry, so a few dozen
    use up libraft's preallocated 8 MB segments."""
    path = cluster.workdir / "big.sh"
    path.write_text("#!/bin/sh\n" + ("#" * 1000 + "\n") * 1000 + "true\n")
    return path


@pytest.mark.parametrize("cluster", [ISOLATED], indirect=True)
def test_a_follower_with_a_full_disk_catches_up_once_it_has_room(cluster):
    leader = cluster.leader()
    follower = next(c for c in ("ctl1", "ctl2", "ctl3") if c != leader)
    script = big_script(cluster)
    with small_disk(cluster, follower) as state:
        cluster.wait_until(lambda: cluster.controller_roles().get(follower)
                           == "follower", timeout=30, what=f"{follower}")
        fill(state)
        # The other two keep acknowledging (asked alone: a command that
        # asks the full one first may find it exiting).
        others = conf_naming(cluster, [c for c in ("ctl1", "ctl2", "ctl3")
                                       if c != follower], "others.conf")
        acked = []
        for _ in range(32):
            r = run_with(cluster, others, "sbatch", "--parsable", "-H",
                         str(script))
            assert r.returncode == 0, r.stderr
            acked.append(int(r.stdout))
        cluster.wait_until(lambda: "writing the Raft log" in
                           cluster.log_file(follower).read_text(),
                           timeout=30, what=f"{follower} finding its disk full")
        (state / "filler").unlink()  # room again
        acked += [int(cluster.sbatch("-H", "--wrap", "true"))
                  for _ in range(3)]
        if cluster.pid(follower) is None:
            cluster.start()
        cluster.wait_until(lambda: cluster.controller_roles().get(follower)
                           == "follower", timeout=30, what=f"{follower} back")
        ids = queue_ids(cluster)
        assert sorted(ids) == sorted(acked)
        assert state_of(cluster, follower) == sorted(acked)
    applied_once(cluster)


def applied_once(cluster):
    """No controller applied a replicated record it could not (an entry
    applied twice, or under the wrong index, shows so)."""
    for log in cluster.dir.glob("log/droverctld-ctl*.log"):
        text = log.read_text(errors="replace")
        assert "event dropped" not in text, log
        assert "a replicated record" not in text, log


@pytest.mark.parametrize("cluster", [ISOLATED], indirect=True)
def test_a_leader_with_a_full_disk_acknowledges_only_what_it_wrote(cluster):
    ctl = next(c for c in ("ctl1", "ctl2", "ctl3")
               if cluster.controller_roles().get(c) == "follower")
    script = big_script(cluster)
    with small_disk(cluster, ctl) as state:
        cluster.wait_until(lambda: cluster.controller_roles().get(ctl)
                           == "follower", timeout=30, what=f"{ctl}")
        make_leader(cluster, ctl)
        fill(state)
        # It stops at its first failed write; the other two elect a
        # leader, and the commands find it.
        acked, failed = [], []
        for _ in range(32):
            r = cluster.run("sbatch", "--parsable", "-H", script)
            (acked.append(int(r.stdout)) if r.returncode == 0
             else failed.append(r.stderr))
        assert "writing the Raft log" in cluster.log_file(ctl).read_text()
        # Those in flight when it stopped, and those it accepted while it
        # started again (it re-executes at each failed write while its
        # disk stays full), and one sent while no controller listened
        # (between its re-execution and the election): connections cut or
        # not made, never a refusal.  Most are acknowledged by the new
        # leader.
        assert all("Connection reset by peer" in f or "Broken pipe" in f
                   or "Unable to contact slurm controller" in f
                   for f in failed), failed
        assert len(failed) <= 4, failed
        (state / "filler").unlink()
        if cluster.pid(ctl) is None:
            cluster.start()
        cluster.wait_until(lambda: cluster.controller_roles().get(ctl)
                           == "follower", timeout=30, what=f"{ctl} back")
        ids = queue_ids(cluster)
        assert len(ids) == len(set(ids)), f"a job listed twice: {ids}"
        assert len(acked) == len(set(acked)), f"an id reused: {acked}"
        assert set(acked) <= set(ids), f"lost: {set(acked) - set(ids)}"
        assert state_of(cluster, ctl) == sorted(ids)
    applied_once(cluster)


ISOLATED_NODES = {"nodes": 2, "gpus_per_node": 0,
                  "up_args": ["--controllers=3", "--isolate",
                              "--conf-extra=SlurmdTimeout=12"]}


def node_veth(cluster, node):
    """The root side of node 'node''s veth pair: drvTAGcN, N its address's
    last number less one (drover_isolate.h)."""
    ns = netns_of(cluster, node)
    m = re.fullmatch(r"drover-([0-9a-f]{6})-" + node, ns)
    assert m, ns
    out = subprocess.run(["ip", "-n", ns, "-o", "-4", "addr", "show"],
                         check=True, capture_output=True, text=True).stdout
    last = re.search(r"inet 10\.77\.\d+\.(\d+)/24", out)
    assert last, out
    return f"drv{m.group(1)}c{int(last.group(1)) - 1}"


def node_cut_off(cluster, node):
    """Node 'node' cut off from the controllers and everything else."""
    return veth_down(node_veth(cluster, node))


@pytest.mark.parametrize("cluster", [ISOLATED_NODES], indirect=True)
def test_isolated_nodes_have_their_own_network_and_name(cluster):
    """Each droverd in a namespace of its own named after the node: its
    jobs see the node's name as the host name and its own address."""
    r = cluster.run("srun", "-N2", "-l", "hostname", check=True, timeout=60)
    assert sorted(r.stdout.splitlines()) == ["0: node01", "1: node02"]
    for node in ("node01", "node02"):
        assert netns_of(cluster, node).endswith(f"-{node}")
    assert re.search(r"^NodeName=node\[01-02\] NodeAddr=10\.77\.\d+\.\[5-6\] "
                     r"NodeHostname=node\[01-02\] ", cluster.conf.read_text(),
                     re.M), cluster.conf.read_text()


@pytest.mark.parametrize("cluster", [ISOLATED_NODES], indirect=True)
def test_a_node_cut_off_keeps_its_job_until_slurmd_timeout(cluster):
    """A node cut off from the controllers for less than SlurmdTimeout
    keeps its job; for longer it goes DOWN (Not responding) and its job
    ends NODE_FAIL (it may not be requeued)."""
    c = cluster
    short = c.sbatch("-w", "node01", "--no-requeue", "-o", "/dev/null",
                     "--wrap", "sleep 15")
    long = c.sbatch("-w", "node02", "--no-requeue", "-o", "/dev/null",
                    "--wrap", "sleep 120")
    c.wait_job_state(short, "RUNNING", timeout=30)
    c.wait_job_state(long, "RUNNING", timeout=30)
    with node_cut_off(c, "node01"):
        time.sleep(3)
    c.wait_job_state(short, "COMPLETED", timeout=40)
    state = c.run("sinfo", "-h", "-n", "node01", "-o", "%T",
                  check=True).stdout
    assert state.strip() == "idle", state
    with node_cut_off(c, "node02"):
        c.wait_job_state(long, "NODE_FAIL", timeout=60)
        node = c.run("scontrol", "show", "node", "node02",
                     check=True).stdout
        assert "State=DOWN" in node and "Reason=Not responding" in node, \
            node
