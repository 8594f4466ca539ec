#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Debian package, installed and run on this machine (no container).

    tests/package/test_package.py [--deb drover_X_amd64.deb] [--keep]

Builds the .deb from this checkout (dpkg-buildpackage in a copy under
/tmp, so nothing lands beside the checkout) unless --deb names one, then:
dpkg -i; checks the layout (programs, man pages, units, examples, state
directories, the slurm user); writes a one-node /etc/slurm/slurm.conf and
slurmdbd.conf and starts a private munged; starts droverdbd, droverctld,
droverd and droverrestd with the EXACT ExecStart= lines of the installed
units (User=, DynamicUser=, Environment= and EnvironmentFile= as systemd
applies them), acting as their service manager: each must say READY=1 on
$NOTIFY_SOCKET (Type=notify); runs `sbatch --wrap hostname` with
/usr/bin/sbatch and waits for it to complete, in sacct too; asks the REST
daemon for /slurm/v0.0.38/ping with a token; stops every daemon (each says
STOPPING=1 and exits 0); and purges the package.

It installs Slurm's command names in /usr/bin, so it removes the package
at the end whatever happens (--keep: leave it installed), and it refuses
to run where a drover package, an /etc/slurm/slurm.conf or a
/var/lib/drover already is.
Root only; no systemd needed (the CI machine has none as PID 1).
"""

import argparse
import ctypes
import glob
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNIT_DIR = Path("/lib/systemd/system")
CONF_DIR = Path("/etc/slurm")
UNITS = ("droverdbd", "droverctld", "droverd", "droverrestd")  # start order
COMMANDS = ("sbatch", "srun", "salloc", "squeue", "sinfo", "scancel",
            "scontrol", "sacct", "sacctmgr", "sprio", "sshare", "sdiag",
            "sreport", "sstat", "sbcast", "strigger", "scrontab", "sattach",
            "drover", "drover-sim")
WRITTEN = []  # files this test put outside its directory, removed at the end


class Failure(Exception):
    pass


def say(msg):
    print(f"# {msg}", flush=True)


def run(*argv, check=True, timeout=120, **kw):
    """Run argv; its CompletedProcess (text).  check: fail on rc != 0."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                       **kw)
    if check and r.returncode != 0:
        raise Failure(f"{shlex.join(argv)}: rc {r.returncode}\n"
                      f"{r.stdout}{r.stderr}")
    return r


def wait_until(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.2)
    raise Failure(f"timed out after {timeout}s waiting for {what}")


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


# --- the package -----------------------------------------------------------

def build_deb(work):
    """dpkg-buildpackage on a copy of the checkout's files; the .deb."""
    version = re.search(r"version:\s*'([^']+)'",
                        (REPO / "meson.build").read_text()).group(1)
    src = work / "src" / f"drover-{version}"
    if shutil.which("git") and (REPO / ".git").exists():
        files = run("git", "-C", str(REPO), "ls-files", "-co",
                    "--exclude-standard", "-z").stdout.split("\0")
        for f in filter(None, files):
            if (REPO / f).is_file():
                (src / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / f, src / f)
    else:  # an unpacked tarball: all but build directories
        shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(
            "build*", "obj-*", ".git"))
    say(f"dpkg-buildpackage in {src}")
    # noopt: a quicker build; the installed check needs no optimizer.
    env = dict(os.environ, DEB_BUILD_OPTIONS=f"nocheck noopt parallel={os.cpu_count() or 1}")
    r = subprocess.run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src,
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=3600)
    if r.returncode != 0:
        raise Failure(f"dpkg-buildpackage: rc {r.returncode}\n"
                      f"{r.stdout[-4000:]}")
    debs = glob.glob(str(work / "src" / "drover_*.deb"))
    if len(debs) != 1:
        raise Failure(f"expected one drover_*.deb, found {debs}")
    return Path(debs[0])


