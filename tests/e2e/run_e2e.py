# SPDX-License-Identifier: Apache-2.0
"""Run the end-to-end suite: pytest-xdist workers first, then a serial pass.

    /usr/bin/python3 tests/e2e/run_e2e.py [pytest arguments...]

(what `meson test --suite e2e` runs, with the tests directory as argument).

Most e2e tests spend their time waiting (daemons starting, jobs sleeping,
timeouts), so DROVER_E2E_WORKERS pytest workers (default: the CPU count,
at most 2) run the test files side by side: `--dist loadfile` keeps a
file's tests on one worker, so its module fixtures are made once.  Tests
marked `alone` (they measure latencies, or load the machine themselves:
conftest.py) are left out there and run afterwards in a serial pass, with
the machine to themselves.  DROVER_E2E_WORKERS=1, or no pytest-xdist
installed (python3-pytest-xdist), runs everything in one serial pytest, as
`/usr/bin/python3 -m pytest tests/e2e/test_X.py` does.

Exits 0 when every pass passed (a pass that selects no test counts as
passed), otherwise with the first failing pass's status.
"""

import importlib.util
import os
import subprocess
import sys

MAX_DEFAULT_WORKERS = 2


def workers():
    """The worker count: $DROVER_E2E_WORKERS, else min(CPUs, 2)."""
    raw = os.environ.get("DROVER_E2E_WORKERS", "")
    if raw == "":
        return max(1, min(len(os.sched_getaffinity(0)), MAX_DEFAULT_WORKERS))
    if not raw.isdigit() or int(raw) < 1:
        sys.exit(f"run_e2e: DROVER_E2E_WORKERS={raw!r}: expected a whole "
                 f"number of workers, 1 or more (1: serial)")
    return int(raw)


def pytest(args):
    cmd = [sys.executable, "-m", "pytest", *args]
    print("run_e2e: " + " ".join(cmd), flush=True)
    rc = subprocess.run(cmd).returncode
    return 0 if rc == 5 else rc  # 5: no test selected in this pass


def main(args):
    n = workers()
    if n > 1 and importlib.util.find_spec("xdist") is None:
        print(f"run_e2e: DROVER_E2E_WORKERS={n} but pytest-xdist is not "
              f"installed (apt-get install python3-pytest-xdist): running "
              f"serially", flush=True)
        n = 1
    if n == 1:
        return pytest(args)
    rc = pytest(["-n", str(n), "--dist", "loadfile", "-m", "not alone",
                 *args])
    rc_alone = pytest(["-m", "alone", *args])
    return rc or rc_alone


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
