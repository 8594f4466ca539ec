# SPDX-License-Identifier: Apache-2.0
"""Job mail, as Slurm's MailProg: --mail-type/--mail-user (and #SBATCH
lines, scontrol update MailType=/MailUser=) make the controller run
MailProg -s SUBJECT RECIPIENT, as SlurmUser, with Slurm 22.05's subjects
and SLURM_JOB_* environment (tests/e2e/data/mail_reference.txt holds what
a real slurmctld 22.05.8 passed).

MailProg here is a script that writes its argv, uid and environment to a
file of its own under <root>/mail.
"""
import os
import re
import signal
import time

import pytest

from cluster import Cluster, ClusterError

MAILPROG = """#!/bin/sh
f=$(/usr/bin/mktemp {dir}/m.XXXXXX)
{{ printf 'argc=%s\\n' "$#"; printf 'arg=%s\\n' "$@"
   printf 'uid=%s\\n' "$(/usr/bin/id -u)"; /usr/bin/env; }} > "$f.tmp"
/bin/mv "$f.tmp" "$f.mail"
"""


_made = []  # the clusters a test made, taken down after it


@pytest.fixture(autouse=True)
def _down_clusters(cluster_root):
    # after the test, before cluster_root's directory goes
    yield
    while _made:
        c = _made.pop()
        try:
            c.down()
        except Exception as e:  # report, but let the test's outcome stand
            print(f"\n[drover] drover down failed: {e}")


def mail_cluster(root, extra=(), nodes=2, prog=True):
    d = root / "mail"
    d.mkdir()
    script = root / "mailprog.sh"
    script.write_text(MAILPROG.format(dir=d))
    os.chmod(script, 0o755)
    args = [f"--conf-extra=MailProg={script if prog else root / 'nope'}",
            *extra]
    c = Cluster(root, nodes=nodes, gpus_per_node=0, up_args=args)
    _made.append(c)
    return c


def mails(root):
    """Every mail so far, oldest first: dicts with 'args', 'uid', 'env'."""
    out = []
    files = sorted((root / "mail").glob("m.*.mail"),
                   key=lambda p: p.stat().st_mtime_ns)
    for p in files:
        m = {"args": [], "env": {}}
        for line in p.read_text().splitlines():
            if line.startswith("arg="):
                m["args"].append(line[4:])
            elif line.startswith("uid="):
                m["uid"] = int(line[4:])
            elif "=" in line and not line.startswith("argc="):
                k, v = line.split("=", 1)
                m["env"][k] = v
        out.append(m)
    return out


def subjects(root):
    return [(m["args"][1], m["args"][2]) for m in mails(root)]


def wait_mail(c, root, pattern, count=1, timeout=40):
    """Wait until exactly 'count' subjects match 'pattern' (a regex);
    return those mails."""
    rx = re.compile(pattern)

    def found():
        hits = [m for m in mails(root) if rx.fullmatch(m["args"][1])]
        return hits if len(hits) >= count else None
    hits = c.wait_until(found, timeout=timeout,
                        what=f"mail {pattern!r}; have {subjects(root)}")
    assert len(hits) == count, (pattern, subjects(root))
    return hits


def job_script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/bash\n" + body)
    os.chmod(tmp_path, 0o755)
    return str(path)


