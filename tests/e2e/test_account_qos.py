# SPDX-License-Identifier: Apache-2.0
"""-A/--account and -q/--qos: stored on the job as given (nothing enforces
them without AccountingStorageEnforce), shown by scontrol and squeue,
filtered by squeue -A/-q, and seen by the job as SLURM_JOB_ACCOUNT /
SLURM_JOB_QOS.  A job without -A gets its user's default account, as in
Slurm (root's is root on a fresh cluster, which snakemake's --slurm
executor reads with sacctmgr before it submits)."""


def test_account_and_qos_shown_filtered_and_in_env(cluster, tmp_path):
    out = tmp_path / "env"
    a = cluster.sbatch("-H", "-A", "Physics", "--qos=high", "--wrap", "true",
                       cwd=tmp_path)
    b = cluster.sbatch("-H", "--account=chem", "--wrap", "true",
                       cwd=tmp_path)
    c = cluster.sbatch("-H", "--wrap", "true", cwd=tmp_path)
    assert cluster.job_field(a, "Account") == "physics"  # as Slurm stores it
    assert cluster.job_field(a, "QOS") == "high"
    assert cluster.job_field(b, "QOS") == "normal"
    assert cluster.job_field(c, "Account") == "root"
    r = cluster.run("squeue", "-h", "-o", "%i %a %q", check=True)
    rows = sorted(r.stdout.splitlines())
    assert rows == sorted([f"{a} physics high", f"{b} chem normal",
                           f"{c} root normal"])
    r = cluster.run("squeue", "-h", "-o", "%i", "-A", "physics,chem",
                    check=True)
    assert sorted(r.stdout.split()) == sorted([a, b])
    r = cluster.run("squeue", "-h", "-o", "%i", "-q", "high", check=True)
    assert r.stdout.split() == [a]
    r = cluster.run("squeue", "-h", "-o", "%i", "--qos=normal", check=True)
    assert sorted(r.stdout.split()) == sorted([b, c])
    cluster.run("scancel", a, b, c, check=True)
    j = cluster.sbatch("-A", "physics", "-q", "high", "-o", str(out),
                       "--wrap", "env | grep -E '^SLURM_JOB_(ACCOUNT|QOS)='",
                       cwd=tmp_path)
    cluster.wait_job_state(j, "COMPLETED", timeout=30)
    assert sorted(out.read_text().split()) == [
        "SLURM_JOB_ACCOUNT=physics", "SLURM_JOB_QOS=high"]


def test_account_from_script_and_env(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH -A fromscript\n#SBATCH -q q1\n"
                      "true\n")
    j = cluster.sbatch("-H", str(script), cwd=tmp_path)
    assert cluster.job_field(j, "Account") == "fromscript"
    r = cluster.run("bash", "-c", f"SBATCH_ACCOUNT=fromenv SBATCH_QOS=q2 "
                    f"sbatch -H --parsable {script}", cwd=tmp_path, check=True)
    k = r.stdout.strip()
    assert cluster.job_field(k, "Account") == "fromenv"
    assert cluster.job_field(k, "QOS") == "q2"
    cluster.run("scancel", j, k, check=True)


def test_root_has_its_account_on_a_fresh_cluster(cluster):
    """snakemake 7's --slurm executor runs exactly this before submitting
    and takes the account it prints."""
    def account():
        return cluster.run("sacctmgr", "-n", "-s", "list", "user", "root",
                           "format=account%20", check=True).stdout
    # the controller registers the cluster as it starts (slurmctld's first
    # contact with slurmdbd does the same)
    cluster.wait_until(lambda: account().strip(), 10, "root's association")
    assert account() == f"{'root':>20} \n", repr(account())
