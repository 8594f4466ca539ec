# SPDX-License-Identifier: Apache-2.0
"""squeue reads the controller's rows with one of two readers
(src/cmd/lib/rowtable.h): jansson's for an answer under 64 KiB, and
simdjson's, from the module libdrover-rows.so loaded for the first
larger one.  A listing of 1,000 jobs takes the second path, one job the
first; each job's line must be the same either way, and the module must
be loaded only for the large listing."""
import json

import pytest

pytestmark = pytest.mark.parametrize(
    "cluster", [{"nodes": 1, "gpus_per_node": 0}], indirect=True)

FORMAT = "%i|%j|%T|%P|%u|%M|%D|%R"
NAMES = ["plain", 'q"uote', "back\\slash", "caf\u00e9", "<x y>"]


def loaded_module(stderr):
    """Whether glibc's LD_DEBUG=files lines show the module loaded (its
    init run: a module looked for and not found shows only its name)."""
    return any("calling init:" in line and "libdrover-rows.so" in line
               for line in stderr.splitlines())


def test_large_and_small_listings_print_the_same_lines(cluster):
    jobs = {}
    for i in range(1000):
        name = NAMES[i % len(NAMES)]
        jobs[cluster.sbatch("-H", "--parsable", "-J", name, "--wrap",
                            "true")] = name

    big = cluster.run("squeue", "-h", "-o", FORMAT, check=True,
                      env={"LD_DEBUG": "files"})
    assert loaded_module(big.stderr), "a 1,000-job listing read by jansson"
    lines = big.stdout.splitlines()
    by_id = {line.split("|")[0]: line for line in lines}
    assert len(lines) == 1000 and set(by_id) == set(jobs)
    # held jobs of one priority: the controller's order, by id
    assert [line.split("|")[0] for line in lines] == sorted(jobs, key=int)

    for job in list(jobs)[::199]:
        small = cluster.run("squeue", "-h", "-j", job, "-o", FORMAT,
                            check=True, env={"LD_DEBUG": "files"})
        assert not loaded_module(small.stderr), "one job read by simdjson"
        assert small.stdout == by_id[job] + "\n"
        fields = by_id[job].split("|")
        assert fields[1] == jobs[job]
        assert fields[2] == "PENDING" and fields[7] == "(JobHeldUser)"


FIELDS = ["job_id", "name", "job_state", "partition", "user_name",
          "state_reason", "array_job_id", "nodes"]


def test_a_listing_in_parts_holds_the_same_rows(cluster):
    """squeue asks for its listing in parts (docs/protocol.md, "Answers in
    parts"): frames of about 64 KiB marked "more", sent as the controller
    writes them; the first names the columns, the later ones hold rows
    alone.  Joined, they are the rows of the same listing in one frame."""
    for _ in range(1500):
        cluster.sbatch("-H", "--parsable", "-J", "a-long-enough-name",
                       "--wrap", "true")
    body = {"fields": FIELDS, "rows": True, "show_all": True}
    whole = cluster.rpc_messages("job_info", body)
    assert len(whole) == 1 and "more" not in whole[0]
    parts = cluster.rpc_messages("job_info", dict(body, parts=True))
    # 1,500 rows of some 80 bytes: a part of 64 KiB, then the rest
    sizes = [len(json.dumps(m, separators=(",", ":"), ensure_ascii=False))
             for m in parts]
    assert len(parts) >= 2, sizes
    assert all(size >= 64 * 1024 for size in sizes[:-1]), sizes
    assert all(m.get("more") is True for m in parts[:-1])
    assert "more" not in parts[-1]
    assert all(m["type"] == "job_info" for m in parts)
    first = parts[0]["body"]
    assert first["keys"] == whole[0]["body"]["keys"] and "now" in first
    for m in parts[1:]:
        assert set(m["body"]) == {"jobs"}, sorted(m["body"])
    rows = [row for m in parts for row in m["body"]["jobs"]]
    assert len(rows) == 1500
    assert rows == whole[0]["body"]["jobs"]
    # squeue reads the parts: every job once, in the controller's order
    r = cluster.run("squeue", "-h", "-o", "%i %j", check=True)
    ids = [line.split()[0] for line in r.stdout.splitlines()]
    assert ids == [str(row[FIELDS.index("job_id")]) for row in rows]
