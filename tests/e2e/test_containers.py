"""--container=BUNDLE with oci.conf (Slurm 22.05's OCI path): a step's
tasks and a batch script run inside an OCI bundle through crun, as the
job's user, in the step's cgroup, with only the step's GPU files, their
I/O and exit codes coming back (src/noded/oci.h).

The bundle is a busybox-static rootfs with a recognisable os-release.
crun runs rootless (as Slurm's oci.conf examples do).  On a host with
hybrid cgroups whose v2 hierarchy holds a controller, crun refuses every
container ("cgroups in hybrid mode not supported, drop all controllers
from cgroupv2"); oci.conf then points at a wrapper that hides the v2
controller list in a private mount namespace (as an admin would).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cluster import Cluster, require

OS_RELEASE = 'NAME="Drover Test Busybox"\nID=drover-busybox\n'
USER = "druser1"

WRAPPER = """#!/bin/sh
# crun refuses hybrid cgroups while cgroup v2 holds a controller: hide
# the v2 controller list in a private mount namespace, then map back to
# the user's own ids so that crun runs rootless as the user.
f=/sys/fs/cgroup/unified/cgroup.controllers
if [ -n "$(cat "$f" 2>/dev/null)" ]; then
    u=$(id -u) g=$(id -g)
    exec unshare -Urm sh -c "mount --bind {empty} $f && exec unshare -U \\
        --map-user=$u --map-group=$g \\"\\$0\\" \\"\\$@\\"" "$0" "$@"
fi
exec crun "$@"
"""


def make_bundle(root):
    """A bundle owned by the job's user: rootfs of busybox and its
    applets, config.json from crun spec --rootless without a cgroup
    namespace (so /proc/self/cgroup shows the host path)."""
    bundle = root / "bundle"
    rootfs = bundle / "rootfs"
    for d in ("bin", "etc", "proc", "dev", "sys", "tmp"):
        (rootfs / d).mkdir(parents=True, exist_ok=True)
    shutil.copy("/bin/busybox", rootfs / "bin" / "busybox")
    for applet in ("sh", "cat", "id", "ls", "echo", "sleep", "grep"):
        (rootfs / "bin" / applet).symlink_to("busybox")
    (rootfs / "etc" / "os-release").write_text(OS_RELEASE)
    subprocess.run(["crun", "spec", "--rootless"], cwd=bundle, check=True)
    cfg = json.loads((bundle / "config.json").read_text())
    cfg["process"]["terminal"] = False
    cfg["process"]["args"] = ["/bin/false"]  # Drover puts the task's
    cfg["linux"]["namespaces"] = [n for n in cfg["linux"]["namespaces"]
                                  if n["type"] != "cgroup"]
    cfg["mounts"] = [m for m in cfg["mounts"]
                     if m["destination"] != "/sys/fs/cgroup"]
    (bundle / "config.json").write_text(json.dumps(cfg, indent=1))
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(bundle)], check=True)
    return bundle


def make_image(root):
    """An OCI layout (umoci) of the same busybox rootfs, and the same image
    as a docker-archive (skopeo), both the user's."""
    img = root / "img"
    img.mkdir()
    shutil.chown(img, USER, USER)

    def as_user(*cmd):
        subprocess.run(["runuser", "-u", USER, "--", *cmd], cwd=img,
                       check=True, capture_output=True)

    as_user("umoci", "init", "--layout", "layout")
    as_user("umoci", "new", "--image", "layout:latest")
    as_user("umoci", "unpack", "--rootless", "--image", "layout:latest", "b")
    rootfs = img / "b" / "rootfs"
    for d in ("bin", "etc"):
        (rootfs / d).mkdir()
    shutil.copy("/bin/busybox", rootfs / "bin" / "busybox")
    for applet in ("sh", "cat", "id", "ls", "pwd"):
        (rootfs / "bin" / applet).symlink_to("busybox")
    (rootfs / "etc" / "os-release").write_text(OS_RELEASE)
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(img)], check=True)
    as_user("umoci", "repack", "--image", "layout:latest", "b")
    as_user("skopeo", "--insecure-policy", "copy", "-q", "oci:layout:latest",
            "docker-archive:img.tar:drover/busybox:latest")
    return img / "layout", img / "img.tar"


