# SPDX-License-Identifier: Apache-2.0
"""sinfo's other views on a live cluster: -R, -s, -N -l and -t/--states,
in the layouts of the golden cases sinfo-R, sinfo-R-none, sinfo-s and
sinfo-N-l."""
import re

R_HEADER = "REASON               USER      TIMESTAMP           NODELIST"


def test_sinfo_R_lists_drained_nodes_with_who_and_when(cluster):
    r = cluster.run("sinfo", "-R", check=True)
    assert r.stdout == R_HEADER + "\n"
    cluster.run("scontrol", "update", "NodeName=node04", "State=DRAIN",
                "Reason=bad gpu", check=True)
    user = cluster.run("id", "-un", check=True).stdout.strip()
    lines = cluster.run("sinfo", "-R", check=True).stdout.splitlines()
    assert lines[0] == R_HEADER
    assert len(lines) == 2
    m = re.fullmatch(r"(.{20}) (.{9}) (\S{19}) (\S+)", lines[1])
    assert m, lines[1]
    assert m.group(1).rstrip() == "bad gpu"
    assert m.group(2).rstrip() == user[:9]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", m.group(3))
    assert m.group(4) == "node04"
    cluster.run("scontrol", "update", "NodeName=node04", "State=RESUME",
                check=True)
    assert cluster.run("sinfo", "-R", check=True).stdout == R_HEADER + "\n"


def test_sinfo_s_summarizes_allocated_idle_other_total(cluster, tmp_path):
    j = cluster.sbatch("--exclusive", "--wrap", "sleep 60", cwd=tmp_path)
    cluster.wait_job_state(j, "RUNNING", timeout=30)
    cluster.run("scontrol", "update", "NodeName=node04", "State=DRAIN",
                "Reason=maint", check=True)
    lines = cluster.run("sinfo", "-s", check=True).stdout.splitlines()
    assert lines[0] == ("PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) "
                        "NODELIST")
    assert lines[1].split() == ["debug*", "up", "infinite", "1/2/1/4",
                                "node[01-04]"]
    cluster.run("scancel", j, check=True)
    cluster.run("scontrol", "update", "NodeName=node04", "State=RESUME",
                check=True)


def test_sinfo_N_l_long_node_rows(cluster):
    cluster.run("scontrol", "update", "NodeName=node02", "State=DRAIN",
                "Reason=bad gpu", check=True)
    lines = cluster.run("sinfo", "-N", "-l", check=True).stdout.splitlines()
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", lines[0])
    assert lines[1] == ("NODELIST   NODES PARTITION       STATE CPUS    "
                        "S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE REASON"
                        "              ")
    rows = [l.split() for l in lines[2:]]
    assert [r[0] for r in rows] == ["node01", "node02", "node03", "node04"]
    assert [r[3] for r in rows] == ["idle", "drained", "idle", "idle"]
    assert all(r[1] == "1" and r[2] == "debug*" for r in rows)
    assert rows[1][-2:] == ["bad", "gpu"]
    assert rows[0][-1] == "none"
    cluster.run("scontrol", "update", "NodeName=node02", "State=RESUME",
                check=True)


def test_sinfo_t_filters_by_state(cluster, tmp_path):
    j = cluster.sbatch("--exclusive", "--wrap", "sleep 60", cwd=tmp_path)
    cluster.wait_job_state(j, "RUNNING", timeout=30)
    node = cluster.job_field(j, "NodeList")
    cluster.run("scontrol", "update", "NodeName=node04", "State=DRAIN",
                "Reason=maint", check=True)

    def nodes(*args):
        r = cluster.run("sinfo", "-N", "-h", "-o", "%N", *args, check=True)
        return r.stdout.split()

    assert nodes("-t", "alloc") == [node]
    assert nodes("--states=allocated") == [node]
    assert nodes("-t", "drain") == ["node04"]
    idle = sorted({"node01", "node02", "node03", "node04"} - {node, "node04"})
    assert nodes("-t", "idle") == idle
    assert nodes("-t", "idle,drain") == sorted(idle + ["node04"])
    assert len(nodes("-t", "all")) == 4
    r = cluster.run("sinfo", "-h", "-o", "%t %D", "-t", "idle", check=True)
    assert r.stdout == "idle 2\n"
    r = cluster.run("sinfo", "-t", "bogus")
    assert r.returncode == 1
    assert 'Bad state string: "bogus"' in r.stderr
    cluster.run("scancel", j, check=True)
    cluster.run("scontrol", "update", "NodeName=node04", "State=RESUME",
                check=True)


