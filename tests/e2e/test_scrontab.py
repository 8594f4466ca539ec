# SPDX-License-Identifier: Apache-2.0
"""scrontab: a user's crontab kept by the controller (ScronParameters=
enable).  Each entry is a batch job pending (BeginTime) until its next
time; it runs as the user from their home directory and, when it ends, is
requeued with the same job id for the next time (each run its own sacct
record).  -l prints the file back, scancel disables an entry
("#DISABLED: "), -r removes the crontab, a bad line refuses the whole
file naming the line, and the crontab and its jobs survive a controller
restart.
"""
import os
import re

import pytest

from cluster import Cluster

_made = []  # the clusters a test made, taken down after it


@pytest.fixture(autouse=True)
def _down_clusters(cluster_root):
    yield
    while _made:
        c = _made.pop()
        try:
            c.down()
        except Exception as e:  # report, but let the test's outcome stand
            print(f"\n[drover] drover down failed: {e}")


def scron_cluster(root, enable=True):
    extra = ["--conf-extra=ScronParameters=enable"] if enable else []
    c = Cluster(root, nodes=1, gpus_per_node=0, up_args=extra)
    _made.append(c)
    c.up()
    return c


def queue(c, user):
    """{job id: (state, reason)} of 'user''s jobs."""
    out = c.run("squeue", "-h", "-u", user, "-o", "%i %T %r",
                check=True).stdout
    return {f[0]: (f[1], f[2]) for f in
            (line.split(None, 2) for line in out.splitlines())}


def test_cron_job_runs_requeues_and_survives(test_users, cluster_root):
    user = test_users[0]
    c = scron_cluster(cluster_root)
    wd = c.user_workdir(user)
    out = wd / "cron.out"
    crontab = (f"# my crontab\n"
               f"#SCRON -J everyminute\n"
               f"#SCRON --output={wd}/cron-%j.log\n"
               f"* * * * * /usr/bin/id -un >> {out}; pwd >> {out}\n"
               f"\n"
               f"@yearly /bin/true\n")
    c.run("scrontab", "-", user=user, input=crontab, check=True)
    assert c.run("scrontab", "-l", user=user, check=True).stdout == crontab
    jobs = queue(c, user)
    assert len(jobs) == 2 and all(v == ("PENDING", "BeginTime")
                                  for v in jobs.values()), jobs
    show = {j: c.show_job(j) for j in jobs}
    minute = next(j for j, r in show.items() if r["JobName"] == "everyminute")
    yearly = next(j for j in jobs if j != minute)
    assert show[yearly]["JobName"] == "/bin/true"
    assert show[minute]["CronJob"] == "Yes"
    assert show[minute]["CrontabSpec"] == '"* * * * *"'
    assert show[yearly]["CrontabSpec"] == '"@yearly"'
    assert show[minute]["UserId"].startswith(f"{user}(")
    # it runs within the minute, as the user, from their home directory
    c.wait_until(lambda: out.exists() and len(out.read_text().split()) >= 2,
                 timeout=80, what="the cron job's first run")
    assert out.read_text().split()[:2] == [user, f"/home/{user}"]
    # and is pending again for the next minute, the same job id
    c.wait_until(lambda: queue(c, user).get(minute) == ("PENDING",
                                                        "BeginTime"),
                 timeout=30, what="the cron job requeued")
    c.wait_until(lambda: f"{minute}|COMPLETED" in c.run(
        "sacct", "-D", "-X", "-n", "-P", "-j", minute, "-o", "JobID,State",
        check=True).stdout.splitlines(), timeout=30, what="sacct: the run")
    # the crontab and its jobs survive a controller restart
    c.restart_alone("droverctld")
    c.wait_until(lambda: c.run("scrontab", "-l", user=user).returncode == 0,
                 timeout=30, what="the controller back")
    assert c.run("scrontab", "-l", user=user, check=True).stdout == crontab
    assert c.show_job(yearly)["CronJob"] == "Yes"
    assert queue(c, user)[yearly] == ("PENDING", "BeginTime")
    # root may list another's crontab; another user may not
    assert c.run("scrontab", "-u", user, "-l", check=True).stdout == crontab
    r = c.run("scrontab", "-u", user, "-l", user=test_users[1])
    assert r.returncode == 1 and "Access/permission denied" in r.stderr
    # scancel of a cron job disables its entry
    c.run("scancel", yearly, user=user, check=True)
    listed = c.run("scrontab", "-l", user=user, check=True).stdout
    assert "#DISABLED: @yearly /bin/true\n" in listed
    assert "\n* * * * * " in listed
    # -r removes the crontab and cancels its pending jobs
    c.run("scrontab", "-r", user=user, check=True)
    r = c.run("scrontab", "-l", user=user)
    assert (r.returncode, r.stdout) == (1, f"no crontab for {user}\n")
    c.wait_until(lambda: not queue(c, user), timeout=30,
                 what="the cron jobs gone")


