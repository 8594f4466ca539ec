# SPDX-License-Identifier: Apache-2.0
"""Options of sbatch, salloc and srun that Drover has no part for are
refused with a message naming them (never passed on and ignored), and
the file options --nodefile (-F) and --export-file do what Slurm's do."""

REFUSED = [("--bb=capacity=1G", "no burst buffers"),
           ("--licenses=matlab:1", "no licenses"),
           ("--core-spec=1", "no specialised cores"),
           ("--ntasks-per-core=1", "no per-core task placement"),
           ("--mem-bind=local", "no memory binding"),
           ("-M", "one cluster")]


def test_refused_options_name_themselves_and_queue_nothing(cluster,
                                                           tmp_path):
    for cmd, opt, why in [(c, o, w) for c in ("sbatch", "salloc", "srun")
                          for o, w in REFUSED]:
        args = [opt, "other"] if opt == "-M" else [opt]
        tail = ["--wrap", "true"] if cmd == "sbatch" else ["true"]
        r = cluster.run(cmd, *args, *tail, cwd=tmp_path)
        name = "--clusters" if opt == "-M" else opt.split("=")[0]
        assert r.returncode == 1, (opt, r.stderr)
        if opt == "-M":
            # -M naming this cluster is taken (test_options_doc)
            assert (f'{cmd}: error: --clusters: Drover has one cluster, '
                    '"drover"; not "other"' in r.stderr), r.stderr
            continue
        assert (f"{cmd}: error: {name} is not supported by Drover"
                in r.stderr), (opt, r.stderr)
        assert why in r.stderr, (opt, r.stderr)
    assert cluster.run("squeue", "-h", check=True).stdout == ""


def test_refused_in_a_script_and_from_a_variable(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH --licenses=matlab:1\ntrue\n")
    r = cluster.run("sbatch", str(script), cwd=tmp_path)
    assert r.returncode == 1 and "--licenses is not supported" in r.stderr
    r = cluster.run("sbatch", "--wrap", "true", cwd=tmp_path,
                    env={"SBATCH_CLUSTERS": "other"})
    assert r.returncode == 1 and "Drover has one cluster" in r.stderr


def test_values_asking_nothing_are_taken(cluster, tmp_path):
    j = cluster.sbatch("--mem-bind=none", "--tmp=0", "--wrap", "true",
                       cwd=tmp_path)
    assert cluster.wait_job_done(j) == "COMPLETED"


def test_nodefile_places_the_job(cluster, tmp_path):
    nodes = tmp_path / "nodes"
    nodes.write_text("node03\n\nnode03, node03\n")
    jobs = [cluster.sbatch("-F", str(nodes), "--wrap", "true", cwd=tmp_path)
            for _ in range(3)]
    for j in jobs:
        assert cluster.wait_job_done(j) == "COMPLETED"
        # accounting follows the controller: wait for the record
        cluster.wait_until(lambda: cluster.run(
            "sacct", "-X", "-n", "-j", j, "-o", "nodelist%20,state",
            check=True).stdout.split() == ["node03", "COMPLETED"],
            what=f"job {j} in accounting on node03")
    r = cluster.run("sbatch", "-F", str(tmp_path / "none"), "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert "Unable to read --nodefile" in r.stderr


def test_export_file_reaches_the_job(cluster, tmp_path):
    env = tmp_path / "env"
    env.write_bytes(b"GREETING=hello\nworld\0COUNT=3\0")
    out = tmp_path / "out"
    j = cluster.sbatch("--export-file", str(env), "-o", str(out), "--wrap",
                       'printf "[%s][%s]" "$GREETING" "$COUNT"',
                       cwd=tmp_path)
    assert cluster.wait_job_done(j) == "COMPLETED"
    assert out.read_text() == "[hello\nworld][3]"
    env.write_bytes(b"NOEQUALS\0")
    r = cluster.run("sbatch", "--export-file", str(env), "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert "is not NAME=value" in r.stderr
