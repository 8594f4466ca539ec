# SPDX-License-Identifier: Apache-2.0
"""sacctmgr against droverdbd on a real cluster made by `drover up`.

Accounts, users and QOS are added as root with -i and shown back in -P
format; a QOS limit is changed; without -i sacctmgr asks and, with no
answer, commits nothing; an ordinary user gets Slurm's permission error
and changes nothing; dump then load gives the same associations back.
"""

import pytest


ONE_NODE = pytest.mark.parametrize(
    "cluster", [{"nodes": 1, "gpus_per_node": 0}], indirect=True)


def mgr(c, *args, user=None, input=None):
    return c.run("sacctmgr", *args, user=user, input=input)


def ok(c, *args, **kw):
    r = mgr(c, *args, **kw)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def assocs(c):
    return ok(c, "-P", "-n", "show", "assoc",
              "format=Cluster,Account,User,QOS")


def setup_research(c):
    ok(c, "-i", "add", "qos", "gpu4", "MaxTRESPerUser=gres/gpu=4")
    out = ok(c, "-i", "add", "account", "research", "Description=Research",
             "Organization=science")
    assert out.startswith(" Adding Account(s)\n  research\n Settings\n"
                          "  Description     = Research\n"), out
    assert "  A = research   C = drover    \n" in out
    out = ok(c, "-i", "add", "user", "alice", "account=research",
             "qos=normal,gpu4", "defaultqos=gpu4")
    assert out.startswith(" Adding User(s)\n  alice\n Settings =\n"
                          "  Default Account = research\n"
                          " Associations =\n"
                          "  U = alice     A = research   C = drover    \n")


@ONE_NODE
def test_add_show_and_modify(cluster):
    c = cluster
    setup_research(c)
    assert assocs(c) == ("drover|root||normal\n"
                         "drover|root|root|normal\n"
                         "drover|research||normal\n"
                         "drover|research|alice|gpu4,normal\n")
    assert ok(c, "show", "user", "alice") == (
        "      User   Def Acct     Admin \n"
        "---------- ---------- --------- \n"
        "     alice   research      None \n")
    assert ok(c, "show", "user", "alice", "withassoc",
              "format=User,Account,DefaultQOS,QOS%20") == (
        "      User    Account   Def QOS                  QOS \n"
        "---------- ---------- --------- -------------------- \n"
        "     alice   research      gpu4          gpu4,normal \n")
    assert ok(c, "-i", "modify", "qos", "gpu4", "set",
              "MaxTRESPerUser=gres/gpu=8") == " Modified qos...\n  gpu4\n"
    assert ok(c, "-P", "show", "qos", "format=Name,Priority,MaxTRESPU") == (
        "Name|Priority|MaxTRESPU\nnormal|0|\ngpu4|0|gres/gpu=8\n")
    r = mgr(c, "-i", "modify", "qos", "where", "name=nosuch", "set",
            "MaxJobsPU=1")
    assert r.returncode == 1 and r.stdout == " Nothing modified\n"
    r = mgr(c, "-i", "add", "user", "bob", "account=nosuch")
    assert r.returncode == 1
    assert "nosuch" in r.stderr
    r = mgr(c, "show", "frobs")
    assert r.returncode == 1
    assert r.stderr.startswith("No valid entity in list command\n")


@ONE_NODE
def test_qos_added_and_removed_with_plus_minus(cluster):
    """The seeds' own command: sacctmgr modify user alice set
    qos+=gpu_priority (and qos-=), as Slurm's sacctmgr."""
    c = cluster
    setup_research(c)
    ok(c, "-i", "add", "qos", "gpu_priority", "Priority=100")
    ok(c, "-i", "modify", "user", "alice", "set", "qos+=gpu_priority")
    assert assocs(c).endswith("drover|research|alice|gpu4,gpu_priority,"
                              "normal\n"), assocs(c)
    ok(c, "-i", "modify", "user", "alice", "set", "qos-=gpu4,normal")
    assert assocs(c).endswith("drover|research|alice|gpu_priority\n"), \
        assocs(c)
    r = mgr(c, "-i", "modify", "user", "alice", "set", "qos+=nosuch")
    assert r.returncode == 1 and "nosuch" in r.stderr, r.stderr
    r = mgr(c, "-i", "modify", "user", "alice", "set", "maxjobs+=3")
    assert r.returncode == 1 and "Unknown option" in r.stderr, r.stderr
    assert assocs(c).endswith("drover|research|alice|gpu_priority\n")


