# SPDX-License-Identifier: Apache-2.0
"""droverrestd (issue 14): slurmrestd's v0.0.39 (Slurm 23.02) and v0.0.40
(Slurm 23.11) paths on a real cluster: jobs submitted through each
version's job/submit, read back in that version's shapes (numbers that may
be unset or infinite as {"set","infinite","number"}, v0.0.40's times and
job states likewise and as arrays), cancelled with DELETE; nodes,
partitions, ping, diag, reservations; /slurmdb jobs after completion;
errors in the version's envelope."""
import pytest
from test_rest import call, token

VERSIONS = ["v0.0.39", "v0.0.40"]


def no_val(number=0, infinite=False, set_=True):
    return {"set": set_, "infinite": infinite, "number": number}


def state_of(rec, v):
    """A job's state: a string in v0.0.39, a one-flag array in v0.0.40."""
    if v == "v0.0.39":
        assert isinstance(rec["job_state"], str)
        return rec["job_state"]
    assert isinstance(rec["job_state"], list)
    return rec["job_state"][0]


def envelope(doc, v):
    meta = doc["meta"]["plugin"]
    assert (meta["type"], meta["data_parser"]) == (
        f"openapi/{v}", f"data_parser/{v}")
    assert doc["warnings"] == [] or isinstance(doc["warnings"], list)
    assert "errors" in doc


def submit(c, tok, v, user, name, job):
    script = f"#!/bin/bash\necho {name}\n"
    out = c.user_workdir(user) / f"{name}.out"
    job = dict(job, name=name, current_directory=str(out.parent),
               standard_output=str(out),
               environment=["PATH=/usr/bin:/bin", f"WHO={name}"])
    if v == "v0.0.40":   # 23.11 takes the script inside the job
        body = {"job": dict(job, script=script)}
    else:
        body = {"script": script, "job": job}
    status, doc = call(c, f"/slurm/{v}/job/submit", tok, "POST", body)
    assert status == 200, doc
    envelope(doc, v)
    if v == "v0.0.40":
        assert doc["result"]["job_id"] == doc["job_id"]
    return str(doc["job_id"]), out


