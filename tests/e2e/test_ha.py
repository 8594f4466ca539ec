# SPDX-License-Identifier: Apache-2.0
"""Three controllers replicate their state through Raft (issue 15).

`drover up --controllers 3` starts ctl1..ctl3; one leads, the others
follow and answer only ping.  A `kill -9` of the leader loses no
acknowledged job and hands out no id twice; running jobs keep running and
their completions reach the new leader; a controller started again catches
up from its own Raft log and the leader.
"""
import os
import re
import signal
import subprocess
import time

import pytest

HA = {"nodes": 2, "gpus_per_node": 0, "up_args": ["--controllers=3"]}


def queue_ids(cluster):
    out = cluster.run("squeue", "-h", "-o", "%i", check=True).stdout
    return set(map(int, out.split()))


@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_one_leader_and_followers_that_answer_only_ping(cluster):
    roles = cluster.controller_roles()
    assert sorted(roles) == ["ctl1", "ctl2", "ctl3"]
    leader = cluster.leader()
    assert sorted(r for n, r in roles.items() if n != leader) \
        == ["follower", "follower"]
    r = cluster.run("scontrol", "ping", check=True)
    lines = r.stdout.splitlines()
    terms = set()
    for ctl, line in zip(("ctl1", "ctl2", "ctl3"), lines):
        word = "primary" if ctl == "ctl1" else "backup"
        m = re.fullmatch(rf"Slurmctld\({word}\) at {ctl} is UP "
                         r"\((leader|follower), term (\d+)\)", line)
        assert m, r.stdout
        assert m.group(1) == roles[ctl]
        terms.add(m.group(2))
    assert len(lines) == 3 and len(terms) == 1, r.stdout
    # A follower refuses the rest with Slurm's standby error.
    follower = next(n for n in roles if n != leader)
    port = int(cluster.conf_value("SlurmctldPort"))
    addr = f"127.0.0.{follower[3:]}"
    with pytest.raises(Exception, match="standby"):
        cluster.rpc("job_info", {}, port=port, host=addr)


@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_a_follower_answers_listings_asked_stale(cluster, tmp_path):
    """With DROVER_STALE_READS=1 squeue and sinfo take a follower's answer
    (its copy of the state); other requests still go to the leader."""
    job = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    leader = cluster.leader()
    follower = next(n for n in cluster.controller_roles() if n != leader)
    lines = cluster.conf.read_text().splitlines(keepends=True)
    only = cluster.conf.parent / "follower.conf"  # the commands try it alone
    only.write_text("".join(
        l for l in lines if not l.startswith("SlurmctldHost=")
        or l.startswith(f"SlurmctldHost={follower}(")))
    env = {"DROVER_CONF": str(only), "DROVER_STALE_READS": "1"}
    port = int(cluster.conf_value("SlurmctldPort"))

    def ids():
        return cluster.run("squeue", "-h", "-o", "%i", env=env,
                           check=True).stdout.split()
    cluster.wait_until(lambda: job in ids(), timeout=10,
                       what="the follower's copy to hold the job")
    r = cluster.run("sinfo", "-h", "-o", "%D %t", env=env, check=True)
    assert r.stdout.split()[0] == "2", r.stdout
    r = cluster.rpc("job_info", {"stale_ok": True}, port=port,
                    host=f"127.0.0.{follower[3:]}")
    assert any(j["job_id"] == int(job) for j in r["jobs"]), r
    with pytest.raises(Exception, match="standby"):
        cluster.rpc("job_submit", {"stale_ok": True}, port=port,
                    host=f"127.0.0.{follower[3:]}")


@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_scontrol_takeover_hands_leadership_over(cluster):
    leader = cluster.leader()
    index = next(i for i in range(3) if f"ctl{i + 1}" != leader)
    cluster.run("scontrol", "takeover", str(index), check=True)
    cluster.wait_until(lambda: cluster.controller_roles().get(
        f"ctl{index + 1}") == "leader", timeout=30, what="the takeover")
    r = cluster.run("scontrol", "takeover", str(index + 10))
    assert r.returncode == 1
    assert r.stderr.startswith("slurm_takeover error: ")
    r = cluster.run("scontrol", "takeover", user="druser1")
    assert r.returncode == 1