def test_same_answers_on_sqlite_and_postgresql(acct_cluster):
    c = acct_cluster
    setup_research(c)
    ok(c, "-i", "modify", "account", "research", "set", "MaxJobs=5",
       "GrpTRES=cpu=8")
    assert ok(c, "-P", "-n", "show", "assoc",
              "format=Account,User,MaxJobs,GrpTRES,QOS") == (
        "root||||normal\nroot|root|||normal\nresearch||5|cpu=8|normal\n"
        "research|alice|5||gpu4,normal\n")
    ok(c, "-i", "delete", "qos", "gpu4")
    assert ok(c, "-P", "-n", "show", "qos", "format=Name") == "normal\n"


@ONE_NODE
def test_without_immediate_it_asks(cluster):
    c = cluster
    r = mgr(c, "add", "account", "temp", input="")
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith(
        "Would you like to commit changes? (You have 30 seconds to decide)\n"
        "(N/y): \n Changes Discarded\n"), r.stdout
    assert "temp" not in assocs(c)
    r = mgr(c, "add", "account", "temp", input="y\n")
    assert r.returncode == 0, r.stderr
    assert "drover|temp||normal\n" in assocs(c)


@ONE_NODE
def test_only_admins_change_the_database(cluster, test_user):
    c = cluster
    setup_research(c)
    before = assocs(c)
    r = mgr(c, "-i", "modify", "qos", "gpu4", "set", "MaxJobsPU=1",
            user=test_user)
    assert (r.returncode, r.stderr) == (
        1, " Error with request: Access/permission denied\n")
    r = mgr(c, "-i", "add", "account", "evil", user=test_user)
    assert (r.returncode, r.stderr) == (
        1, " Problem adding accounts: Access/permission denied\n")
    assert assocs(c) == before
    assert "|1|" not in ok(c, "-P", "show", "qos")
    # showing is for everyone
    assert ok(c, "-P", "-n", "show", "qos", "format=Name",
              user=test_user) == "normal\ngpu4\n"
    # an Administrator in the database may change it
    ok(c, "-i", "add", "user", test_user, "account=research",
       "adminlevel=Administrator")
    assert ok(c, "-i", "modify", "qos", "gpu4", "set", "MaxJobsPU=1",
              user=test_user) == " Modified qos...\n  gpu4\n"


@ONE_NODE
def test_dump_then_load_round_trip(cluster):
    c = cluster
    setup_research(c)
    ok(c, "-i", "add", "account", "sub", "parent=research", "MaxJobs=3")
    before = assocs(c)
    dump = c.dir / "drover.cfg"
    ok(c, "dump", "drover", f"file={dump}")
    text = dump.read_text()
    assert "Cluster - 'drover'" in text
    assert "Parent - 'research'\nUser - 'alice':DefaultAccount='research'" \
        in text
    ok(c, "-i", "delete", "user", "alice")
    ok(c, "-i", "delete", "account", "sub")
    ok(c, "-i", "delete", "account", "research")
    assert "research" not in assocs(c)
    ok(c, "load", f"file={dump}")
    assert assocs(c) == before
    assert "drover|sub||3\n" in ok(c, "-P", "-n", "show", "assoc",
                                  "format=Cluster,Account,User,MaxJobs")


def test_version(cluster_root):
    from cluster import Cluster
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    r = c.run("sacctmgr", "-V")
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] in ("slurm 22.05.8", "slurm-wlm 22.05.8")


# Real Slurm 22.05's `sacctmgr show tres` with AccountingStorageTRES=gres/gpu
# (../shared/slurm-golden/sacctmgr-show-tres), byte for byte.
SHOW_TRES = (
    "    Type            Name     ID \n"
    "-------- --------------- ------ \n"
    "     cpu                      1 \n"
    "     mem                      2 \n"
    "  energy                      3 \n"
    "    node                      4 \n"
    " billing                      5 \n"
    "      fs            disk      6 \n"
    "    vmem                      7 \n"
    "   pages                      8 \n"
    "    gres             gpu   1001 \n")


@pytest.mark.parametrize(
    "cluster", [{"nodes": 1, "gpus_per_node": 0,
                 "up_args": ["--conf-extra=AccountingStorageTRES=gres/gpu"]}],
    indirect=True)
def test_show_tres(cluster):
    c = cluster
    assert ok(c, "show", "tres") == SHOW_TRES
    assert ok(c, "-P", "-n", "list", "tres").splitlines()[-1] == \
        "gres|gpu|1001"
    r = mgr(c, "-i", "add", "tres", "gres/foo")
    assert r.returncode == 1
    assert r.stderr.startswith("No valid entity in add command\n")
