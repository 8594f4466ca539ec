# SPDX-License-Identifier: Apache-2.0
"""The command lines of clients that submit and then poll: submitit,
JupyterHub's batchspawner and Open OnDemand, run unchanged against a real
local cluster, their answers parsed the way those clients parse them.

None of the three ships in Debian, so their documented command lines are
reproduced here:
- submitit (SlurmExecutor): `sbatch FILE` with its #SBATCH lines (an
  srun step writing %j_%t files), the id read with r"job (\\d+)", then
  `sacct -o JobID,State,NodeList --parsable2 -j A -j B` for every job
  at once; `scancel ID`.
- batchspawner (SlurmSpawner): `sbatch --parsable` with the script on
  stdin (#SBATCH --export=PATH,LANG,JUPYTERHUB_API_TOKEN,
  --get-user-env=L), the id read as output.split(";")[0]; `squeue -h -j
  ID -o '%T %B'` matched with ^(?:PENDING|CONFIGURING),
  ^(?:RUNNING|COMPLETING) and the host with \\s+((?:[\\w_-]+\\.?)+)$;
  `scancel ID`.
- Open OnDemand (ood_core's Slurm adapter): `sbatch --export=NONE
  --parsable -M CLUSTER` with the script on stdin, the id read as
  output.split(";")[0]; `squeue --all --states=all --noconvert -o
  "\\x1e%A\\x1f..." -j ID`, split on the record and unit separators.
And the polling every portal and workflow tool has: `sacct --json`,
`squeue -h -j N -o %T`, `squeue --noheader -j N -o "%i %T %R"`.
"""

import json
import re
import textwrap

import pytest

RS, US = "\x1e", "\x1f"


def cluster_name(cluster):
    return cluster.show_config("ClusterName")


def squeue_state(cluster, job):
    """`squeue -h -j N -o %T`: the state, or "" once squeue no longer
    lists the job."""
    return cluster.run("squeue", "-h", "-j", job, "-o", "%T",
                       check=True).stdout.strip()


def blocker(cluster, tmp_path):
    """A running job holding the only node whole, so the next waits."""
    job = cluster.sbatch("--parsable", "--exclusive", "--wrap", "sleep 600",
                         cwd=tmp_path)
    cluster.wait_until(lambda: squeue_state(cluster, job) == "RUNNING",
                       what=f"blocker {job} running")
    return job


SUBMITIT = textwrap.dedent("""\
    #!/bin/bash

    # Parameters
    #SBATCH --cpus-per-task=1
    #SBATCH --error={d}/%j_0_log.err
    #SBATCH --job-name=submitit
    #SBATCH --nodes=1
    #SBATCH --ntasks-per-node=1
    #SBATCH --open-mode=append
    #SBATCH --output={d}/%j_0_log.out
    #SBATCH --signal=USR2@90
    #SBATCH --time=5
    #SBATCH --wckey=submitit

    # command
    export SUBMITIT_EXECUTOR=slurm
    srun --unbuffered --output {d}/%j_%t_log.out --error {d}/%j_%t_log.err \\
        /bin/sh -c 'echo "task $SLURM_PROCID of $SLURM_JOB_ID"; exit {rc}'
    """)


