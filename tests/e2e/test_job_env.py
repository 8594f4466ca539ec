# SPDX-License-Identifier: Apache-2.0
"""Every SLURM_* variable of docs/job-environment.md, in a real job.

The table in the doc is the specification: this test reads it, runs the job
it describes and checks each row's value (or its absence, for `-`).
"""
import os
import pwd
import re
import socket
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "job-environment.md"

SCRIPT = "#!/bin/bash\nenv | grep -E '^(SLURM|CUDA|GPU)' | sort\n"


def doc_table():
    """[(variable, value)] from the doc's table."""
    rows = []
    for line in DOC.read_text().splitlines():
        m = re.match(r"\|\s*`([A-Z_]+)`\s*\|\s*(`[^`]*`|-|`-`)\s*\|", line)
        if m:
            rows.append((m.group(1), m.group(2).strip("`")))
    return rows


def test_doc_table_lists_the_issue_variables():
    names = {name for name, _ in doc_table()}
    for v in ("SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NAME SLURM_JOB_NODELIST "
              "SLURM_NODELIST SLURM_JOB_NUM_NODES SLURM_NNODES SLURM_NTASKS "
              "SLURM_NPROCS SLURM_TASKS_PER_NODE SLURM_CPUS_PER_TASK "
              "SLURM_CPUS_ON_NODE SLURM_JOB_CPUS_PER_NODE SLURM_MEM_PER_NODE "
              "SLURM_JOB_PARTITION SLURM_JOB_ACCOUNT SLURM_JOB_QOS "
              "SLURM_SUBMIT_DIR SLURM_SUBMIT_HOST SLURM_CLUSTER_NAME "
              "SLURM_JOB_GPUS SLURM_GPUS_ON_NODE SLURM_NODEID SLURM_PROCID "
              "SLURM_LOCALID SLURM_RESTART_COUNT SLURM_JOB_START_TIME "
              "SLURM_JOB_END_TIME SLURMD_NODENAME").split():
        assert v in names, v


GOLDEN_NAMES = Path(__file__).resolve().parent / "data" / \
    "slurm_job_env_names.txt"


def golden_names():
    """The variables real Slurm set in a batch job (kept in the repository,
    so this test runs wherever the suite does)."""
    return [line for line in GOLDEN_NAMES.read_text().splitlines()
            if line and not line.startswith("#")]


def test_doc_table_covers_the_golden_dump():
    names = {name for name, _ in doc_table()}
    assert len(golden_names()) > 30
    missing = [n for n in golden_names() if n not in names]
    assert not missing, missing


def expected(value, ctx):
    """A regex for a table value, placeholders filled in from ctx."""
    out = ""
    for part in re.split(r"(<[^>]+>)", value):
        if part == "<int>":
            out += r"\d+"
        elif part.startswith("<"):
            out += re.escape(str(ctx[part[1:-1]]))
        else:
            out += re.escape(part)
    return out


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_batch_job_sees_every_documented_variable(cluster, tmp_path):
    os.chmod(tmp_path, 0o755)
    (tmp_path / "envdump.sh").write_text(SCRIPT)
    job_id = cluster.sbatch("-N1", "-n2", "-c2", "--gres=gpu:2", "--mem=1G",
                            "-J", "envdump", "--time=10", "-o", "env-%j.out",
                            "envdump.sh", cwd=tmp_path)
    cluster.wait_job_state(job_id, ["COMPLETED"], timeout=30)
    env = dict(line.split("=", 1) for line in
               (tmp_path / f"env-{job_id}.out").read_text().splitlines())
    start = int(env.get("SLURM_JOB_START_TIME", "0"))
    user = pwd.getpwuid(os.geteuid())
    ctx = {
        "jobid": job_id, "node": env.get("SLURMD_NODENAME", "?"),
        "cluster": cluster.conf_value("ClusterName"),
        "submitdir": tmp_path, "submithost": socket.gethostname().split(".")[0],
        "partition": cluster.job_field(job_id, "Partition"),
        "user": user.pw_name, "uid": user.pw_uid, "gid": user.pw_gid,
        "conf": cluster.conf,
        "ctldhost": cluster.conf_value("SlurmctldHost").split("(")[0],
        "ctldport": cluster.ctld_port,
        "start": start, "start+600": start + 600,
        "account": cluster.job_field(job_id, "Account"),
    }
    assert ctx["node"] in cluster.node_names
    wrong = []
    for name, value in doc_table():
        if value == "-":
            if name in env:
                wrong.append(f"{name}={env[name]} (should be unset)")
        elif name not in env:
            wrong.append(f"{name} missing (want {value})")
        elif not re.fullmatch(expected(value, ctx), env[name]):
            wrong.append(f"{name}={env[name]} (want {value})")
    assert not wrong, "\n".join(wrong)
    assert abs(start - int(cluster.rpc("ping")["now"])) < 120