def install(deb):
    say(f"dpkg -i {deb}")
    if run("dpkg", "-i", str(deb), check=False).returncode != 0:
        run("apt-get", "install", "-f", "-y", "--no-install-recommends",
            timeout=600, env=dict(os.environ,
                                  DEBIAN_FRONTEND="noninteractive"))
    run("dpkg", "-s", "drover")


def check_layout():
    """Where the package put things (docs/install.md's list)."""
    for c in COMMANDS:
        assert_path(f"/usr/bin/{c}", executable=True)
    for d in ("droverctld", "droverd", "droverstepd", "droverdbd",
              "droverrestd"):
        assert_path(f"/usr/sbin/{d}", executable=True)
    # squeue's reader of large listings, at the path squeue was built with
    # (src/cmd/lib/rowtable.h): there, and loadable (libsimdjson is a
    # dependency of the package)
    modules = glob.glob("/usr/lib/*/drover/libdrover-rows.so")
    if len(modules) != 1:
        raise Failure(f"libdrover-rows.so: {modules or 'not installed'}")
    ctypes.CDLL(modules[0]).row_table_simd_read  # noqa: B018
    # the libraries the daemons load with dlopen() when first needed
    # (src/common/dl.h): dpkg-shlibdeps sees only what is linked, so
    # debian/control names them
    depends = run("dpkg-query", "-W", "-f", "${Depends}", "drover").stdout
    for lib in ("libssl3", "libpmix2", "libhwloc15", "libbpf1"):
        if not re.search(rf"(^|[ ,]){re.escape(lib)}([ ,(]|$)", depends):
            raise Failure(f"the package's Depends lacks {lib}: {depends}")
    for c in COMMANDS:
        assert_path(f"/usr/share/man/man1/{c}.1.gz")
    for u in UNITS:
        assert_path(f"/usr/share/man/man8/{u}.8.gz")
        assert_path(UNIT_DIR / f"{u}.service")
    for f in ("slurm.conf", "gres.conf", "cgroup.conf", "slurmdbd.conf"):
        assert_path(f"/usr/share/doc/drover/examples/{f}")
    assert_path(CONF_DIR)
    slurm = pwd.getpwnam("slurm")
    st = os.stat("/var/lib/drover")
    if st.st_uid != slurm.pw_uid or st.st_mode & 0o7777 != 0o750:
        raise Failure(f"/var/lib/drover: uid {st.st_uid} mode "
                      f"{st.st_mode & 0o7777:o}, want slurm 0750")
    st = os.stat("/var/spool/drover")
    if st.st_uid != 0 or st.st_mode & 0o022:
        raise Failure("/var/spool/drover: want root's, not group/other "
                      "writable")
    man = run("man", "-P", "cat", "/usr/share/man/man1/sbatch.1.gz",
              check=False, env=dict(os.environ, MANWIDTH="80"))
    if man.returncode == 0 and "--wrap" not in man.stdout:
        raise Failure("sbatch(1) does not list --wrap")


def assert_path(path, executable=False):
    p = Path(path)
    if not p.exists() or (executable and not os.access(p, os.X_OK)):
        raise Failure(f"{p}: missing{' or not executable' if executable else ''}")


# --- a one-node configuration ----------------------------------------------

def write_file(path, text, mode=0o644, owner=None):
    path = Path(path)
    if path.exists() and path not in WRITTEN:
        raise Failure(f"{path} exists: refusing to overwrite it")
    path.write_text(text)
    WRITTEN.append(path)
    os.chmod(path, mode)
    if owner:
        pw = pwd.getpwnam(owner)
        os.chown(path, pw.pw_uid, pw.pw_gid)


def start_munged(work):
    mdir = work / "munge"
    mdir.mkdir(mode=0o755)
    key = mdir / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    run(shutil.which("munged") or "/usr/sbin/munged",
        f"--socket={mdir}/munge.sock", f"--key-file={key}",
        f"--pid-file={mdir}/munged.pid", f"--log-file={mdir}/munged.log",
        f"--seed-file={mdir}/munged.seed", "--force")
    wait_until(lambda: (mdir / "munged.pid").exists(), 10, "munged")
    return mdir / "munge.sock", mdir / "munged.pid"


