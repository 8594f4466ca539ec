# SPDX-License-Identifier: Apache-2.0
"""docs/options.md says, for every option Slurm 22.05's commands list in
their --help, what Drover does with it; this checks the table against
the built commands (scripts/options_table.py's probe: each option given
to the command with no cluster to reach), and the few options whose
effect needs a cluster."""

import importlib.util
from pathlib import Path

from cluster import REPO, build_dir

_spec = importlib.util.spec_from_file_location(
    "options_table", REPO / "scripts" / "options_table.py")
table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(table)


def test_every_slurm_option_has_a_row_that_the_command_bears_out():
    doc = table.read_doc()
    wrong = []
    for cmd in table.COMMANDS:
        if not (build_dir() / "src" / "cmd" / cmd).exists():
            continue
        rows = doc.get(cmd)
        assert rows is not None, f"docs/options.md has no section {cmd}"
        for short, long_opt, takes_arg in table.slurm_options(cmd):
            assert long_opt in rows, f"{cmd} {long_opt}: no row"
            mark, note = rows[long_opt]
            want = table.mark_for(
                table.probe(build_dir(), cmd, long_opt, takes_arg),
                rows[long_opt])
            if (mark, note) != want:
                wrong.append(f"{cmd} {long_opt}: table {mark} {note!r}, "
                             f"command {want[0]} {want[1]!r}")
    assert not wrong, ("docs/options.md disagrees (regenerate with "
                       "scripts/options_table.py BUILD --write):\n"
                       + "\n".join(wrong))


def test_no_refusal_is_unexplained_for_sbatch_salloc_srun():
    doc = table.read_doc()
    for cmd in ("sbatch", "salloc", "srun"):
        for opt, (mark, note) in doc[cmd].items():
            if mark == "✘" and note.startswith("refused"):
                assert note != "refused", f"{cmd} {opt}: no reason given"


def test_clusters_names_this_cluster_only(cluster, tmp_path):
    """-M: Drover has one cluster.  Its own name (or "all") is taken, as
    portals such as Open OnDemand pass it: squeue and sinfo name it on a
    line before the listing as Slurm's do with --clusters, scancel acts;
    another name is refused, nothing done."""
    name = cluster.show_config("ClusterName")
    for cmd in ("squeue", "sinfo", "scancel", "scontrol", "sprio", "sshare",
                "sdiag", "salloc", "srun"):
        r = cluster.run(cmd, "-M", "other",
                        *{"scancel": ["1"], "scontrol": ["ping"],
                          "salloc": ["true"], "srun": ["true"]}.get(cmd, []))
        assert r.returncode == 1
        assert r.stderr == (f'{cmd}: error: --clusters: Drover has one '
                            f'cluster, "{name}"; not "other"\n')
    job = cluster.sbatch("-H", "-J", "mjob", "--wrap", "true", cwd=tmp_path)
    plain = cluster.run("squeue", "-j", job, check=True).stdout
    r = cluster.run("squeue", "-M", name, "-j", job, check=True)
    assert r.stdout == f"CLUSTER: {name}\n" + plain
    r = cluster.run("squeue", "--clusters=all", "-h", "-o", "%j", check=True)
    assert r.stdout.splitlines() == [f"CLUSTER: {name}", "mjob"]
    plain = cluster.run("sinfo", check=True).stdout
    assert cluster.run("sinfo", "-M", name, check=True).stdout == \
        f"CLUSTER: {name}\n" + plain
    # The commands that print no cluster line with -M do as without it.
    for args in (["scontrol", "show", "job", job], ["sprio", "-j", job],
                 ["sshare", "-a"]):
        plain = cluster.run(*args)
        r = cluster.run(args[0], "-M", name, *args[1:])
        assert (r.returncode, r.stdout, r.stderr) == \
            (plain.returncode, plain.stdout, plain.stderr), args
    assert "Server thread count" in cluster.run(
        "sdiag", "-M", name, check=True).stdout
    r = cluster.run("srun", "-M", name, "-n1", "hostname", check=True)
    assert r.stdout.strip()
    r = cluster.run("salloc", "-M", name, "-n1", "true", check=True)
    assert "Granted job allocation" in r.stderr
    cluster.run("scancel", "-M", name, job, check=True)
    cluster.wait_job_state(job, "CANCELLED", timeout=30)


def test_sacctmgr_readonly_refuses_changes(cluster):
    r = cluster.run("sacctmgr", "-r", "-i", "add", "account", "ro_acct")
    assert r.returncode == 1
    assert r.stderr == "Can't run this command in readonly mode.\n"
    shown = cluster.run("sacctmgr", "-n", "-P", "show", "account",
                        "format=account", check=True).stdout.split()
    assert "ro_acct" not in shown
    r = cluster.run("sacctmgr", "-r", "-o", "-n", "-P", "show", "account",
                    "format=account", check=True)
    assert r.stdout.split() == shown


def test_single_cluster_options_change_nothing(cluster):
    plain = cluster.run("scontrol", "show", "node", "node01", check=True)
    assert cluster.run("scontrol", "-F", "show", "node", "node01",
                       check=True).stdout == plain.stdout
    for opt in ("--local", "--federation"):
        a = cluster.run("sreport", "-n", "-P", "cluster", "utilization",
                        check=True)
        b = cluster.run("sreport", opt, "-n", "-P", "cluster", "utilization",
                        check=True)
        assert a.stdout == b.stdout


def test_srun_help_is_slurms_with_pyxis_rows(cluster):
    """srun --help is Slurm 22.05.8's text with Drover's built-in pyxis
    options after --container (docs/compatibility.md)."""
    golden = (REPO / "tests/unit/data/slurm-golden/help-srun.stdout"
              ).read_text().splitlines(keepends=True)
    out = cluster.run("srun", "--help", check=True).stdout
    lines = out.splitlines(keepends=True)
    extra = [x for x in lines if "[pyxis]" in x or x.startswith(
        "                              [:tag]")]
    assert [x for x in lines if x not in extra] == golden
    at = lines.index("      --container             Path to OCI container "
                     "bundle\n")
    assert lines[at + 1].startswith("      --container-image=")
    assert len(extra) == 4


# Commands whose --help and --usage are Slurm 22.05.8's byte for byte
# (srun's --help adds the pyxis rows, sbatch's the pyxis rows too: tests
# above and in test_sbatch_opt.c).
SAME_HELP = ["sacct", "salloc", "scancel", "sdiag", "sinfo", "sprio",
             "squeue", "sshare", "sstat", "strigger", "sbcast", "sattach",
             "scontrol", "sacctmgr", "sreport"]
SAME_USAGE = ["sacct", "scancel", "sdiag", "sinfo", "sprio", "squeue",
              "sshare", "sstat", "strigger", "sbcast", "sbatch", "sattach",
              "salloc", "srun", "scontrol", "sacctmgr", "sreport"]


def test_help_and_usage_texts_are_slurms(cluster):
    golden = REPO / "tests" / "unit" / "data" / "slurm-golden"
    for kind, cmds in (("help", SAME_HELP), ("usage", SAME_USAGE)):
        for cmd in cmds:
            if not (build_dir() / "src" / "cmd" / cmd).exists():
                continue
            r = cluster.run(cmd, f"--{kind}")
            want = (golden / f"{kind}-{cmd}.stdout").read_text()
            assert r.stdout == want, f"{cmd} --{kind}:\n{r.stdout}"
