# SPDX-License-Identifier: Apache-2.0
"""squeue reads the controller's rows with one of two readers
(src/cmd/lib/rowtable.h): jansson's for an answer under 64 KiB, and
simdjson's, from the module libdrover-rows.so loaded for the first
larger one.  A listing of 1,000 jobs takes the second path, one job the
first; each job's line must be the same either way, and the module must
be loaded only for the large listing."""
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