def test_bad_lines_refuse_the_file(test_users, cluster_root):
    user = test_users[0]
    c = scron_cluster(cluster_root)
    good = "0 5 * * * /bin/true\n"
    r = c.run("scrontab", "-", user=user,
              input=good + "# comment\n*/5 25 * * * /bin/true\n")
    assert r.returncode == 1
    assert r.stdout == "There are errors in your crontab.\n"
    assert "line 3: hour: '25'" in r.stderr
    r = c.run("scrontab", "-", user=user,
              input=good + "#SCRON --bogus\n0 5 * * * /bin/true\n")
    assert r.returncode == 1 and "line 2" in r.stderr, r.stderr
    r = c.run("scrontab", "-", user=user,
              input="#SCRON -p nosuchpart\n0 5 * * * /bin/true\n")
    assert r.returncode == 1
    assert "There was an issue with the job submission on lines 1-2" \
        in r.stdout, r.stdout
    # nothing was installed
    assert c.run("scrontab", "-l", user=user).returncode == 1
    assert not queue(c, user)
    # -e: the editor (a program of the user's) changes the file; a bad
    # line first: asked to retry, the editor gets it marked #BAD:
    wd = c.user_workdir(user)
    editor = wd / "ed.sh"
    editor.write_text(
        "#!/bin/sh\n"
        f"cp \"$1\" {wd}/seen.$(ls {wd} | grep -c '^seen')\n"
        f"if [ -e {wd}/once ]; then printf '0 6 * * mon /bin/true\\n'; "
        f"else : > {wd}/once; printf '0 6 * * xyz /bin/true\\n'; "
        "fi > \"$1\"\n")
    os.chmod(editor, 0o755)
    r = c.run("script", "-qec", "scrontab -e", "/dev/null", user=user,
              env={"EDITOR": str(editor), "VISUAL": ""}, input="y\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "There are errors in your crontab." in r.stdout
    assert "Do you want to retry the edit? (y/n)" in r.stdout
    assert "Welcome to scrontab" in (wd / "seen.0").read_text()
    assert (wd / "seen.1").read_text() == "#BAD: 0 6 * * xyz /bin/true\n"
    assert c.run("scrontab", "-l", user=user, check=True).stdout == \
        "0 6 * * mon /bin/true\n"
    r = c.run("scrontab", "-e", user=user, input="")
    assert (r.returncode, r.stderr) == (
        1, "scrontab: fatal: Standard input is not a TTY\n")
    # root installs another user's crontab (-u): the jobs are that user's,
    # run from that user's home; another user may not
    c.run("scrontab", "-u", user, "-", input=good, check=True)
    (job,) = queue(c, user)
    assert c.show_job(job)["WorkDir"] == f"/home/{user}"
    r = c.run("scrontab", "-u", user, "-", input=good, user=test_users[1])
    assert r.returncode == 1 and "Access/permission denied" in r.stderr


def test_disabled_cluster(test_users, cluster_root):
    c = scron_cluster(cluster_root, enable=False)
    r = c.run("scrontab", "-l", user=test_users[0])
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "scrontab: fatal: scrontab is disabled on this cluster\n")
    # the controller refuses too (a scrontab with another slurm.conf)
    body = {"text": "", "entries": []}
    with pytest.raises(Exception, match="disabled"):
        c.rpc("crontab_set", body)