def write_oci_conf(etc, root, create_start=False):
    empty = root / "empty"
    empty.write_text("")
    wrap = root / "crun-wrap"
    wrap.write_text(WRAPPER.format(empty=empty))
    wrap.chmod(0o755)
    state = root / "crun-state"
    state.mkdir(mode=0o1777, exist_ok=True)
    state.chmod(0o1777)
    rt = f"{wrap} --rootless=true --cgroup-manager=disabled --root={state}/%U"
    name = "drover-%n-%j-%s-%t"
    run = (f'RunTimeCreate="{rt} create --bundle %b {name}"\n'
           f'RunTimeStart="{rt} start {name}"\n' if create_start
           else f'RunTimeRun="{rt} run --bundle %b {name}"\n')
    (etc / "oci.conf").write_text(
        "# crun, rootless, as the job's user\n" + run +
        f'RunTimeQuery="{rt} state {name}"\n'
        f'RunTimeKill="{rt} kill -a {name}"\n'
        f'RunTimeDelete="{rt} delete --force {name}"\n')


@pytest.fixture
def oci_cluster(test_users):
    require(shutil.which("crun") and os.path.exists("/bin/busybox")
             and shutil.which("umoci") and shutil.which("skopeo"),
            "crun, busybox-static, umoci or skopeo is not installed")
    root = Path(tempfile.mkdtemp(prefix="drover-e2e-oci-", dir="/tmp"))
    os.chmod(root, 0o755)
    c = Cluster(root, nodes=2, gpus_per_node=2)
    try:
        c.up()
        c.down()
        write_oci_conf(root / "cluster" / "etc", root)
        c.up()
        c.wait_nodes_idle()
        yield c, make_bundle(root)
    finally:
        try:
            c.down()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def wait_dirs_gone(c):
    """The per-step directories go with their steps (once srun has its
    exit codes, the step daemons are still finishing)."""
    def left():
        found = []
        for spool in (c.dir / "spool").iterdir():  # one per node
            found += [n for n in os.listdir(spool) if n.startswith("oci-job")]
        return found
    c.wait_until(lambda: not left(), timeout=15,
                 what="the oci-job* step directories to be removed")


PROBE = ("cat /etc/os-release; echo uid=$(id -u) gid=$(id -g); "
         "cat /proc/self/cgroup; echo rank=$SLURM_PROCID; "
         "ls {dev}; exit 7")


def test_srun_tasks_run_in_the_bundle(oci_cluster):
    c, bundle = oci_cluster
    uid = int(subprocess.run(["id", "-u", USER], capture_output=True,
                             text=True, check=True).stdout)
    r = c.run("srun", "-N2", "--gres=gpu:1", f"--container={bundle}", "sh",
              "-c", PROBE.format(dev=c.dir / "dev"), user=USER, timeout=90)
    out = r.stdout
    # both tasks ran in the bundle's rootfs, their output came back
    assert out.count('NAME="Drover Test Busybox"') == 2, (r.stdout, r.stderr)
    assert sorted(re.findall(r"^rank=(\d)$", out, re.M)) == ["0", "1"], out
    # as the job's user, not root nor a mapped container root
    assert out.count(f"uid={uid} gid=") == 2, out
    # in the step's cgroup (job_<id>/step_0 of the node's tree)
    m = re.search(r"job_(\d+)/step_0", out)
    require(m or "cgroup" not in c.log_file("node01").read_text(),
            "droverd runs jobs without cgroups here")
    assert m, out
    # only the GPU the step was given on each node
    assert out.count("nvidia0") == 2 and "nvidia1" not in out, out
    # the exit code of the container's process
    assert r.returncode == 7, (r.returncode, r.stderr)
    wait_dirs_gone(c)


def test_srun_container_from_slurm_container_env(oci_cluster):
    c, bundle = oci_cluster
    r = c.run("srun", "-N1", "cat", "/etc/os-release", user=USER,
              env={"SLURM_CONTAINER": str(bundle)}, timeout=60)
    assert r.returncode == 0 and r.stdout == OS_RELEASE, (r.stdout, r.stderr)
    # without it the host's os-release
    r = c.run("srun", "-N1", "cat", "/etc/os-release", user=USER, timeout=60)
    assert "Drover Test Busybox" not in r.stdout