def write_config(work, sock, ports):
    host = socket.gethostname()
    ctld, node, dbd, rest = ports
    write_file(CONF_DIR / "slurm.conf", f"""\
# written by tests/package/test_package.py
ClusterName=pkgtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld}
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket={sock}
AuthAltTypes=auth/jwt
StateSaveLocation=/var/lib/drover/ctld
SlurmdSpoolDir=/var/spool/drover/%n
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={dbd}
KillWait=5
SlurmdTimeout=30
ReturnToService=1
NodeName={host} NodeAddr=127.0.0.1 Port={node} CPUs=1 RealMemory=256 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
    write_file(CONF_DIR / "slurmdbd.conf", f"""\
# written by tests/package/test_package.py
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={dbd}
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket={sock}
StorageType=accounting_storage/sqlite
StorageLoc=/var/lib/drover/slurm_acct_db.sqlite
""", mode=0o600, owner="slurm")
    # The controller's state directory and JWT key, made as docs/install.md
    # says (dpkg --purge removes them with /var/lib/drover).
    slurm = pwd.getpwnam("slurm")
    state = Path("/var/lib/drover/ctld")
    state.mkdir(mode=0o700)
    os.chown(state, slurm.pw_uid, slurm.pw_gid)
    key = state / "jwt_hs256.key"
    key.write_bytes(os.urandom(32))
    os.chmod(key, 0o600)
    os.chown(key, slurm.pw_uid, slurm.pw_gid)
    # The admin's way to move droverrestd (docs/install.md).
    write_file("/etc/default/droverrestd",
               f"DROVERRESTD_LISTEN=127.0.0.1:{rest}\n")


# --- the units, run as systemd would ---------------------------------------

def parse_unit(path):
    """The [Service] section's settings: name -> list of values."""
    svc, section = {}, None
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            k, v = line.split("=", 1)
            svc.setdefault(k.strip(), []).append(v.strip())
    return svc


def read_env_file(path):
    env = {}
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line and line[0] not in "#;" and "=" in line:
            k, v = line.split("=", 1)
            env[k.strip()] = v.strip().strip('"')
    return env


def unit_env(svc):
    """Environment= then EnvironmentFile= (later wins), as systemd."""
    env = {}
    for assignment in svc.get("Environment", []):
        for word in shlex.split(assignment):
            k, v = word.split("=", 1)
            env[k] = v
    for f in svc.get("EnvironmentFile", []):
        optional = f.startswith("-")
        f = f.lstrip("-")
        if Path(f).exists():
            env.update(read_env_file(f))
        elif not optional:
            raise Failure(f"EnvironmentFile {f} missing")
    return env


def expand_exec(line, env):
    """systemd's ExecStart= expansion: a word "$VAR" becomes the words of
    VAR's value (none when empty), "${VAR}" is replaced in place."""
    argv = []
    for word in shlex.split(line):
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word)
        if m:
            argv += env.get(m.group(1), "").split()
            continue
        argv.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                           lambda mm: env.get(mm.group(1), ""), word))
    return argv


