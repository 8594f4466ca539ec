# SPDX-License-Identifier: Apache-2.0
"""pytest fixtures for Drover's end-to-end tests.

    def test_x(cluster): ...                      # 4 nodes x 8 GPUs
    @pytest.mark.parametrize("cluster", [2], indirect=True)
    def test_y(cluster): ...                      # 2 nodes
    @pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 2,
                                          "up_args": ["--gpu-type=a100"]}],
                             indirect=True)

Each test gets its own directory, ports and daemons.  When a test fails,
its report carries every daemon's log tail.  `pytest --keep-cluster` keeps
the directories (daemons are still stopped) and prints where they are.
Tests marked needs_root are skipped, with the reason shown, when not run
as root.

pytest's own tmp_path lives under a base directory made here and opened to
every user (mode 0755; pytest makes it 0700), so a test may chmod its
tmp_path and run jobs of other users in it.

The suite may run on several pytest-xdist workers at once (run_e2e.py):
what two tests share on the machine is made safe here (users are created
under a lock), and a test that needs the machine to itself is marked
`alone` and runs in the serial pass after the parallel one.
"""

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster import PG_PRIVATE, Cluster, binary, pg_conf_args, require  # noqa: E402

TEST_USERS = ("druser1", "druser2")

# Held while users and groups are looked up and created: two pytest workers
# (or two checkouts' suites) creating them at once would race (both see no
# user; useradd fails on the other's lock of /etc/passwd).  Shared with
# tests/pg_private.sh (its drover-pg user).
USERS_LOCK = "/run/lock/drover-test-users.lock"


def pytest_addoption(parser):
    parser.addoption("--keep-cluster", action="store_true", default=False,
                     help="keep each test's cluster directory (logs, state, "
                          "job output) and print where it is")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "needs_root: the test must run as root (users, cgroups, "
                   "device files); skipped otherwise")
    config.addinivalue_line(
        "markers", "alone: the test needs the machine to itself (it bounds "
                   "latencies, or loads the machine): run_e2e.py runs it in "
                   "the serial pass after the parallel one")
    if config.option.basetemp is None:
        config.option.basetemp = tempfile.mkdtemp(prefix="drover-e2e-pytest-",
                                                  dir="/tmp")
        config._drover_basetemp = config.option.basetemp


def pytest_unconfigure(config):
    made = getattr(config, "_drover_basetemp", None)
    if made and not config.getoption("--keep-cluster"):
        shutil.rmtree(made, ignore_errors=True)
    elif made:
        print(f"\n[drover] kept pytest's temporary files in {made}")


@pytest.fixture(scope="session", autouse=True)
def open_basetemp(tmp_path_factory):
    """Let other users traverse pytest's base temporary directory (and, on
    a pytest-xdist worker, the controller's, which holds the worker's)."""
    base = tmp_path_factory.getbasetemp()
    os.chmod(base, 0o755)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.chmod(base.parent, 0o755)


def pytest_runtest_setup(item):
    if item.get_closest_marker("needs_root"):
        require(os.geteuid() == 0,
                "needs root (run the e2e suite as root to include it)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On failure, attach the log tail of each daemon to the report."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
    c = getattr(item, "funcargs", {}).get("cluster")
    if rep.failed and isinstance(c, Cluster):
        rep.sections.append(("drover daemon logs", c.log_tails()))


def _cluster_params(request):
    p = getattr(request, "param", 4)
    if isinstance(p, int):
        return {"nodes": p}
    return dict(p)


def _make_root(request):
    # Only characters that slurm.conf and hostlists take in a path.
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)[:40]
    root = tempfile.mkdtemp(prefix=f"drover-e2e-{name.strip('-')}-",
                            dir="/tmp")
    os.chmod(root, 0o755)
    return Path(root)


@pytest.fixture
def cluster_root(request):
    """A fresh directory under /tmp that every user can reach (pytest's
    tmp_path is private to the user running pytest, and jobs of other users
    must reach the MUNGE socket and slurm.conf).  Removed afterwards unless
    --keep-cluster."""
    root = _make_root(request)
    yield root
    if request.config.getoption("--keep-cluster"):
        print(f"\n[drover] kept {root} (restart with: drover up --dir "
              f"{root / 'cluster'})")
    else:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def cluster(request, cluster_root):
    """A running local cluster: 4 nodes x 8 GPUs unless parametrized
    (indirect) with a node count or a dict of Cluster arguments."""
    c = Cluster(cluster_root, **_cluster_params(request))
    try:
        c.up()
        yield c
    finally:
        try:
            c.down()
        except Exception as e:  # report, but let the test's outcome stand
            print(f"\n[drover] drover down failed: {e}")
    # Under the sanitizer build, daemons report memory errors and leaks
    # into their logs (at exit, for leaks): any such report fails the test.
    reports = sanitizer_reports(cluster_root)
    assert not reports, "sanitizer reports in daemon logs:\n" + "\n".join(reports)


