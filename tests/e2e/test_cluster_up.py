# SPDX-License-Identifier: Apache-2.0
"""drover up / status / down: the local cluster every other test stands on."""

import os
import pwd
import signal
import socket
import stat

import pytest

from cluster import Cluster, require, wait_until


def daemon_names(cluster):
    return ["munged", "droverctld",
            *[f"droverd {n}" for n in cluster.node_names], "droverdbd",
            "droverrestd"]


def test_drover_up_starts_every_node_idle_with_its_resources(cluster):
    info = cluster.node_info()
    assert sorted(info) == cluster.node_names
    for name, node in info.items():
        assert node["state_str"] == "IDLE", name
        assert not node["not_responding"], name
        assert node["cpus"] == 32
        assert (node["sockets"], node["cores_per_socket"]) == (2, 16)
        assert node["real_memory_mib"] == 262144
        assert node["gres"] == "gpu:8"
    assert "export DROVER_CONF=" + str(cluster.conf) in cluster.last_up.stdout
    assert f"export PATH={cluster.bin_dir}:$PATH" in cluster.last_up.stdout


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_drover_up_starts_the_number_of_nodes_asked_for(cluster):
    assert cluster.node_states() == {"node01": "IDLE", "node02": "IDLE"}
    rc, daemons = cluster.status()
    assert rc == 0
    assert list(daemons) == daemon_names(cluster)


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 2,
                                      "up_args": ["--gpu-type=a100",
                                                  "--cpus-per-node=8",
                                                  "--mem-per-node=16G",
                                                  "--partition=gpu"]}],
                         indirect=True)
def test_drover_up_shapes_nodes_and_partition_from_its_options(cluster):
    node = cluster.node_info()["node01"]
    assert (node["cpus"], node["real_memory_mib"]) == (8, 16384)
    assert node["gres"] == "gpu:a100:2"
    parts = cluster.rpc("partition_info")["partitions"]
    assert [(p["name"], p["default"]) for p in parts] == [("gpu", True)]


def test_drover_status_lists_every_daemon_running(cluster):
    rc, daemons = cluster.status()
    assert rc == 0
    assert list(daemons) == daemon_names(cluster)
    for name, pid in daemons.items():
        assert pid is not None, name
        assert pid == cluster.pid(name.replace("droverd ", "")), name


def test_killed_node_daemon_comes_back_with_drover_up(cluster):
    _, before = cluster.status()
    old = cluster.kill("droverd", signal.SIGKILL, node="node02")

    rc, daemons = cluster.status()
    assert rc == 3
    assert daemons["droverd node02"] is None
    assert daemons["droverctld"] == before["droverctld"]

    cluster.start("droverd node02")
    rc, after = cluster.status()
    assert rc == 0
    assert after["droverd node02"] not in (None, old)
    assert {k: v for k, v in after.items() if k != "droverd node02"} == \
        {k: v for k, v in before.items() if k != "droverd node02"}
    node = cluster.node_info()["node02"]
    assert node["state_str"] == "IDLE"
    assert not node["not_responding"]


def test_killed_controller_comes_back_with_drover_up(cluster):
    cluster.kill("droverctld", signal.SIGKILL)
    rc, daemons = cluster.status()
    assert rc == 3 and daemons["droverctld"] is None

    cluster.start("droverctld")
    assert cluster.rpc("ping")["now"] > 0
    cluster.wait_nodes_idle(timeout=60)


def test_drover_up_twice_changes_nothing(cluster):
    conf = cluster.conf.read_bytes()
    mtime = cluster.conf.stat().st_mtime_ns
    _, before = cluster.status()

    cluster.up()
    _, after = cluster.status()
    assert after == before
    assert cluster.conf.read_bytes() == conf
    assert cluster.conf.stat().st_mtime_ns == mtime
    assert cluster.node_states() == {n: "IDLE" for n in cluster.node_names}


def test_drover_down_leaves_no_process_not_even_a_job(cluster):
    job_id = cluster.sbatch("--wrap", "sleep 600")
    wait_until(lambda: cluster.job_pids(job_id), 30,
               f"a process of job {job_id}")
    assert len(cluster.processes()) >= len(daemon_names(cluster)) + 1

    cluster.down()
    assert cluster.processes() == []
    rc, daemons = cluster.status()
    assert rc == 3
    assert set(daemons.values()) == {None}


def test_drover_status_without_a_cluster_says_so(cluster_root):
    c = Cluster(cluster_root, nodes=1)
    r = c.drover_cmd("status")
    assert r.returncode == 3
    assert "no cluster in" in r.stdout


def test_drover_up_names_a_port_that_is_taken(cluster_root):
    c = Cluster(cluster_root, nodes=1)
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        port = s.getsockname()[1]
        r = c.drover_cmd("up", "--nodes=1", f"--port-base={port}")
    assert r.returncode == 1
    assert f"drover: error: port {port} (from --port-base {port}) is in use" \
        in r.stderr
    assert c.processes() == []


def test_drover_up_rejects_a_bad_option_value(cluster_root):
    c = Cluster(cluster_root, nodes=1)
    r = c.drover_cmd("up", "--nodes=zero")
    assert r.returncode == 1
    assert "drover: error: --nodes=zero: expected a number" in r.stderr
    assert not c.conf.exists()


@pytest.mark.needs_root
def test_fake_gpus_are_character_devices_named_in_gres_conf(cluster):
    require("cannot create fake GPU devices" not in cluster.last_up.stderr,
            "mknod is not permitted here (no CAP_MKNOD)")
    for i in range(8):
        st = os.stat(cluster.dir / "dev" / f"nvidia{i}")
        assert stat.S_ISCHR(st.st_mode)
        assert (os.major(st.st_rdev), os.minor(st.st_rdev)) == (195, i)
    gres = (cluster.dir / "etc" / "gres.conf").read_text()
    assert f"Name=gpu File={cluster.dir}/dev/nvidia[0-7]" in gres


@pytest.mark.needs_root
def test_an_ordinary_user_runs_a_cluster_of_their_own(cluster_root,
                                                      test_user):
    c = Cluster(cluster_root, nodes=2, gpus_per_node=2)
    require(c.run("test", "-x", c.drover, user=test_user).returncode == 0,
            f"{test_user} cannot execute {c.drover} (a build directory "
            f"other users cannot reach)")
    pw = pwd.getpwnam(test_user)
    os.chown(cluster_root, pw.pw_uid, pw.pw_gid)
    up = c.run(c.drover, "up", "--dir", c.dir, "--nodes=2",
               "--gpus-per-node=2", user=test_user, timeout=120)
    try:
        assert up.returncode == 0, up.stderr + c.log_tails()
        assert "cannot create fake GPU devices" in up.stderr
        gres = (c.dir / "etc" / "gres.conf").read_text()
        assert "Name=gpu Count=2" in gres
        assert c.node_states() == {"node01": "IDLE", "node02": "IDLE"}
        for pid in c.processes():
            assert os.stat(f"/proc/{pid}").st_uid == pw.pw_uid
    finally:
        down = c.run(c.drover, "down", "--dir", c.dir, user=test_user)
    assert down.returncode == 0
    assert c.processes() == []