class Manager:
    """A service manager of one socket: starts units, reads sd_notify."""

    def __init__(self, work):
        ndir = work / "notify"
        ndir.mkdir(mode=0o755)
        self.path = str(ndir / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o666)  # as systemd's: any daemon user sends
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.settimeout(0.2)
        self.work = work
        self.procs = {}  # unit -> Popen
        self.msgs = {}   # pid -> [messages]

    def _drain(self):
        size = struct.calcsize("3i")
        try:
            data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(size))
        except socket.timeout:
            return
        pid = None
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("3i", cdata[:size])[0]
        self.msgs.setdefault(pid, []).append(data.decode())

    def wait_msg(self, unit, msg, timeout=30):
        p = self.procs[unit]

        def got():
            self._drain()
            if msg in self.msgs.get(p.pid, []):
                return True
            if p.poll() is not None and msg == "READY=1":
                raise Failure(f"{unit} exited {p.returncode} before {msg}:\n"
                              + self.log_tail(unit))
            return False
        wait_until(got, timeout, f"{unit}'s {msg}")

    def log_tail(self, unit):
        log = self.work / "log" / f"{unit}.log"
        return "".join(log.read_text().splitlines(True)[-30:]) \
            if log.exists() else ""

    def start(self, unit):
        svc = parse_unit(UNIT_DIR / f"{unit}.service")
        if svc.get("Type") != ["notify"]:
            raise Failure(f"{unit}: Type={svc.get('Type')}, want notify")
        env = unit_env(svc)
        (exec_start,) = svc["ExecStart"]
        argv = expand_exec(exec_start, env)
        if svc.get("DynamicUser") == ["yes"]:
            user, group = "nobody", "nogroup"  # a stand-in transient user
        else:
            user = svc.get("User", ["root"])[0]
            group = svc.get("Group", [pwd.getpwnam(user).pw_gid])[0]
        say(f"{unit}: {shlex.join(argv)}  (as {user})")
        (self.work / "log").mkdir(exist_ok=True)
        log = open(self.work / "log" / f"{unit}.log", "w")
        penv = dict(env, PATH="/usr/sbin:/usr/bin:/sbin:/bin",
                    NOTIFY_SOCKET=self.path, LANG="C.UTF-8")
        self.procs[unit] = subprocess.Popen(
            argv, cwd="/", env=penv, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, user=user, group=group,
            extra_groups=[], start_new_session=True)
        log.close()
        self.wait_msg(unit, "READY=1")
        say(f"{unit}: READY=1 from pid {self.procs[unit].pid}")

    def stop(self, unit, check=True):
        p = self.procs.pop(unit, None)
        if not p or p.poll() is not None:
            if p and check:
                raise Failure(f"{unit} had exited {p.returncode}:\n"
                              + self.log_tail(unit))
            return
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise Failure(f"{unit} did not stop on SIGTERM")
        self.procs[unit] = p
        if check:
            self.wait_msg(unit, "STOPPING=1", timeout=5)
            if rc != 0:
                raise Failure(f"{unit} exited {rc}:\n" + self.log_tail(unit))
        self.procs.pop(unit)
        say(f"{unit}: stopped (STOPPING=1, rc {rc})")

    def stop_all(self):
        for unit in reversed(UNITS):
            try:
                self.stop(unit, check=False)
            except Failure as e:
                say(str(e))


# --- the job ---------------------------------------------------------------

def cmd_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SBATCH_", "SQUEUE_", "DROVER_"))}
    env["PATH"] = "/usr/bin:/bin:/usr/sbin:/sbin"
    return env


def run_job(work):
    env = cmd_env()
    if shutil.which("sbatch", path=env["PATH"]) != "/usr/bin/sbatch":
        raise Failure("sbatch does not resolve to /usr/bin/sbatch")
    wait_until(lambda: "idle" in run("/usr/bin/sinfo", "-h", "-o", "%T",
                                     env=env, check=False).stdout,
               60, "the node to register (sinfo idle)")
    out = work / "job-%j.out"
    r = run("/usr/bin/sbatch", "--parsable", "-o", str(out), "--wrap",
            "hostname", env=env)
    job = r.stdout.strip().split(";")[0]
    say(f"submitted job {job}")

    def state():
        r = run("/usr/bin/scontrol", "show", "job", job, env=env,
                check=False)
        m = re.search(r"JobState=(\S+)", r.stdout)
        s = m.group(1) if m else ""
        if s in ("FAILED", "CANCELLED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY"):
            raise Failure(f"job {job} ended {s}:\n{r.stdout}")
        return s == "COMPLETED"
    wait_until(state, 60, f"job {job} to complete")
    text = Path(str(out).replace("%j", job)).read_text().strip()
    if text != socket.gethostname():
        raise Failure(f"job output {text!r}, want the hostname")
    wait_until(lambda: "COMPLETED" in run(
        "/usr/bin/sacct", "-n", "-X", "-j", job, "-o", "State", env=env,
        check=False).stdout, 60, f"job {job} COMPLETED in sacct")
    say(f"job {job} COMPLETED (output {text!r}, in sacct too)")