def sanitizer_reports(root):
    found = []
    for log in Path(root).glob("**/log/*.log"):
        text = log.read_text(errors="replace")
        for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                       "runtime error:"):
            if marker in text:
                i = text.index(marker)
                found.append(f"--- {log} ---\n{text[max(0, i - 200):i + 2000]}")
    return found


def _admin(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0 and "already exists" not in r.stderr:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")


def _exists(db, name):
    return subprocess.run(["getent", db, name], capture_output=True,
                          timeout=30).returncode == 0


@contextlib.contextmanager
def users_lock():
    """USERS_LOCK held (flock) for the block.  Root only (users are made
    by root); a symlink planted there (/run/lock is sticky and open to
    all) is not followed."""
    fd = os.open(USERS_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW
                 | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def create_user(name, groups=()):
    """Create an ordinary user (useradd -m) unless it exists, and make it a
    member of 'groups' (created if missing).  Root only.  Returns 'name'.
    Users are left in place for the next run.  Safe when several test
    processes create users at once (users_lock()).
    """
    with users_lock():
        for g in groups:
            if not _exists("group", g):
                _admin("groupadd", g)
        if not _exists("passwd", name):
            extra = ["-G", ",".join(groups)] if groups else []
            _admin("useradd", "-m", "-s", "/bin/bash", *extra, name)
        elif groups:
            _admin("usermod", "-a", "-G", ",".join(groups), name)
    return name


@pytest.fixture
def make_user():
    """create_user(name, groups=()) for the test; skips (with the reason)
    when not root."""
    require(os.geteuid() == 0, "needs root to create test users")
    return create_user


@pytest.fixture(scope="session")
def drover_bin():
    """drover_bin(name) -> path (str) of a built program: droverctld,
    droverd, drover, sbatch...  Fails the test if it is not built."""
    def find(name):
        path = binary(name)
        if not os.access(path, os.X_OK):
            pytest.fail(f"{name} is not built ({path})")
        return str(path)
    return find


@pytest.fixture(scope="session")
def test_users():
    """Ordinary users druser1 and druser2 (created if missing).  Skips the
    test, with the reason, when not root."""
    require(os.geteuid() == 0, "needs root to create test users")
    return [create_user(u) for u in TEST_USERS]


@pytest.fixture(scope="session")
def test_user(test_users):
    """The name of one ordinary user, druser1."""
    return test_users[0]


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory):
    """A private PostgreSQL server: (host, port, user, database)."""
    base = tmp_path_factory.mktemp("pg")
    os.chmod(base, 0o755)
    os.chmod(base.parent, 0o755)
    d = base / "pg"
    r = subprocess.run([str(PG_PRIVATE), "start", str(d)],
                       capture_output=True, text=True, timeout=120)
    require(r.returncode == 0,
            f"no private PostgreSQL server: {r.stderr.strip()}")
    host, port, user, db = r.stdout.split()
    yield {"host": host, "port": int(port), "user": user, "db": db,
           "dir": d}
    subprocess.run([str(PG_PRIVATE), "stop", str(d)], capture_output=True,
                   timeout=60)


@pytest.fixture(params=["sqlite", "pgsql"])
def acct_cluster(request, cluster_root):
    """A 1-node cluster whose droverdbd stores in SQLite, or in the
    private PostgreSQL server."""
    args = []
    if request.param == "pgsql":
        pg = dict(request.getfixturevalue("pg_server"))
        pg["db"] = f"acct_{os.path.basename(cluster_root)}".replace("-", "_")
        r = subprocess.run([str(PG_PRIVATE), "createdb", str(pg["dir"]),
                            pg["db"]], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        args = pg_conf_args(pg)
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0, up_args=args)
    c.backend = request.param
    try:
        c.up()
        yield c
    finally:
        try:
            c.down()
        except Exception as e:
            print(f"\n[drover] drover down failed: {e}")
    reports = sanitizer_reports(cluster_root)
    assert not reports, "sanitizer reports in daemon logs:\n" + "\n".join(
        reports)


@pytest.fixture
def two_cpus():
    """A machine with at least 2 CPUs (tests that bind jobs to different
    real CPUs); require(): fails under DROVER_TEST_STRICT."""
    require(len(os.sched_getaffinity(0)) >= 2,
            "needs a machine with 2 CPUs")

