# SPDX-License-Identifier: Apache-2.0
"""sdiag (issue 10: the figures behind the speed goals; issue 11's
command): the controller's counters, scheduling cycles and request
statistics, in Slurm's text, its options, and the reset an ordinary user
may not do."""
import json
import re

import pytest


def _section(text, title):
    """The tab-indented lines under 'title'."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("\t"):
            break
        out.append(line[1:])
    return out


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sdiag_counts_jobs_and_requests_as_slurm_prints_them(cluster,
                                                             tmp_path):
    c = cluster
    c.run("sdiag", "-r", check=True)
    for _ in range(3):
        c.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
    failed = c.sbatch("-o", "/dev/null", "--wrap", "exit 3", cwd=tmp_path)
    held = c.sbatch("-H", "-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
    c.wait_job_state(failed, ["FAILED"], timeout=30)
    c.run("scancel", held, check=True)
    c.wait_until(lambda: "Jobs completed: 3" in c.run("sdiag").stdout, 30,
                 "three completions counted")

    out = c.run("sdiag", check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "*" * 55 and lines[3] == "*" * 55
    assert re.fullmatch(r"sdiag output at \w{3} \w{3} [ \d]\d "
                        r"\d\d:\d\d:\d\d \d{4} \(\d+\)", lines[1])
    assert lines[2].startswith("Data since      ")
    assert "Jobs submitted: 5\nJobs started:   4\nJobs completed: 3\n" \
           "Jobs canceled:  1\nJobs failed:    1\n" in out
    sched = _section(out, "Main schedule statistics (microseconds):")
    assert [s.split(":")[0] for s in sched] == [
        "Last cycle", "Max cycle", "Total cycles", "Mean cycle",
        "Mean depth cycle", "Cycles per minute", "Last queue length"]
    assert int(sched[2].split(":")[1]) > 0  # passes ran
    assert _section(out, "Backfilling stats")[0].startswith(
        "Total backfilled jobs (since last slurm start): ")
    rpcs = _section(out, "Remote Procedure Call statistics by message type")
    row = re.compile(r"(\S+) +\( *(\d+)\) count:(\d+) +ave_time:(\d+) +"
                     r"total_time:(\d+)")
    by_name = {}
    for r in rpcs:
        m = row.fullmatch(r)
        assert m, r
        by_name[m[1]] = (int(m[2]), int(m[3]))
    assert by_name["REQUEST_SUBMIT_BATCH_JOB"] == (4003, 5)
    assert by_name["REQUEST_KILL_JOB"] == (5032, 1)
    assert by_name["REQUEST_STEP_COMPLETE"][0] == 5016
    # by count, highest first (Slurm's default); -i by id
    counts = [int(row.fullmatch(r)[3]) for r in rpcs]
    assert counts == sorted(counts, reverse=True)
    ids = [int(row.fullmatch(r)[2]) for r in _section(
        c.run("sdiag", "-i", check=True).stdout,
        "Remote Procedure Call statistics by message type")]
    assert ids == sorted(ids)
    users = _section(out, "Remote Procedure Call statistics by user")
    assert users[0].startswith(f"{c.user:<16}(")
    assert out.endswith("Pending RPC statistics\n\tNo pending RPCs\n")

    # Drover's --json adds percentiles per message type
    stats = json.loads(c.run("sdiag", "--json", check=True).stdout)
    submit = [t for t in stats["rpc"]["types"] if t["type"] == "job_submit"]
    assert submit[0]["count"] == 5
    assert 0 < submit[0]["p50_us"] <= submit[0]["p99_us"] <= \
        submit[0]["max_us"]

    # -r starts again
    r = c.run("sdiag", "-r", check=True)
    assert r.stdout == "Reset scheduling statistics\n"
    assert "Jobs submitted: 0\n" in c.run("sdiag", check=True).stdout


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sdiag_reset_needs_an_operator_and_options_are_slurms(cluster,
                                                             test_user):
    c = cluster
    c.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    r = c.run("sdiag", "-r", user=test_user)
    assert r.returncode == 1
    assert r.stderr.startswith("slurm_reset_statistics: ")
    assert "Jobs submitted: 1\n" in c.run("sdiag", user=test_user,
                                          check=True).stdout
    r = c.run("sdiag", "--bogus")
    assert r.returncode == 1
    assert "Try \"sdiag --help\" for more information" in r.stderr
    assert c.run("sdiag", "--usage", check=True).stdout == \
        "Usage: sdiag [-M cluster] [-aritT]\n"
    assert c.run("sdiag", "-V", check=True).stdout.startswith("slurm ")


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_sdiag_shows_the_event_loops_longest_turn(cluster, tmp_path):
    # Drover's section (issue 18): the controller's one loop, its last
    # and longest turn of work between two waits.
    for _ in range(5):
        cluster.sbatch("-o", "/dev/null", "--wrap", "true", cwd=tmp_path)
    out = cluster.run("sdiag", check=True).stdout
    turns = dict(l.split(":") for l in
                 _section(out, "Event loop turn statistics (microseconds):"))
    last, longest = int(turns["Last turn"]), int(turns["Longest turn"])
    assert 0 < longest < 10_000_000 and last <= longest
    # Where the longest turn went: its longest timed part (a request's
    # type, the scheduling pass, the journal flush...), parts of one kind
    # summed over the turn, with how many there were.
    part = turns["Its longest part"].strip()
    m = re.fullmatch(r"(\d+) \((.+), (\d+) times\)", part)
    assert m, part
    assert 0 <= int(m[1]) <= longest and int(m[3]) >= 1
    assert 0 < int(turns["Most CPU in a turn"]) < 10_000_000
