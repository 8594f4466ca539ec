# SPDX-License-Identifier: Apache-2.0
"""The commands find slurm.conf through SLURM_CONF when DROVER_CONF is not
set, as every Slurm site's environment sets it (issue 13); DROVER_CONF
comes first."""
import pytest


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_commands_read_slurm_conf(cluster, tmp_path):
    c = cluster
    env = {"DROVER_CONF": "", "SLURM_CONF": str(c.conf)}
    r = c.run("sinfo", "-h", "-o", "%P %D", env=env, check=True)
    assert r.stdout.split() == ["debug*", "1"], r.stdout
    job = c.run("sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true",
                env=env, check=True).stdout.strip()
    c.wait_job_done(job, timeout=60)
    # The job's end reaches droverdbd after the controller's state: wait
    # for sacct to show it, then check what it says.
    def ended():
        r = c.run("sacct", "-n", "-X", "-j", job, "-o", "State", env=env,
                  check=True)
        return None if "RUNNING" in r.stdout else r.stdout
    assert c.wait_until(ended, 30, "sacct shows the end").split() == \
        ["COMPLETED"]
    # DROVER_CONF first: a missing file there is an error, SLURM_CONF or not
    bad = str(tmp_path / "none.conf")
    r = c.run("sinfo", env={"DROVER_CONF": bad, "SLURM_CONF": str(c.conf)})
    assert r.returncode != 0 and "none.conf" in r.stderr, r.stderr
