# SPDX-License-Identifier: Apache-2.0
"""srun's own prolog and epilog: --prolog/--epilog and SrunProlog=/
SrunEpilog= in slurm.conf run on srun's host, as srun's user, with the
step's command as arguments and SLURM_SCRIPT_CONTEXT set; a failing
prolog aborts the step with Slurm's message."""

import os

from cluster import Cluster

RECORD = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT $(id -un) $SLURM_JOB_ID $*" >> {log}
exit {rc}
"""


def script(path, log, rc=0):
    path.write_text(RECORD.format(log=log, rc=rc))
    os.chmod(path, 0o755)
    return path


def test_options_run_around_the_step(cluster, tmp_path, test_users):
    user = test_users[0]
    log = cluster.user_workdir(user) / "pe.log"
    pro = script(cluster.user_workdir(user) / "pro.sh", log)
    epi = script(cluster.user_workdir(user) / "epi.sh", log, rc=3)
    r = cluster.run("srun", f"--prolog={pro}", f"--epilog={epi}", "echo",
                    "hi", "there", user=user, cwd=cluster.user_workdir(user))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "hi there\n"
    assert "srun: error: srun epilog failed status=3\n" in r.stderr
    lines = log.read_text().splitlines()
    assert lines[0].startswith(f"prolog_srun {user} ")
    assert lines[0].endswith(" echo hi there")
    assert lines[0].split()[2].isdigit()  # SLURM_JOB_ID: the allocation's
    assert lines[1].startswith(f"epilog_srun {user} ")


def test_failing_prolog_aborts_the_step(cluster, tmp_path):
    log = tmp_path / "log"
    bad = script(tmp_path / "bad.sh", log, rc=5)
    out = tmp_path / "ran"
    r = cluster.run("srun", f"--prolog={bad}", "touch", str(out),
                    cwd=tmp_path)
    assert r.returncode == 1
    assert "srun: error: srun prolog failed rc = 5. Aborting step.\n" \
        in r.stderr
    assert not out.exists()


def test_slurm_conf_keys_and_none(cluster_root, tmp_path):
    log = cluster_root / "conf.log"
    pro = script(cluster_root / "pro.sh", log)
    epi = script(cluster_root / "epi.sh", log)
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0,
                up_args=[f"--conf-extra=SrunProlog={pro}",
                         f"--conf-extra=SrunEpilog={epi}"])
    try:
        c.up()
        cfg = c.run("scontrol", "show", "config", check=True).stdout
        assert f"SrunProlog              = {pro}\n" in cfg, cfg
        j = c.sbatch("-o", "/dev/null", "--wrap", "srun true; srun true",
                     cwd=tmp_path)
        assert c.wait_job_done(j) == "COMPLETED"
        lines = log.read_text().splitlines()
        assert [x.split()[0] for x in lines] == [
            "prolog_srun", "epilog_srun", "prolog_srun", "epilog_srun"]
        assert all(x.split()[2] == j for x in lines)
        # --prolog=none overrides slurm.conf
        log.unlink()
        c.run("srun", "--prolog=none", "--epilog=none", "true",
              cwd=tmp_path, check=True)
        assert not log.exists()
    finally:
        c.down()