def test_sinfo_S_sorts_by_its_keys(cluster, tmp_path):
    """-S: Slurm's sort keys, the first first, '-' reversing one (was
    accepted and ignored)."""
    j = cluster.sbatch("--exclusive", "-w", "node03", "--wrap", "sleep 60",
                       cwd=tmp_path)
    cluster.wait_job_state(j, "RUNNING", timeout=30)

    def rows(*args):
        return cluster.run("sinfo", "-h", *args, check=True).stdout \
            .splitlines()
    # the default "#P,-t": busiest state first
    assert rows("-o", "%t %D %N") == ["alloc 1 node03",
                                      "idle 3 node[01-02,04]"]
    assert rows("-S", "t", "-o", "%t %D %N") == ["idle 3 node[01-02,04]",
                                                 "alloc 1 node03"]
    assert rows("-S", "-D", "-o", "%t %D") == ["idle 3", "alloc 1"]
    assert rows("-S", "+D", "-o", "%t %D") == ["alloc 1", "idle 3"]
    assert rows("-N", "-S", "-N", "-o", "%N") == [
        "node04", "node03", "node02", "node01"]
    assert rows("-N", "-S", "-t,N", "-o", "%N %t") == [
        "node03 alloc", "node01 idle", "node02 idle", "node04 idle"]
    cluster.run("scancel", j, check=True)


RESV_HEADER = ("RESV_NAME     STATE           START_TIME             END_TIME"
               "     DURATION  NODELIST")
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def test_sinfo_T_lists_reservations(cluster):
    """-T: the reservations in Slurm's sinfo columns (was refused); with
    none, Slurm's sentence instead of a header (sinfo.c's reservation
    report; the same text as golden resv-show-none), -h or not."""
    for args in (["-T"], ["-T", "-h"]):
        r = cluster.run("sinfo", *args)
        assert (r.returncode, r.stdout, r.stderr) == (
            0, "No reservations in the system\n", ""), args
    cluster.run("scontrol", "create", "reservation",
                "ReservationName=window_for_maint", "StartTime=now",
                "Duration=90", "Nodes=node02", "Users=root", check=True)
    cluster.run("scontrol", "create", "reservation", "ReservationName=later",
                "StartTime=now+1day", "Duration=1-00:00:00", "Nodes=node04",
                "Users=root", check=True)
    lines = cluster.run("sinfo", "-T", check=True).stdout.splitlines()
    # the name column widens to the longest name (16 here)
    assert lines[0] == ("RESV_NAME            STATE           START_TIME  "
                        "           END_TIME     DURATION  NODELIST")
    got = sorted(lines[1:])
    assert re.fullmatch(rf"later             INACTIVE  {STAMP}  {STAMP}   "
                        r"1-00:00:00  node04", got[0]), got[0]
    assert re.fullmatch(rf"window_for_maint    ACTIVE  {STAMP}  {STAMP}     "
                        r"01:30:00  node02", got[1]), got[1]
    # -h: no header, and the name column keeps Slurm's 9 (as Slurm's)
    rows = cluster.run("sinfo", "-T", "-h", check=True).stdout.splitlines()
    assert sorted(rows)[1].startswith("window_for_maint    ACTIVE  ")
    assert sorted(rows)[0].startswith("later      INACTIVE  ")
    # one short name: the name column back at 9
    cluster.run("scontrol", "delete", "ReservationName=window_for_maint",
                check=True)
    lines = cluster.run("sinfo", "-T", check=True).stdout.splitlines()
    assert lines[0] == RESV_HEADER and len(lines) == 2, lines
    cluster.run("scontrol", "delete", "ReservationName=later", check=True)
    r = cluster.run("sinfo", "-T", check=True)
    assert r.stdout == "No reservations in the system\n"