def submitit_read_info(text):
    """submitit's SlurmInfoWatcher._read_info: the job rows of sacct's
    --parsable2 answer, steps left out."""
    lines = text.splitlines()
    names = lines[0].split("|")
    out = {}
    for line in lines[1:]:
        stats = {x: y.strip() for x, y in zip(names, line.split("|"))}
        if not stats["JobID"] or "." in stats["JobID"]:
            continue
        out[stats["JobID"]] = stats
    return out


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_submitit_submits_with_sbatch_and_polls_sacct_for_all_jobs(
        cluster, tmp_path):
    jobs = {}
    for rc in (0, 3):
        script = tmp_path / f"submission_{rc}.sh"
        script.write_text(SUBMITIT.format(d=tmp_path, rc=rc))
        r = cluster.run("sbatch", str(script), cwd=tmp_path, check=True)
        m = re.search(r"job (?P<id>[0-9]+)", r.stdout)
        assert m and r.stdout == f"Submitted batch job {m['id']}\n"
        jobs[rc] = m["id"]

    cmd = ["sacct", "-o", "JobID,State,NodeList", "--parsable2"]
    for j in jobs.values():
        cmd += ["-j", j]

    def finished():
        info = submitit_read_info(cluster.run(*cmd, check=True).stdout)
        if all(info.get(j, {}).get("State") in ("COMPLETED", "FAILED")
               for j in jobs.values()):
            return info
        return None
    info = cluster.wait_until(finished, timeout=60,
                              what="both submitit jobs finished in sacct")
    assert set(info) == set(jobs.values())
    assert info[jobs[0]] == {"JobID": jobs[0], "State": "COMPLETED",
                             "NodeList": "node01"}
    assert info[jobs[3]] == {"JobID": jobs[3], "State": "FAILED",
                             "NodeList": "node01"}
    # The srun step's own %j_%t files (task 0) and the steps' rows.
    for rc, j in jobs.items():
        assert ((tmp_path / f"{j}_0_log.out").read_text()
                == f"task 0 of {j}\n")
    steps = cluster.run("sacct", "-n", "-P", "-o", "JobID,State,ExitCode",
                        "-j", jobs[3], check=True).stdout.splitlines()
    assert f"{jobs[3]}|FAILED|3:0" in steps
    assert f"{jobs[3]}.0|FAILED|3:0" in steps


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sbatch_parsable_prints_the_id_or_id_and_cluster(cluster, tmp_path):
    name = cluster_name(cluster)
    assert name
    r = cluster.run("sbatch", "--parsable", "-H", "--wrap", "true",
                    cwd=tmp_path, check=True)
    assert re.fullmatch(r"\d+\n", r.stdout), r.stdout
    assert r.stderr == ""
    # With -M, Slurm names the cluster: "N;cluster".
    r = cluster.run("sbatch", "--parsable", "-M", name, "-H", "--wrap",
                    "true", cwd=tmp_path, check=True)
    m = re.fullmatch(rf"(\d+);{name}\n", r.stdout)
    assert m, r.stdout
    assert cluster.job_state(m[1]) == "PENDING"
    r = cluster.run("sbatch", "--clusters", name, "-H", "--wrap", "true",
                    cwd=tmp_path, check=True)
    assert re.fullmatch(rf"Submitted batch job \d+ on cluster {name}\n",
                        r.stdout), r.stdout
    r = cluster.run("sbatch", "--parsable", "-M", "elsewhere", "--wrap",
                    "true", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert "elsewhere" in r.stderr
    assert len(cluster.run("squeue", "-h", "-o", "%i",
                           check=True).stdout.split()) == 3


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sacct_json_polling_sees_states_and_exit_codes(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\necho done\n")
    ok = cluster.run("sbatch", "--parsable", str(script), cwd=tmp_path,
                     check=True).stdout.strip()
    bad = cluster.run("sbatch", "--parsable", "--wrap", "exit 3",
                      cwd=tmp_path, check=True).stdout.strip()
    assert ok.isdigit() and bad.isdigit()

    def poll():
        r = cluster.run("sacct", "--json", "-j", f"{ok},{bad}", check=True)
        doc = json.loads(r.stdout)
        jobs = {str(j["job_id"]): j for j in doc["jobs"]}
        states = {k: j["state"]["current"] for k, j in jobs.items()}
        if states == {ok: "COMPLETED", bad: "FAILED"}:
            return doc, jobs
        return None
    doc, jobs = cluster.wait_until(poll, timeout=60,
                                   what="sacct --json showing both done")
    assert doc["meta"]["Slurm"]["release"].startswith("22.05")
    assert doc["errors"] == []
    for j in (ok, bad):
        job = jobs[j]
        assert job["job_id"] == int(j)
        # Slurm 22.05's v0.0.38 exit_code: SUCCESS and 0 for any exit;
        # the failure shows in the state.
        assert job["exit_code"] == {"status": "SUCCESS", "return_code": 0}
        assert job["nodes"] == "node01"
        batch = [s for s in job["steps"] if s["step"]["name"] == "batch"]
        assert len(batch) == 1 and batch[0]["step"]["job_id"] == int(j)
    assert jobs[ok]["steps"][0]["state"] == "COMPLETED"
    assert jobs[bad]["steps"][0]["state"] == "FAILED"
    assert jobs[bad]["state"]["current"] == "FAILED"


BATCHSPAWNER = textwrap.dedent("""\
    #!/bin/bash
    #SBATCH --output={d}/jupyterhub_slurmspawner_%j.log
    #SBATCH --job-name=spawner-jupyterhub
    #SBATCH --chdir={d}
    #SBATCH --export=PATH,LANG,JUPYTERHUB_API_TOKEN
    #SBATCH --get-user-env=L

    set -euo pipefail

    trap 'echo SIGTERM received' TERM
    echo "token=${{JUPYTERHUB_API_TOKEN:-}} other=${{NOT_KEPT:-unset}}"
    sleep 600
    echo "jupyterhub-singleuser ended gracefully"
    """)

PENDING_RE = r"^(?:PENDING|CONFIGURING)"
RUNNING_RE = r"^(?:RUNNING|COMPLETING)"
EXECHOST_RE = r"\s+((?:[\w_-]+\.?)+)$"


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_batchspawner_submits_on_stdin_polls_squeue_and_cancels(
        cluster, tmp_path):
    block = blocker(cluster, tmp_path)
    r = cluster.run("sbatch", "--parsable", cwd=tmp_path,
                    input=BATCHSPAWNER.format(d=tmp_path),
                    env={"JUPYTERHUB_API_TOKEN": "t0ken", "NOT_KEPT": "x"},
                    check=True)
    job = r.stdout.split(";")[0].strip()
    assert job.isdigit() and r.stdout == f"{job}\n"

    def query():
        return cluster.run("squeue", "-h", "-j", job, "-o", "%T %B",
                           check=True).stdout.strip()
    out = query()
    assert re.match(PENDING_RE, out) and out == "PENDING n/a", out
    assert squeue_state(cluster, job) == "PENDING"
    r = cluster.run("squeue", "--noheader", "-j", job, "-o", "%i %T %R",
                    check=True)
    assert r.stdout == f"{job} PENDING (Resources)\n"

    cluster.run("scancel", block, check=True)
    out = cluster.wait_until(lambda: re.match(RUNNING_RE, query()) and query(),
                             timeout=60, what=f"job {job} RUNNING")
    assert re.search(EXECHOST_RE, out)[1] == "node01"
    assert out == "RUNNING node01"
    r = cluster.run("squeue", "--noheader", "-j", job, "-o", "%i %T %R",
                    check=True)
    assert r.stdout == f"{job} RUNNING node01\n"
    log = tmp_path / f"jupyterhub_slurmspawner_{job}.log"
    cluster.wait_until(lambda: log.exists() and "token=" in log.read_text(),
                       what="the job's first line")
    assert log.read_text().startswith("token=t0ken other=unset\n")

    cluster.run("scancel", job, check=True)
    cluster.wait_until(lambda: squeue_state(cluster, job) == "",
                       timeout=60, what=f"job {job} gone from squeue")
    r = cluster.run("squeue", "-h", "-j", job, "-t", "all", "-o", "%T",
                    check=True)
    assert r.stdout == "CANCELLED\n"

    # The script traps TERM, so how it ends is its own; the job is
    # CANCELLED by the one who cancelled it.
    row = cluster.wait_until(lambda: cancelled_row(cluster, job),
                             what=f"job {job} CANCELLED in sacct")
    assert re.fullmatch(rf"{job}\|CANCELLED by 0\|\d+:\d+\n", row), row


def cancelled_row(cluster, job):
    """`sacct -X -n -P -o JobID,State,ExitCode` of a cancelled job, or
    None while accounting does not say CANCELLED yet."""
    r = cluster.run("sacct", "-X", "-n", "-P", "-j", job, "-o",
                    "JobID,State,ExitCode", check=True)
    return r.stdout if "CANCELLED" in r.stdout else None


# ood_core's squeue fields, in its order.
OOD_FIELDS = {
    "account": "%a", "job_id": "%A", "exec_host": "%B", "min_cpus": "%c",
    "cpus": "%C", "min_tmp_disk": "%d", "nodes": "%D", "end_time": "%e",
    "dependency": "%E", "features": "%f", "array_job_id": "%F",
    "group_name": "%g", "group_id": "%G", "over_subscribe": "%h",
    "sockets_per_node": "%H", "array_job_task_id": "%i",
    "cores_per_socket": "%I", "job_name": "%j", "threads_per_core": "%J",
    "comment": "%k", "array_task_id": "%K", "time_limit": "%l",
    "time_left": "%L", "min_memory": "%m", "time_used": "%M",
    "req_node_list": "%n", "node_list": "%N", "command": "%o",
    "contiguous": "%O", "priority": "%p", "partition": "%P", "qos": "%q",
    "priority_long": "%Q", "reason": "%r", "reason_or_list": "%R",
    "start_time": "%S", "compact_state": "%t", "state": "%T", "user": "%u",
    "user_id": "%U", "reservation": "%v", "submit_time": "%V",
    "wckey": "%w", "licenses": "%W", "excluded_nodes": "%x", "nice": "%y",
    "scp": "%z", "work_dir": "%Z",
}


def ood_squeue(cluster, job):
    """ood_core's get_jobs: one dict per record after the header."""
    fmt = RS + US.join(OOD_FIELDS.values())
    r = cluster.run("squeue", "--all", "--states=all", "--noconvert", "-o",
                    fmt, "-j", job, check=True)
    records = r.stdout.split(RS)
    assert records[0] == ""
    header, rows = records[1], records[2:]
    assert header.rstrip("\n").split(US)[:3] == ["ACCOUNT", "JOBID",
                                                 "EXEC_HOST"]
    out = []
    for row in rows:
        values = row.rstrip("\n").split(US)
        assert len(values) == len(OOD_FIELDS), values
        out.append(dict(zip(OOD_FIELDS, values)))
    return out


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_open_ondemand_submits_with_export_none_and_reads_squeue_fields(
        cluster, tmp_path):
    name = cluster_name(cluster)
    script = textwrap.dedent("""\
        #!/bin/bash
        echo "job=$SLURM_JOB_ID mark=${OOD_MARK:-unset}"
        sleep 600
        """)
    r = cluster.run("sbatch", "--export", "NONE", "--parsable", "-M", name,
                    "-J", "ood-app", "-o", f"{tmp_path}/ood-%j.out",
                    cwd=tmp_path, input=script, env={"OOD_MARK": "leak"},
                    check=True)
    job = r.stdout.strip().split(";")[0]
    assert r.stdout == f"{job};{name}\n"
    cluster.wait_until(lambda: squeue_state(cluster, job) == "RUNNING",
                       what=f"job {job} running")
    (rec,) = ood_squeue(cluster, job)
    assert rec["job_id"] == job and rec["array_job_task_id"] == job
    assert rec["job_name"] == "ood-app"
    assert rec["state"] == "RUNNING" and rec["compact_state"] == "R"
    assert rec["exec_host"] == "node01" and rec["node_list"] == "node01"
    assert rec["reason_or_list"] == "node01"
    assert rec["user"] == cluster.user
    assert rec["dependency"] == "(null)"
    assert rec["work_dir"] == str(tmp_path)
    assert re.fullmatch(r"\d+:\d\d", rec["time_used"])
    out = tmp_path / f"ood-{job}.out"
    cluster.wait_until(lambda: out.exists() and out.read_text(),
                       what="the job's output")
    assert out.read_text() == f"job={job} mark=unset\n"

    cluster.run("scancel", job, check=True)
    cluster.wait_until(lambda: [r["state"] for r in ood_squeue(cluster, job)]
                       == ["CANCELLED"], what=f"job {job} CANCELLED")
    # SIGTERM ended the script: ExitCode 0:15, as Slurm's sacct shows a
    # running job cancelled (golden sacct-X-P).
    row = cluster.wait_until(lambda: cancelled_row(cluster, job),
                             what=f"job {job} CANCELLED in sacct")
    assert row == f"{job}|CANCELLED by 0|0:15\n"
    doc = json.loads(cluster.run("sacct", "--json", "-j", job,
                                 check=True).stdout)
    (rec,) = doc["jobs"]
    assert rec["state"]["current"] == "CANCELLED"
    assert rec["exit_code"] == {"status": "SIGNALED", "return_code": None,
                                "signal": {"signal_id": 15,
                                           "name": "Terminated"}}
