#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs/options.md: every option of Slurm 22.05's commands and what
Drover does with it.

The option lists come from Slurm 22.05.8's own --help texts (copies in
tests/unit/data/slurm-golden/help-CMD.stdout).  Each option is tried on
the built command, with no cluster to talk to, to see what its parser
does: refuse it ("not supported by Drover"), not know it (getopt's
"unrecognized option"), or take it.  The table's marks:

  ✔  taken, as Slurm's
  ≠  taken, with a difference (the note says which; set by hand in the
     table and kept when it is regenerated)
  ✘  refused with a message naming it (the note is the message's reason)

    scripts/options_table.py BUILD_DIR            # print the table
    scripts/options_table.py BUILD_DIR --write    # rewrite docs/options.md

tests/e2e/test_options_doc.py checks the committed table against the
built commands with the same functions.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "unit" / "data" / "slurm-golden"
DOC = ROOT / "docs" / "options.md"
COMMANDS = ["sbatch", "salloc", "srun", "squeue", "sinfo", "scancel",
            "scontrol", "sacct", "sacctmgr", "sreport", "sprio", "sshare",
            "sdiag", "sstat", "sbcast", "sattach", "strigger"]

# "  -a, --all", "     -h or --help:", "     -u,--uid", "      --bell"
OPT_RE = re.compile(r"^\s{1,12}(?:(-[A-Za-z0-9])(?:,\s*| or )?)?"
                    r"(--[A-Za-z0-9][A-Za-z0-9_-]*)(\[?=)?")


def slurm_options(cmd):
    """[(short or None, --long, takes_arg)] in Slurm's --help order."""
    seen, out = set(), []
    for line in (GOLDEN / f"help-{cmd}.stdout").read_text().splitlines():
        m = OPT_RE.match(line)
        if not m or m.group(2) in seen:
            continue
        seen.add(m.group(2))
        out.append((m.group(1), m.group(2), m.group(3) is not None))
    return out


def probe(build, cmd, long_opt, takes_arg):
    """What the built command's parser does with the option:
    ("refused", reason), ("unknown", message) or ("taken", "")."""
    env = dict(os.environ, DROVER_CONF="/nonexistent/slurm.conf",
               SLURM_CONF="/nonexistent/slurm.conf")
    for k in list(env):
        if k.startswith(("SBATCH_", "SALLOC_", "SLURM_JOB", "SQUEUE_",
                         "SINFO_", "SACCT_")):
            del env[k]
    tail = {"sbatch": ["--wrap", "true"], "salloc": ["true"],
            "srun": ["true"]}.get(cmd, [])
    arg = [f"{long_opt}=1"] if takes_arg else [long_opt]
    for attempt in range(2):
        try:
            r = subprocess.run([str(Path(build) / "src" / "cmd" / cmd), *arg,
                                *tail], env=env, capture_output=True,
                               text=True, timeout=10,
                               stdin=subprocess.DEVNULL, cwd="/tmp")
            text = r.stderr + r.stdout
        except subprocess.TimeoutExpired:
            return ("taken", "")
        if "requires an argument" in text and attempt == 0:
            arg = [f"{long_opt}=1"]
            continue
        if "doesn't allow an argument" in text and attempt == 0:
            arg = [long_opt]
            continue
        break
    m = re.search(r"(--[\w-]+) is not supported by Drover(?: \((.*)\))?",
                  text)
    if m:
        return ("refused", m.group(2) or "")
    if "unrecognized option" in text or "invalid option" in text:
        return ("unknown", text.strip().splitlines()[0])
    return ("taken", "")


ROW_RE = re.compile(r"^\| `(?:(-\w), )?(--[\w-]+)` \| (✔|≠|✘) \| (.*) \|$")


def read_doc(path=DOC):
    """{cmd: {--long: (mark, note)}} from the committed table."""
    doc, cmd = {}, None
    if not path.exists():
        return doc
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            cmd = line[3:].strip()
            doc[cmd] = {}
        elif cmd and (m := ROW_RE.match(line)):
            doc[cmd][m.group(2)] = (m.group(3), m.group(4))
    return doc


def mark_for(result, old):
    """The mark and note a probe result gives, keeping a hand-set ≠."""
    kind, detail = result
    if kind == "refused":
        return ("✘", f"refused: {detail}" if detail else "refused")
    if kind == "unknown":
        return ("✘", "not implemented: getopt's unrecognized option")
    if old and old[0] == "≠":
        return old
    return ("✔", old[1] if old and old[0] == "✔" else "")


HEAD = """# Options of the Slurm commands in Drover

Every option Slurm 22.05.8's commands list in their `--help`, and what
Drover does with it: ✔ as Slurm's; ≠ taken with a difference (the note;
docs/compatibility.md has the details); ✘ refused with an error that
names the option (nothing is sent or queued).  No option is taken and
then ignored.  Commands' subcommands and keys (`scontrol update ...`,
`sacctmgr add ...`, sreport's reports) are described in
docs/compatibility.md.

Generated by `scripts/options_table.py BUILD_DIR --write` from Slurm's
help texts (tests/unit/data/slurm-golden/help-*.stdout) and the built
commands; ≠ marks and their notes are set by hand and kept.
tests/e2e/test_options_doc.py fails when the table and the commands
disagree.
"""


def render(build):
    old = read_doc()
    out = [HEAD]
    for cmd in COMMANDS:
        if not (GOLDEN / f"help-{cmd}.stdout").exists() or \
                not (Path(build) / "src" / "cmd" / cmd).exists():
            continue
        out.append(f"\n## {cmd}\n\n| Option | | Note |\n|---|---|---|")
        for short, long_opt, takes_arg in slurm_options(cmd):
            mark, note = mark_for(probe(build, cmd, long_opt, takes_arg),
                                  old.get(cmd, {}).get(long_opt))
            name = f"{short}, {long_opt}" if short else long_opt
            out.append(f"| `{name}` | {mark} | {note} |")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    text = render(Path(sys.argv[1]).resolve())
    if "--write" in sys.argv[2:]:
        DOC.write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