@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_kill9_of_the_leader_loses_no_acknowledged_job(cluster, tmp_path):
    running = cluster.sbatch("-o", str(tmp_path / "r.out"), "--wrap",
                             "sleep 6; echo survived", cwd=tmp_path)
    cluster.wait_job_state(running, ["RUNNING"], timeout=30)
    with cluster.held_submitter(tmp_path) as acked:
        for kill in range(3):
            cluster.wait_until(lambda: len(acked) >= 10 * (kill + 1),
                               timeout=60, what="submissions")
            leader = cluster.leader()
            cluster.kill(leader, signal.SIGKILL)
            new = cluster.leader(timeout=30)
            assert new != leader
            cluster.start()  # the killed one rejoins from its own log
            cluster.wait_until(
                lambda: cluster.controller_roles().get(leader) == "follower",
                timeout=30, what=f"{leader} following again")
        cluster.wait_until(lambda: len(acked) >= 40, timeout=60,
                           what="submissions after the last kill")
    known = queue_ids(cluster)
    missing = [j for j in acked if j not in known]
    assert not missing, f"acknowledged jobs lost: {missing}"
    assert len(acked) == len(set(acked)), "a job id was handed out twice"
    assert running not in acked
    cluster.wait_job_state(running, ["COMPLETED"], timeout=60)
    assert (tmp_path / "r.out").read_text() == "survived\n"
    cluster.run("scancel", "-u", cluster.user, check=True)
    # Every replicated entry applied, on every controller, from the
    # network and from its own disk after the restarts.
    for log in cluster.dir.glob("log/droverctld-ctl*.log"):
        text = log.read_text(errors="replace")
        assert "not a record list" not in text, log
        assert "a replicated record" not in text, log


def leader_only(cluster, leader, name):
    """A copy of slurm.conf for the commands that names only 'leader', so
    they do not wait on a stopped controller (a stopped process accepts
    connections and never answers: Slurm's commands, and ours, wait
    MessageTimeout on it)."""
    lines = cluster.conf.read_text().splitlines(keepends=True)
    out = [l for l in lines if not l.startswith("SlurmctldHost=")
           or l.startswith(f"SlurmctldHost={leader}(")]
    path = cluster.conf.parent / name
    path.write_text("".join(out))
    return path


