#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Write the seed corpora of tests/fuzz/corpus/ from the repository's own
inputs (examples, test data, the message schema) and hand-picked cases.
Run from the repository root after a build (it reads the schema's message
types from docs/protocol-messages.md).  Existing seeds are kept; files are
named by content hash, so rerunning adds only what is new."""
import base64
import hashlib
import hmac
import json
import re
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fuzz" / "corpus"


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def frame(msg):
    raw = json.dumps(msg).encode()
    return struct.pack(">I", len(raw)) + raw


def frames():
    text = (ROOT / "docs" / "protocol-messages.md").read_text()
    types = sorted(set(re.findall(r"^## `([a-z_]+)`", text, re.M)))
    for t in types:
        put("frame", b"\x07" + frame({"v": 1, "type": t, "cred": "MUNGE:x",
                                      "body": {}}))
    put("frame", b"\x10" + frame({"v": 1, "type": "job_submit",
                                  "cred": "MUNGE:x", "body": {
                                      "name": "j", "script": "#!/bin/sh\n",
                                      "nodes_min": 1, "nodes_max": 2,
                                      "ntasks": 4, "env": {"A": "b"},
                                      "time_limit_s": 60, "gres": "gpu:2",
                                      "argv": ["x"], "hold": True}}))
    put("frame", b"\x03" + frame({"v": 1, "type": "job_info", "cred": "c",
                                  "body": {"job_ids": [1, 2],
                                           "fields": ["job_id"],
                                           "rows": True}}))
    put("frame", b"\x01" + struct.pack(">I", 0xFFFFFFFF) + b"{")
    put("frame", b"\x02" + struct.pack(">I", 5) + b"[1,2]")
    put("frame", b"\x05" + frame({"v": 2}) + frame({"type": 7}))


def rows():
    """job_info answers as squeue reads them (fuzz_rows.c): the text of a
    frame, no length prefix."""
    keys = ["job_id", "job_state", "partition", "name", "priority",
            "array_task_str", "nodes"]
    put("rows", json.dumps({"v": 1, "type": "job_info", "body": {
        "now": 1795984585, "keys": keys, "jobs": [
            [1, "PENDING", "debug", "wrap", 0, None, ""],
            [2, "RUNNING", "debug", "w\"x\u00e9\n", 7.5, "0-3%2", "n[1-2]"],
            [3, "PENDING", "debug", "wrap", -1, None, {"a": [1]}]]}}))
    put("rows", json.dumps({"v": 1, "type": "job_info", "body": {
        "now": 1, "keys": [], "jobs": []}}))
    put("rows", json.dumps({"v": 1, "type": "job_info", "body": {
        "keys": ["job_id"], "jobs": [{"job_id": 1}]}}))
    put("rows", json.dumps({"v": 1, "type": "error", "body": {
        "errno": 2017, "error": "Invalid job id specified"}}))
    put("rows", '{"v":1,"type":"job_info","body":{"keys":["a","b"],'
                '"jobs":[[1,2],[3]]}}')
    put("rows", '{"v":1,"type":"job_info","body":{"keys":["a"],'
                '"jobs":[[1]]},"body":{}}')
    put("rows", '{"v":1,"body":{"keys":["a"],"jobs":[["\u0000"]]}}')
    put("rows", '{"v":1}trailing')
    put("rows", '[1,2]')


def confs():
    ex = ROOT / "docs" / "examples"
    slurm = """ClusterName=c
