# SPDX-License-Identifier: Apache-2.0
"""srun as a drop-in for Slurm 22.05's (issue 13): -v/-vv lines, --multi-prog,
task prolog/epilog, environment and limits propagated to the tasks.

Texts are compared with real Slurm's (copies of shared/slurm-golden cases
in tests/unit/data/slurm-golden), with the volatile fields (job id, node
names, ports, limits) replaced."""
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "unit" / "data" / \
    "slurm-golden"


def golden(name, part="stderr"):
    return (GOLDEN / f"{name}.{part}").read_text()


def mask(text, nodes):
    """Volatile fields of srun -v output replaced by placeholders."""
    for i, n in enumerate(nodes):
        text = re.sub(rf"\b{re.escape(n)}\b", f"NODE{i}", text)
    text = re.sub(r"n\[1-2\]|node\[01-02\]", "NODES", text)
    text = re.sub(r"jobid \d+", "jobid J", text)
    text = re.sub(r"requesting job \d+, user \d+", "requesting job J, user U",
                  text)
    text = re.sub(r"StepId=\d+\.", "StepId=J.", text)
    text = re.sub(r"(propagating RLIMIT_\w+)=\d+", r"\1=N", text)
    text = re.sub(r"(is|port|thread \() ?\d+", r"\1 P", text)
    return text


def test_srun_v_prints_slurms_lines(cluster):
    r = cluster.run("srun", "-v", "-n1", "true", check=True)
    want = mask(golden("srun-v-n1"), ["n1"])
    assert mask(r.stderr, ["node01"]) == want, r.stderr
    m = re.search(r"^srun: jobid (\d+): ", r.stderr, re.M)
    assert m and f"StepId={m.group(1)}.0 on host node01" in r.stderr


def fixed_part(text):
    """-vv lines but the per-node ones, whose relative order varies (as
    the golden's notes say)."""
    return [ln for ln in text.splitlines()
            if "_task_" not in ln and " done" not in ln
            and "launch returned" not in ln]


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_srun_vv_two_nodes_matches_slurm(cluster):
    r = cluster.run("srun", "-vv", "-N2", "-n2", "hostname", check=True)
    got = mask(r.stderr, ["node01", "node02"])
    want = mask(golden("srun-vv-N2-n2-hostname"), ["n1", "n2"])
    assert fixed_part(got) == fixed_part(want), r.stderr
    assert sorted(got.splitlines()) == sorted(want.splitlines())
    lines = got.splitlines()
    for t in (0, 1):  # each node's lines in Slurm's order
        seq = [lines.index(f"srun: launch/slurm: _task_start: Node NODE{t}, "
                           "1 tasks started"),
               lines.index(f"srun: launch/slurm: _task_finish: NODE{t}: "
                           f"task {t}: Completed"),
               lines.index(f"srun: debug:  task {t} done")]
        assert seq == sorted(seq), r.stderr


@pytest.mark.parametrize("cluster", [2], indirect=True)
def test_srun_v_inside_a_batch_job_names_the_job(cluster, tmp_path):
    from cluster import run_job
    job_id, out, err = run_job(cluster, tmp_path,
                               "srun -v -n2 -l true\n", "-N1", "-n2")
    assert f"srun: jobid {job_id}: nodes(1):`node01', cpu counts: 2(x1)\n" \
        in err, err
    assert f"srun: launching StepId={job_id}.0 on host node01, 2 tasks: " \
        "[0-1]\n" in err, err
    assert err.count("_task_finish: Received task exit notification for 1 "
                     f"task of StepId={job_id}.0 (status=0x0000).") == 2