def one_job(c, tok, v, job):
    status, doc = call(c, f"/slurm/{v}/job/{job}", tok)
    assert status == 200, doc
    envelope(doc, v)
    (rec,) = doc["jobs"]
    return rec


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_jobs_in_v39_and_v40_shapes(cluster, test_user):
    c = cluster
    tok = token(c, test_user)
    for v in VERSIONS:
        status, doc = call(c, f"/slurm/{v}/ping")
        assert status == 401 and doc["errors"][0]["error_number"] > 0
        status, doc = call(c, f"/slurm/{v}/ping", tok)
        assert status == 200 and doc["pings"][0]["pinged"] == "UP", doc
        envelope(doc, v)
        assert doc["pings"][0]["latency"] >= 0

        # A time limit as a no_val object, and one unlimited and held.
        done, out = submit(c, tok, v, test_user, f"lim-{v}",
                           {"time_limit": no_val(5)})
        held, _ = submit(c, tok, v, test_user, f"unl-{v}",
                         {"time_limit": {"set": True, "infinite": True},
                          "hold": True})
        assert c.wait_job_done(done) == "COMPLETED"
        assert out.read_text() == f"lim-{v}\n"

        rec = one_job(c, tok, v, done)
        assert rec["job_id"] == int(done) and rec["user_name"] == test_user
        assert rec["time_limit"] == no_val(5)
        assert state_of(rec, v) == "COMPLETED"
        assert rec["priority"]["set"] is True
        assert rec["node_count"] == no_val(1)
        if v == "v0.0.39":
            assert isinstance(rec["submit_time"], int)
            assert rec["exit_code"] == 0
        else:
            assert rec["submit_time"]["set"] is True
            assert rec["submit_time"]["number"] > 0
            assert rec["end_time"]["number"] >= rec["start_time"]["number"]
            assert rec["exit_code"]["status"] == ["SUCCESS"]
            assert rec["exit_code"]["return_code"] == no_val(0)

        rec = one_job(c, tok, v, held)
        assert rec["time_limit"] == no_val(0, infinite=True)
        assert state_of(rec, v) == "PENDING"
        if v == "v0.0.40":
            assert rec["hold"] is True
        status, doc = call(c, f"/slurm/{v}/jobs", tok)
        assert status == 200
        if v == "v0.0.40":
            assert doc["last_update"]["set"] and doc["last_update"]["number"]
        ids = [j["job_id"] for j in doc["jobs"]]
        assert int(done) in ids and int(held) in ids

        status, doc = call(c, f"/slurm/{v}/job/{held}", tok, "DELETE")
        assert status == 200 and doc["errors"] == [], doc
        envelope(doc, v)
        assert c.wait_job_done(held) == "CANCELLED"
        assert state_of(one_job(c, tok, v, held), v) == "CANCELLED"


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_nodes_partitions_diag_v39_v40(cluster):
    c = cluster
    tok = token(c)
    c.run("scontrol", "update", "NodeName=node01", "State=DRAIN",
          "Reason=rest-test", check=True)
    for v in VERSIONS:
        status, doc = call(c, f"/slurm/{v}/nodes", tok)
        assert status == 200, doc
        envelope(doc, v)
        (node,) = doc["nodes"]
        assert node["name"] == "node01"
        # One array of flags: the base state and DRAIN.
        assert node["state"][0] in ("IDLE", "MIXED", "ALLOCATED")
        assert "DRAIN" in node["state"] and "state_flags" not in node
        assert node["reason"] == "rest-test"
        assert isinstance(node["features"], list)
        assert node["alloc_idle_cpus"] == node["cpus"] - node["alloc_cpus"]
        if v == "v0.0.40":
            assert node["slurmd_start_time"]["set"] is True
            assert node["slurmd_start_time"]["number"] > 0
        else:
            assert node["slurmd_start_time"] > 0
        status, doc = call(c, f"/slurm/{v}/node/node01", tok)
        assert status == 200 and doc["nodes"][0]["name"] == "node01"
        status, doc = call(c, f"/slurm/{v}/node/nope", tok)
        assert status == 404 and doc["errors"][0]["error_number"] > 0

        status, doc = call(c, f"/slurm/{v}/partitions", tok)
        assert status == 200
        envelope(doc, v)
        (p,) = doc["partitions"]
        assert p["name"] == "debug" and p["nodes"]["configured"] == "node01"
        assert p["nodes"]["total"] == 1 and p["cpus"]["total"] > 0
        assert p["maximums"]["time"] == no_val(0, infinite=True)
        if v == "v0.0.40":
            assert p["partition"]["state"] == ["UP"]
        status, doc = call(c, f"/slurm/{v}/partition/debug", tok)
        assert status == 200 and doc["partitions"][0]["name"] == "debug"

        status, doc = call(c, f"/slurm/{v}/diag", tok)
        assert status == 200
        envelope(doc, v)
        assert doc["statistics"]["rpcs_by_message_type"]
        status, doc = call(c, f"/slurm/{v}/reservations", tok)
        assert status == 200 and doc["reservations"] == []


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_errors_and_slurmdb_v39_v40(cluster):
    c = cluster
    tok = token(c)
    job = c.sbatch("-t", "7", "--wrap", "true")
    assert c.wait_job_done(job) == "COMPLETED"
    for v in VERSIONS:
        status, doc = call(c, f"/slurm/{v}/job/999999", tok)
        assert status == 404
        envelope(doc, v)
        (err,) = doc["errors"]
        assert err["description"] == "Invalid job id specified"
        assert err["error_number"] > 0 and err["source"]
        status, doc = call(c, f"/slurm/{v}/job/submit", tok, "POST",
                           raw=b"{not json")
        assert status == 400
        assert "not JSON" in doc["errors"][0]["description"]
        status, doc = call(c, f"/slurm/{v}/job/submit", tok, "POST",
                           {"script": "#!/bin/sh\n",
                            "job": {"time_limit": {"number": "x"}}})
        assert status == 400
        assert "job.time_limit" in doc["errors"][0]["description"]
        # A path of the version Drover does not answer: 404, the envelope.
        status, doc = call(c, f"/slurm/{v}/licenses", tok)
        assert status == 404
        envelope(doc, v)
        assert "no such path" in doc["errors"][0]["description"]

        def db_job():
            status, doc = call(c, f"/slurmdb/{v}/job/{job}", tok)
            if status != 200:
                return None
            cur = doc["jobs"][0]["state"]["current"]
            return doc if cur in ("COMPLETED", ["COMPLETED"]) else None
        doc = c.wait_until(db_job, what=f"job {job} in accounting ({v})")
        envelope(doc, v)
        (rec,) = doc["jobs"]
        assert rec["time"]["limit"] == no_val(7)
        assert rec["priority"]["set"] is True
        if v == "v0.0.40":
            assert rec["state"]["current"] == ["COMPLETED"]
            assert rec["exit_code"]["status"] == ["SUCCESS"]
        else:
            assert rec["state"]["current"] == "COMPLETED"
        status, doc = call(c, f"/slurmdb/{v}/jobs?state=COMPLETED", tok)
        assert status == 200
        assert int(job) in [j["job_id"] for j in doc["jobs"]]
        status, doc = call(c, f"/slurmdb/{v}/job/999999", tok)
        assert status == 404
        envelope(doc, v)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_slurmdb_tables_v39_v40(cluster, test_user):
    """/slurmdb/{v}/qos, associations, users, accounts: the limits set
    with sacctmgr, in each version's shapes (no_val limits, infinite when
    unlimited, Slurm 23.02's paths); v0.0.38 keeps its own."""
    c = cluster
    c.run("sacctmgr", "-i", "add", "account", "physics", check=True)
    c.run("sacctmgr", "-i", "add", "user", test_user, "account=physics",
          "MaxJobs=2", "MaxSubmitJobs=6", "GrpJobs=4", "MaxWall=30",
          "GrpTRES=cpu=8", check=True)
    c.run("sacctmgr", "-i", "add", "qos", "gpu4",
          "MaxTRESPerUser=gres/gpu=4", "MaxJobsPerUser=3",
          "MaxSubmitJobsPerUser=5", "MaxWall=60", "GrpJobs=10",
          "Priority=7", "UsageFactor=2", check=True)
    c.run("sacctmgr", "-i", "add", "qos", "free", check=True)
    tok = token(c)
    unlimited = no_val(0, infinite=True)
    for v in VERSIONS:
        status, doc = call(c, f"/slurmdb/{v}/qos")
        assert status == 401
        envelope(doc, v)
        status, doc = call(c, f"/slurmdb/{v}/qos", tok)
        assert status == 200, doc
        envelope(doc, v)
        qos = {q["name"]: q for q in doc["qos"]}
        most = qos["gpu4"]["limits"]["max"]
        assert most["tres"]["per"]["user"] == [
            {"type": "gres", "name": "gpu", "count": 4}]
        assert most["tres"]["total"] == most["tres"]["per"]["node"] == []
        assert most["jobs"]["active_jobs"]["per"]["user"] == no_val(3)
        assert most["jobs"]["per"]["user"] == no_val(5)
        assert most["jobs"]["per"]["account"]["set"] is False
        assert most["wall_clock"]["per"]["job"] == no_val(60)
        assert most["active_jobs"]["count"] == no_val(10)
        assert qos["gpu4"]["usage_factor"] == no_val(2)
        assert qos["gpu4"]["priority"] == (
            7 if v == "v0.0.39" else no_val(7))
        free = qos["free"]["limits"]["max"]
        assert free["jobs"]["active_jobs"]["per"]["user"] == unlimited
        assert free["jobs"]["per"]["user"] == unlimited
        assert free["wall_clock"]["per"]["job"] == unlimited
        assert free["active_jobs"]["count"] == unlimited
        assert free["tres"]["per"]["user"] == []

        status, doc = call(c, f"/slurmdb/{v}/associations", tok)
        assert status == 200, doc
        envelope(doc, v)
        (assoc,) = [a for a in doc["associations"]
                    if (a["account"], a["user"]) == ("physics", test_user)]
        jobs = assoc["max"]["jobs"]
        assert jobs["active"] == no_val(2) and jobs["total"] == no_val(6)
        assert jobs["per"]["count"] == no_val(4)
        assert jobs["per"]["wall_clock"] == no_val(30)
        assert jobs["per"]["submitted"] == unlimited
        assert assoc["max"]["tres"]["total"] == [
            {"type": "cpu", "name": "", "count": 8}]
        assert assoc["max"]["tres"]["per"]["node"] == []
        assert assoc["priority"]["set"] is False

        status, doc = call(c, f"/slurmdb/{v}/users", tok)
        assert status == 200, doc
        envelope(doc, v)
        users = {u["name"]: u for u in doc["users"]}
        assert users["root"]["administrator_level"] == ["Administrator"]
        assert users[test_user]["administrator_level"] == ["None"]
        assert users[test_user]["default"]["account"] == "physics"
        assert ("physics", "", test_user) in [
            (a["account"], a["partition"], a["user"])
            for a in users[test_user]["associations"]]

        status, doc = call(c, f"/slurmdb/{v}/accounts", tok)
        assert status == 200, doc
        envelope(doc, v)
        accounts = {a["name"]: a for a in doc["accounts"]}
        assert accounts["physics"]["flags"] == []
    # v0.0.38 keeps its shapes: plain numbers, null when unlimited.
    status, doc = call(c, "/slurmdb/v0.0.38/qos", tok)
    qos = {q["name"]: q for q in doc["qos"]}
    assert qos["gpu4"]["limits"]["max"]["jobs"]["per"]["user"] == 3
    assert qos["free"]["limits"]["max"]["jobs"]["per"]["user"] is None
    status, doc = call(c, "/slurmdb/v0.0.38/users", tok)
    users = {u["name"]: u for u in doc["users"]}
    assert users["root"]["administrator_level"] == "Administrator"