@pytest.mark.parametrize("cluster", [HA], indirect=True)
def test_a_leader_cut_off_steps_down_and_catches_up(cluster, tmp_path):
    before = [int(cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path))
              for _ in range(3)]
    old = cluster.leader()
    pid = cluster.pid(old)
    os.kill(pid, signal.SIGSTOP)  # as cut off from the others
    try:
        new = cluster.leader(timeout=30)
        assert new != old
        env = dict(cluster.env, DROVER_CONF=str(
            leader_only(cluster, new, "new-only.conf")))
        during = []
        for _ in range(3):
            r = subprocess.run(["sbatch", "--parsable", "-H", "--wrap",
                                "true"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            during.append(int(r.stdout))
    finally:
        os.kill(pid, signal.SIGCONT)
    # The old leader finds it lost its term and starts again as a
    # follower from the replicated log (the same process: it re-executes).
    cluster.wait_until(lambda: "starting again from the replicated log"
                       in cluster.log_file(old).read_text(), timeout=30,
                       what=f"{old} stepping down")
    cluster.wait_until(lambda: cluster.controller_roles().get(old)
                       == "follower", timeout=30, what=f"{old} following")
    assert cluster.pid(old) == pid
    assert len(set(before + during)) == 6
    # It caught up: with the new leader gone, it or the third one leads
    # with every job.
    cluster.kill(new, signal.SIGKILL)
    cluster.leader(timeout=30)
    assert set(before + during) <= queue_ids(cluster)
    cluster.start()


SMALL_SNAPSHOTS = {"nodes": 1, "gpus_per_node": 0,
                   "up_args": ["--controllers=3"]}


def small_snapshots(cluster):
    """A snapshot every 16 log entries (SlurmctldParameters=
    drover_raft_snapshot=16), the controllers started again with it."""
    lines = cluster.conf.read_text().splitlines(keepends=True)
    cluster.conf.write_text("".join(
        l.rstrip("\n") + ",drover_raft_snapshot=16\n"
        if l.startswith("SlurmctldParameters=") else l for l in lines))
    for name in ("ctl1", "ctl2", "ctl3"):
        cluster.kill(name, signal.SIGTERM)
    cluster.wait_until(lambda: not any(cluster.controller_roles().values()),
                       timeout=30, what="the controllers to stop")
    cluster.start()
    return cluster.leader(timeout=30)


def submit_held(cluster, n, cwd):
    return [cluster.sbatch("-H", "--wrap", "true", cwd=cwd)
            for _ in range(n)]


@pytest.mark.parametrize("cluster", [SMALL_SNAPSHOTS], indirect=True)
def test_all_three_killed_at_once_keep_their_state(cluster, tmp_path):
    """kill -9 of every controller at once: started again, they elect a
    leader from their logs and snapshots (every 16 entries here), every
    acknowledged job is there, and the next id is a new one."""
    small_snapshots(cluster)
    jobs = submit_held(cluster, 40, tmp_path)
    done = cluster.sbatch("--wrap", "true", cwd=tmp_path)
    cluster.wait_job_state(done, ["COMPLETED"], timeout=60)
    before = queue_ids(cluster)
    for name in ("ctl1", "ctl2", "ctl3"):
        cluster.kill(name, signal.SIGKILL)
    cluster.start()
    cluster.leader(timeout=30)
    assert queue_ids(cluster) == before
    assert set(map(int, jobs)) <= before
    new = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    assert int(new) > max(before | {int(done)})
    cluster.run("scancel", "-u", cluster.user, check=True)


@pytest.mark.parametrize("cluster", [SMALL_SNAPSHOTS], indirect=True)
def test_a_follower_whose_disk_is_lost_rejoins_by_snapshot(cluster,
                                                           tmp_path):
    """A follower's StateSaveLocation wiped while it is down: started
    again with nothing, it takes the leader's snapshot (the log it needs
    was compacted away) and the entries after it, and once it leads it
    holds every job."""
    leader = small_snapshots(cluster)
    lost = next(n for n in ("ctl1", "ctl2", "ctl3") if n != leader)
    submit_held(cluster, 10, tmp_path)
    cluster.kill(lost, signal.SIGKILL)
    state = cluster.dir / "state" / lost
    assert state.is_dir()
    subprocess.run(["rm", "-rf", str(state)], check=True)
    submit_held(cluster, 40, tmp_path)  # the log moves past a snapshot
    before = queue_ids(cluster)
    cluster.start()
    cluster.wait_until(
        lambda: cluster.controller_roles().get(lost) == "follower",
        timeout=60, what=f"{lost} following again")
    log = cluster.dir / "log" / f"droverctld-{lost}.log"
    cluster.wait_until(lambda: "the leader sent a snapshot"
                       in log.read_text(errors="replace"),
                       timeout=30, what=f"{lost} to take a snapshot")
    index = int(lost[3:]) - 1

    def leads():
        if cluster.controller_roles().get(lost) == "leader":
            return True
        cluster.run("scontrol", "takeover", str(index))
        time.sleep(3)  # a transfer waits for the target to catch up
        return cluster.controller_roles().get(lost) == "leader"
    cluster.wait_until(leads, timeout=60, what=f"{lost} to lead")
    assert queue_ids(cluster) == before
    # A controller that took a snapshot starts again (re-executes) and
    # may cut the first call that reaches it meanwhile: cancel again.
    cluster.wait_until(lambda: cluster.run("scancel", "-u",
                                           cluster.user).returncode == 0,
                       timeout=30, what="scancel -u to succeed")