def test_sbatch_script_runs_in_the_bundle(oci_cluster):
    c, bundle = oci_cluster
    work = c.user_workdir(USER)
    script = Path(work) / "oci-job.sh"
    script.write_text("#!/bin/sh\n#SBATCH --container=" + str(bundle) + "\n"
                      "cat /etc/os-release\necho container=$SLURM_CONTAINER\n"
                      "exit 3\n")
    os.chmod(script, 0o755)
    job = c.sbatch("-o", "oci-out.txt", str(script), user=USER, cwd=work)
    c.wait_job_state(job, ["FAILED"], timeout=60)
    out = (Path(work) / "oci-out.txt").read_text()
    assert out == OS_RELEASE + f"container={bundle}\n", out
    assert c.job_field(job, "ExitCode") == "3:0"


def test_container_without_a_config_json_fails_the_step(oci_cluster):
    c, bundle = oci_cluster
    r = c.run("srun", "-N1", f"--container={bundle}/rootfs", "true",
              user=USER, timeout=60)
    assert r.returncode != 0
    assert "config.json" in r.stderr, r.stderr


def test_srun_container_image_oci_layout_and_docker_archive(oci_cluster):
    c, bundle = oci_cluster
    layout, archive = make_image(bundle.parent)
    uid = int(subprocess.run(["id", "-u", USER], capture_output=True,
                             text=True, check=True).stdout)
    data = bundle.parent / "data"
    data.mkdir()
    (data / "marker").write_text("from the host\n")
    r = c.run("srun", "-N2", "--gres=gpu:1",
              f"--container-image={layout}:latest",
              f"--container-mounts={data}:/data:ro",
              "--container-workdir=/data", "sh", "-c",
              "cat /etc/os-release; echo uid=$(id -u); pwd; cat marker; "
              f"cat /proc/self/cgroup; ls {c.dir / 'dev'}",
              user=USER, timeout=120)
    out = r.stdout
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert out.count('NAME="Drover Test Busybox"') == 2, out
    assert out.count(f"uid={uid}\n") == 2, out
    assert out.count("/data\nfrom the host\n") == 2, out
    assert len(re.findall(r"job_\d+/step_0", out)) >= 2, out
    assert out.count("nvidia0") == 2 and "nvidia1" not in out, out
    wait_dirs_gone(c)

    r = c.run("srun", "-N1", f"--container-image=docker-archive:{archive}",
              "cat", "/etc/os-release", user=USER, timeout=120)
    assert r.returncode == 0 and r.stdout == OS_RELEASE, (r.stdout, r.stderr)

    # a missing image: the step fails with the tool's reason
    r = c.run("srun", "-N1", f"--container-image={layout}:nosuchtag",
              "true", user=USER, timeout=60)
    assert r.returncode != 0 and "cannot unpack" in r.stderr, r.stderr


def test_sbatch_container_image(oci_cluster):
    c, bundle = oci_cluster
    layout, _ = make_image(bundle.parent)
    work = c.user_workdir(USER)
    job = c.sbatch("-o", "img-out.txt", f"--container-image={layout}",
                   "--wrap", "cat /etc/os-release", user=USER, cwd=work)
    c.wait_job_state(job, ["COMPLETED"], timeout=60)
    assert (Path(work) / "img-out.txt").read_text() == OS_RELEASE


def test_create_start_form(oci_cluster):
    c, bundle = oci_cluster
    c.down()
    write_oci_conf(c.dir / "etc", bundle.parent, create_start=True)
    c.up()
    c.wait_nodes_idle()
    r = c.run("srun", "-N2", f"--container={bundle}", "sh", "-c",
              "cat /etc/os-release; id -u", user=USER, timeout=90)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert r.stdout.count('NAME="Drover Test Busybox"') == 2, r.stdout
    wait_dirs_gone(c)


def test_salloc_container_reaches_its_sruns(oci_cluster):
    c, bundle = oci_cluster
    r = c.run("salloc", "-N1", f"--container={bundle}", "srun", "cat",
              "/etc/os-release", user=USER, timeout=90)
    assert r.returncode == 0 and OS_RELEASE in r.stdout, (r.stdout, r.stderr)


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0}],
                         indirect=True)
def test_container_without_oci_conf_is_refused(cluster, test_users):
    # Slurm would run the task outside any container; Drover refuses
    r = cluster.run("srun", "-N1", "--container=/nonexistent", "true",
                    user=USER, timeout=60)
    assert r.returncode != 0
    assert "no oci.conf" in r.stderr, r.stderr