SlurmctldHost=h(127.0.0.1)
SlurmctldPort=6817
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=/k,max_token_lifespan=60
SchedulerParameters=bf_window=60,drover_backfill=slurm
PriorityType=priority/multifactor
PriorityWeightAge=1000
NodeName=n[01-04] CPUs=8 RealMemory=1000 Gres=gpu:a100:2 Port=[7001-7004]
PartitionName=p Nodes=ALL Default=YES MaxTime=1-00:00:00 State=UP
PartitionName=q Nodes=n[01-02] PriorityTier=2 OverSubscribe=FORCE:2
"""
    gres = "NodeName=n[01-04] Name=gpu Type=a100 File=/dev/nvidia[0-1]\n"
    put("conf", b"\x00" + slurm.encode())
    put("conf", b"\x00" + (slurm + "%%\n" + gres).encode())
    for f in sorted(ROOT.glob("../shared/slurm-reference/**/*.conf")):
        kind = {"cgroup.conf": 1, "slurmdbd.conf": 2}.get(f.name, 0)
        put("conf", bytes([kind]) + f.read_bytes())
    put("conf", b"\x01CgroupPlugin=autodetect\nConstrainRAMSpace=yes\n"
        b"AllowedRAMSpace=90\nConstrainDevices=yes\n")
    put("conf", b"\x02DbdHost=localhost\nDbdPort=6819\nStorageType="
        b"accounting_storage/pgsql\nStorageLoc=db\nAuthAltTypes=auth/jwt\n"
        b"AuthAltParameters=jwt_key=/k\nPurgeJobAfter=12months\n")
    rt = "/usr/bin/crun --rootless=true --root=/run/crun/%U"
    name = "drover-%n-%j-%s-%t"
    put("conf", (f'\x03RunTimeRun="{rt} run --bundle %b {name}"\n'
                 f'RunTimeQuery="{rt} state {name}"\n'
                 f'RunTimeKill="{rt} kill -a {name}"\n'
                 f'RunTimeDelete="{rt} delete --force {name}"\n'
                 "ContainerPath=/run/drover/oci/%j.%s\n"
                 "CreateEnvFile=true\n"))
    put("conf", b"\x04AutoBasePath=true\nBasePath=/var/tmp/drover\n"
        b"NodeName=n[01-02] BasePath=/scratch Dirs=/tmp,/dev/shm\n")
    del ex


def specs():
    cases = {
        0: ["node[01-04]", "a[1-3,5],b[2-4]x", "n[0-099]", "gpu-[1-2]-[3-4]",
            "x", "n[01-04],m1,n05"],
        1: ["1-00:00:00", "30", "UNLIMITED", "2:30", "1:02:03", "infinite",
            "5-0", "0"],
        2: ["16G", "100M", "1T", "512", "1.5G", "0"],
        3: ["0-15%4", "1,3,5", "0-100:3", "7", "1-5:2%1"],
        4: ["afterok:1:2,afterany:3", "singleton", "afternotok:5?afterok:6",
            "after:7+10", "aftercorr:9_3", "expand:4"],
    }
    for k, values in cases.items():
        for v in values:
            put("specs", bytes([k]) + v.encode())


def scripts():
    for f in sorted((ROOT / "docs" / "examples").glob("*.sh")):
        put("sbatch", f.read_bytes())
    put("sbatch", "#!/bin/bash\n#SBATCH -N 2-4 -n 8 --gres=gpu:2\n"
        "#SBATCH --array=0-9%2 -t 1:00:00 --mem=4G -J x\n"
        "#SBATCH --dependency=afterok:1 --begin=now+1hour\n"
        "#SBATCH --export=NONE -o out_%A_%a.log\nsrun hostname\n")


def b64(d):
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def tokens():
    key = b"0123456789abcdef0123456789abcdef"
    for alg, claims in (("HS256", {"sun": "alice", "iat": 1000,
                                   "exp": 4600}),
                        ("HS256", {"sun": "", "iat": 1, "exp": 9}),
                        ("none", {"sun": "root", "exp": 99999}),
                        ("HS512", {"sun": "root", "exp": 99999})):
        h = b64(json.dumps({"alg": alg, "typ": "JWT"}).encode())
        c = b64(json.dumps(claims).encode())
        sig = hmac.new(key, f"{h}.{c}".encode(), hashlib.sha256).digest()
        put("jwt", f"{h}.{c}.{b64(sig)}")
    put("jwt", "a.b.c")
    put("jwt", "")


def submissions():
    for doc in ({"script": "#!/bin/bash\nid\n",
                 "job": {"name": "r", "environment": {"PATH": "/bin"},
                         "current_directory": "/tmp", "time_limit": 5,
                         "nodes": "1-2", "tasks": 4,
                         "tres_per_node": "gres/gpu:a100:2",
                         "required_nodes": ["n1", "n2"], "hold": True}},
                {"script": "x", "job": {"environment": ["A=b", "C=d"],
                                        "exclusive": "user"}},
                {"script": "x", "job": {"colour": 1}},
                {"job": {"script": "#!/bin/sh\n", "environment": ["A=b"],
                         "time_limit": {"set": True, "infinite": True},
                         "memory_per_node": {"set": True, "number": 100},
                         "tasks": {"set": False}}},
                {"jobs": []}):
        put("rest_submit", json.dumps(doc))


def swf():
    for f in sorted((ROOT / "tests" / "unit" / "data").glob("*.swf")):
        for line in f.read_text().splitlines()[:40]:
            if line.strip():
                put("swf", line)


if __name__ == "__main__":
    frames()
    rows()
    confs()
    specs()
    scripts()
    tokens()
    submissions()
    swf()
    for d in sorted(OUT.iterdir()):
        print(d.name, len(list(d.iterdir())))