@pytest.mark.needs_root
def test_mail_types_fire_once_with_slurms_subjects_and_environment(
        cluster_root, tmp_path, test_users):
    root = cluster_root
    user = test_users[0]
    c = mail_cluster(root, ["--conf-extra=MailDomain=example.org"])
    c.up()
    wd = c.user_workdir(user)
    cfg = c.run("scontrol", "show", "config", check=True).stdout
    assert f"\nMailProg                = {root / 'mailprog.sh'}\n" in cfg
    assert "\nMailDomain              = example.org\n" in cfg
    # ALL: Began, then Ended; no --mail-user: the user @MailDomain
    ok = c.sbatch("-J", "allok", "--mail-type=ALL", "--wrap", "sleep 1",
                  user=user, cwd=wd)
    began = wait_mail(c, root, rf"Slurm Job_id={ok} Name=allok Began, "
                      r"Queued time 00:00:0\d")[0]
    assert began["args"][0] == "-s" and began["args"][2] == \
        f"{user}@example.org"
    ended = wait_mail(c, root, rf"Slurm Job_id={ok} Name=allok Ended, "
                      r"Run time 00:00:0\d, COMPLETED, ExitCode 0")[0]
    env = ended["env"]
    assert env["SLURM_JOB_ID"] == ok and env["SLURM_JOBID"] == ok
    assert env["SLURM_JOB_USER"] == user
    assert env["SLURM_JOB_MAIL_TYPE"] == "Ended"
    assert env["SLURM_JOB_STATE"] == "COMPLETED"
    assert env["SLURM_JOB_EXIT_CODE2"] == "0:0"
    assert env["SLURM_JOB_NODELIST"].startswith("node")
    assert env["SLURM_JOB_NUM_NODES"] == "1"
    assert "PATH" not in env and "HOME" not in env  # as slurmctld's
    slurm_user = c.conf_value("SlurmUser") or "root"
    assert ended["uid"] == int(os.popen(f"id -u {slurm_user}").read())
    show = c.run("scontrol", "show", "job", ok, check=True).stdout
    assert re.search(rf"^   Power=\n   MailUser={user}@example.org "
                     r"MailType=INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,"
                     r"STAGE_OUT$", show, re.M), show

    # END,FAIL and a failure: Failed only, to --mail-user as given (no
    # MailDomain added); END alone sends nothing for a failed job
    fail = c.sbatch("-J", "fail3", "--mail-type=END,FAIL", "--mail-user=bob",
                    "--wrap", "exit 3", user=user, cwd=wd)
    endonly = c.sbatch("-J", "endonly", "--mail-type=END", "--wrap",
                       "exit 3", user=user, cwd=wd)
    m = wait_mail(c, root, rf"Slurm Job_id={fail} Name=fail3 Failed, "
                  r"Run time 00:00:0\d, FAILED, ExitCode 3")[0]
    assert m["args"][2] == "bob"
    assert m["env"]["SLURM_JOB_EXIT_CODE"] == str(3 << 8)
    assert m["env"]["SLURM_JOB_EXIT_CODE_MAX"] == "3"
    c.wait_job_state(endonly, "FAILED")

    # a dependency that can never be met: one "Invalid dependency"
    dep = c.sbatch("-J", "dep", f"--dependency=afterok:{fail}",
                   "--mail-type=INVALID_DEPEND", "--wrap", "true",
                   user=user, cwd=wd)
    wait_mail(c, root, rf"Slurm Job_id={dep} Name=dep Invalid dependency")

    # #SBATCH lines; a requeue mails REQUEUE with the run's time
    rq = c.sbatch(job_script(tmp_path, "rq.sh",
                             "#SBATCH --mail-type=REQUEUE,BEGIN\n"
                             "#SBATCH -J rq\nsleep 300\n"),
                  user=user, cwd=wd)
    wait_mail(c, root, rf"Slurm Job_id={rq} Name=rq Began, .*")
    time.sleep(1)
    c.run("scontrol", "requeue", rq, check=True)
    m = wait_mail(c, root, rf"Slurm Job_id={rq} Name=rq Requeued, "
                  r"Run time 00:00:0\d")[0]
    assert m["env"]["SLURM_JOB_STATE"] == "PENDING"

    # a recipient mail(1) would read as an option is refused (s-nail's -S
    # runs commands)
    r = c.run("sbatch", "--mail-type=END", "--mail-user=-Ssendmail=/tmp/x",
              "--wrap", "true", user=user, cwd=wd)
    assert (r.returncode, r.stderr) == (
        255, "sbatch: error: Invalid --mail-user specification\n")
    with pytest.raises(ClusterError, match="Invalid --mail-user: -Sx"):
        c.rpc("job_submit", {"script": "#!/bin/sh\ntrue\n", "mail_type": 2,
                             "mail_user": "-Sx", "work_dir": "/tmp"},
              user=user)

    # scontrol update MailType=/MailUser=, then a cancel while pending
    held = c.sbatch("-H", "-J", "held", "--wrap", "true", user=user, cwd=wd)
    r = c.run("scontrol", "update", f"JobId={held}", "MailType=bogus",
              user=user)
    assert r.returncode == 1 and r.stderr == "Invalid MailType: bogus\n"
    r = c.run("scontrol", "update", f"JobId={held}", "MailUser=-x",
              user=user)
    assert r.returncode == 1 and "Invalid --mail-user: -x" in r.stderr, \
        r.stderr
    c.run("scontrol", "update", f"JobId={held}", "MailType=END",
          "MailUser=carol", user=user, check=True)
    show = c.run("scontrol", "show", "job", held, check=True).stdout
    assert "\n   MailUser=carol MailType=END\n" in show, show
    c.run("scancel", held, rq, user=user, check=True)
    m = wait_mail(c, root, rf"Slurm Job_id={held} Name=held Ended, "
                  r"Run time 00:00:00, CANCELLED, ExitCode 0")[0]
    assert m["args"][2] == "carol"

    # each once; a restarted controller replays its journal and sends none
    # again
    before = sorted(subjects(root))
    c.restart_alone("droverctld")
    c.wait_until(lambda: c.run("scontrol", "ping").returncode == 0,
                 what="the controller back")
    time.sleep(3)
    assert sorted(subjects(root)) == before
    assert not [s for s in before if f"Job_id={endonly} " in s[0]]
    # (the requeued job began again: its second Began is a mail of its own)
    once = [s for s in before if not s[0].startswith(f"Slurm Job_id={rq} ")]
    assert len(once) == len(set(once)), before