def check_rest(rest_port):
    env = cmd_env()
    tok = run("/usr/bin/scontrol", "token", env=env).stdout.strip()
    tok = tok.split("=", 1)[1]
    req = urllib.request.Request(
        f"http://127.0.0.1:{rest_port}/slurm/v0.0.38/ping",
        headers={"X-SLURM-USER-TOKEN": tok})
    with urllib.request.urlopen(req, timeout=10) as resp:
        doc = json.loads(resp.read())
    if not doc.get("pings"):
        raise Failure(f"REST ping: {doc}")
    say("droverrestd: /slurm/v0.0.38/ping answered with a token")


# --- main ------------------------------------------------------------------

def preconditions():
    if os.geteuid() != 0:
        raise Failure("run as root (dpkg -i, daemons as their users)")
    if run("dpkg-query", "-W", "-f=${Status}", "drover",
           check=False).stdout.startswith("install ok"):
        raise Failure("a drover package is installed already: not touching it")
    for p in (CONF_DIR / "slurm.conf", CONF_DIR / "slurmdbd.conf",
              Path("/etc/default/droverrestd")):
        if p.exists():
            raise Failure(f"{p} exists: this test writes its own")
    for p in ("/var/lib/drover", "/var/spool/drover"):
        if Path(p).exists():
            raise Failure(f"{p} exists: dpkg --purge at the end would "
                          "remove it")


def remove_package(keep):
    for p in reversed(WRITTEN):
        p.unlink(missing_ok=True)
    if keep:
        say("--keep: the drover package stays installed")
        return
    run("dpkg", "--purge", "drover", check=False, timeout=300)
    for p in ("/usr/bin/sbatch", "/usr/sbin/droverctld", "/var/lib/drover"):
        if Path(p).exists():
            raise Failure(f"{p} still there after dpkg --purge")
    say("dpkg --purge drover: removed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deb", help="the .deb to test (default: build one)")
    ap.add_argument("--keep", action="store_true",
                    help="leave the package installed")
    args = ap.parse_args()
    preconditions()
    work = Path(tempfile.mkdtemp(prefix="drover-pkg-test-"))
    os.chmod(work, 0o755)
    mgr, munged_pid, installed = None, None, False
    try:
        deb = Path(args.deb).resolve() if args.deb else build_deb(work)
        install(deb)
        installed = True
        check_layout()
        say("layout: programs, man pages, units, examples, directories")
        sock, munged_pid = start_munged(work)
        ports = free_ports(4)
        write_config(work, sock, ports)
        mgr = Manager(work)
        for unit in UNITS:
            mgr.start(unit)
        run_job(work)
        check_rest(ports[3])
        for unit in reversed(UNITS):
            mgr.stop(unit)
        print("ok - the drover package installs, starts from its units and "
              "runs a job")
        return 0
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"not ok - {e}")
        if mgr:
            for unit in UNITS:
                tail = mgr.log_tail(unit)
                if tail:
                    print(f"# --- {unit} log tail ---\n{tail}")
        return 1
    finally:
        if mgr:
            mgr.stop_all()
        if munged_pid and munged_pid.exists():
            try:
                os.kill(int(munged_pid.read_text()), signal.SIGTERM)
            except (ValueError, ProcessLookupError):
                pass
        if installed:
            remove_package(args.keep)
        else:
            for p in reversed(WRITTEN):
                p.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