@pytest.mark.needs_root
def test_array_mails_one_summary_or_each_task(cluster_root, tmp_path,
                                              test_users):
    root = cluster_root
    user = test_users[0]
    c = mail_cluster(root)
    c.up()
    wd = c.user_workdir(user)
    arr = c.sbatch("-J", "arr", "--array=0-2", "--mail-type=ALL", "--wrap",
                   "sleep 1; exit $SLURM_ARRAY_TASK_ID", user=user, cwd=wd)
    tasks = c.sbatch("-J", "arrt", "--array=0-1",
                     "--mail-type=ALL,ARRAY_TASKS", "--wrap",
                     "sleep 1; exit $SLURM_ARRAY_TASK_ID", user=user, cwd=wd)
    m = wait_mail(c, root, rf"Slurm Array Summary Job_id={arr}_\* \({arr}\) "
                  r"Name=arr Failed, Mixed, ExitCode \[0-2\]")[0]
    assert m["args"][2] == user  # no MailDomain: the user name
    assert m["env"]["SLURM_ARRAY_JOB_ID"] == arr
    assert m["env"]["SLURM_JOB_EXIT_CODE_MIN"] == "0"
    assert m["env"]["SLURM_JOB_EXIT_CODE_MAX"] == "2"
    wait_mail(c, root, rf"Slurm Array Summary Job_id={arr}_\* \({arr}\) "
              r"Name=arr Began")
    for t, end in (("0", r"Ended, Run time 00:00:0\d, COMPLETED, ExitCode 0"),
                   ("1", r"Failed, Run time 00:00:0\d, FAILED, ExitCode 1")):
        wait_mail(c, root, rf"Slurm Array Task Job_id={tasks}_{t} \(\d+\) "
                  r"Name=arrt Began, Queued time 00:00:0\d")
        m = wait_mail(c, root, rf"Slurm Array Task Job_id={tasks}_{t} "
                      rf"\(\d+\) Name=arrt {end}")[0]
        assert m["env"]["SLURM_ARRAY_TASK_ID"] == t
    # an allocation (salloc) mails as a batch job does
    r = c.run("salloc", "-J", "sal", "--mail-type=BEGIN,END", "true",
              user=user, check=True)
    sal = re.search(r"Granted job allocation (\d+)", r.stderr).group(1)
    wait_mail(c, root, rf"Slurm Job_id={sal} Name=sal Began, Queued time "
              r"00:00:0\d")
    m = wait_mail(c, root, rf"Slurm Job_id={sal} Name=sal Ended, Run time "
                  r"00:00:0\d, COMPLETED, ExitCode 0")[0]
    assert "SLURM_JOB_STDIN" not in m["env"]  # as Slurm's, for no script
    # cancelled arrays: one summary (a cancel counts as signal 9); with
    # ARRAY_TASKS the record of the pending tasks mails as a plain job and
    # the running task as itself
    acan = c.sbatch("-J", "acan", "--array=0-3%1", "--mail-type=END,FAIL",
                    "--wrap", "sleep 60", user=user, cwd=wd)
    acant = c.sbatch("-J", "acant", "--array=0-3%1",
                     "--mail-type=END,ARRAY_TASKS", "--wrap", "sleep 60",
                     user=user, cwd=wd)
    c.wait_until(lambda: sorted(c.run("squeue", "-h", "-t", "R", "-o", "%i")
                                .stdout.split())
                 == sorted([f"{acan}_0", f"{acant}_0"]),
                 what="task 0 of both running")
    c.run("scancel", acan, acant, user=user, check=True)
    wait_mail(c, root, rf"Slurm Array Summary Job_id={acan}_\* \({acan}\) "
              r"Name=acan Ended, CANCELLED, MaxSignal \[9\]")
    wait_mail(c, root, rf"Slurm Job_id={acant} Name=acant Ended, Run time "
              r"00:00:00, CANCELLED, ExitCode 0")
    wait_mail(c, root, rf"Slurm Array Task Job_id={acant}_0 \(\d+\) "
              r"Name=acant Ended, Run time 00:00:\d\d, CANCELLED, ExitCode 0")
    time.sleep(2)
    assert len(mails(root)) == 11, subjects(root)


@pytest.mark.needs_root
def test_time_limit_shares_then_timeout(cluster_root, tmp_path, test_users):
    root = cluster_root
    user = test_users[0]
    c = mail_cluster(root, nodes=1)
    c.up()
    job = c.sbatch("-J", "tl", "-t", "0:20",
                   "--mail-type=TIME_LIMIT,TIME_LIMIT_50,TIME_LIMIT_80,"
                   "TIME_LIMIT_90,FAIL", "--wrap", "sleep 300",
                   user=user, cwd=c.user_workdir(user))
    c.wait_job_state(job, "RUNNING")
    m = wait_mail(c, root, rf"Slurm Job_id={job} Name=tl Reached 50% of "
                  r"time limit, Run time 00:00:1\d")[0]
    assert m["env"]["SLURM_JOB_STATE"] == "RUNNING"
    assert not [s for s in subjects(root) if "80%" in s[0]]  # not yet
    wait_mail(c, root, rf"Slurm Job_id={job} Name=tl Reached 80% of time "
              r"limit, Run time 00:00:\d\d")
    wait_mail(c, root, rf"Slurm Job_id={job} Name=tl Reached 90% of time "
              r"limit, Run time 00:00:\d\d")
    wait_mail(c, root, rf"Slurm Job_id={job} Name=tl Reached time limit, "
              r"Run time 00:00:\d\d")
    wait_mail(c, root, rf"Slurm Job_id={job} Name=tl Failed, Run time "
              r"00:00:\d\d, TIMEOUT, ExitCode 0")
    # the last two are spawned in that order in the same turn and run side
    # by side
    order = [re.sub(r".*Name=tl (Reached \S+|Failed).*", r"\1", s)
             for s, _ in subjects(root)]
    assert order[:3] == ["Reached 50%", "Reached 80%", "Reached 90%"], order
    assert sorted(order[3:]) == ["Failed", "Reached time"], order


@pytest.mark.needs_root
def test_missing_mailprog_is_a_log_line_not_a_failure(cluster_root,
                                                      test_users):
    root = cluster_root
    user = test_users[0]
    c = mail_cluster(root, nodes=1, prog=False)
    c.up()
    job = c.sbatch("-J", "nomail", "--mail-type=BEGIN,END", "--wrap", "true",
                   user=user, cwd=c.user_workdir(user))
    assert c.wait_job_done(job) == "COMPLETED"
    log = c.log_file("droverctld")
    c.wait_until(lambda: len(re.findall(
        rf"MailProg {root}/nope: no such file or directory: mail to {user} "
        rf"\"Slurm Job_id={job} Name=nomail (Began|Ended)",
        log.read_text())) == 2, what="a log line per mail")


@pytest.mark.needs_root
def test_three_controllers_only_the_leader_mails_and_never_twice(
        cluster_root, test_users):
    """With three controllers (Raft) only the leader runs MailProg, and a
    new leader after a kill -9 sends what is left, not what was sent."""
    root = cluster_root
    user = test_users[0]
    c = mail_cluster(root, ["--controllers=3"])
    c.up()
    leader = c.leader()
    job = c.sbatch("-J", "ha", "-t", "0:12",
                   "--mail-type=BEGIN,END,TIME_LIMIT_50", "--wrap", "sleep 9",
                   user=user, cwd=c.user_workdir(user))
    wait_mail(c, root, rf"Slurm Job_id={job} Name=ha Began, .*")
    wait_mail(c, root, rf"Slurm Job_id={job} Name=ha Reached 50% of time "
              r"limit, Run time 00:00:0\d")
    c.kill(leader, signal.SIGKILL)
    assert c.leader(timeout=30) != leader
    wait_mail(c, root, rf"Slurm Job_id={job} Name=ha Ended, Run time "
              r"00:00:\d\d, COMPLETED, ExitCode 0", timeout=60)
    time.sleep(3)
    assert len(mails(root)) == 3, subjects(root)
