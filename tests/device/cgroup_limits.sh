#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# cgroup limits on the machine's own cgroup tree (issue 16): run as root
# from the repository root on a host whose cgroups droverd may use (the
# GPU machines are cgroup v2 only, droverd started from a cgroup that
# holds other processes):
#
#   tests/device/cgroup_limits.sh [BUILD_DIR]   (default: $DROVER_BUILD_DIR,
#                                               else build-p)
#
# A one-node `drover up` cluster (ConstrainRAMSpace=yes, as drover up
# writes it): prints droverd's cgroup line and a job's cgroup, checks
# that on v2 the memory, cpu, cpuset and pids controllers reach the job,
# that the job's memory.max is its --mem, and that a job touching more
# than its --mem=64M ends OUT_OF_MEMORY.  Exits 0 when everything
# matches, 1 on a mismatch, 2 when it cannot run.
set -u

. "$(dirname "$0")/lib.sh"
device_init cgroup_limits "${1:-}" sbatch scontrol python3
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 2; }
drover up --dir "$DIR/cluster" --nodes=1 --gpus-per-node=0 >/dev/null ||
    exit 2
LOG="$DIR/cluster/log/droverd-node01.log"

echo "== droverd's own cgroup, and its log"
grep '^0::' "/proc/$(pgrep -f 'droverd.*node01' | head -1)/cgroup"
grep -E "cgroup|ConstrainRAMSpace" "$LOG"
V2=$(grep -c "jobs run in cgroup v2" "$LOG")
if [ "$V2" -gt 0 ]; then
    grep -q "jobs run in cgroup v2 (memory,cpu,cpuset,pids" "$LOG" ||
        bad "droverd did not enable memory,cpu,cpuset,pids"
fi

wait_done() {
    for _ in $(seq 120); do
        st=$(scontrol show job "$1" | grep -o 'JobState=[A-Z_]*')
        case "$st" in
        *PENDING|*RUNNING|*CONFIGURING|*COMPLETING) sleep 0.5 ;;
        *) echo "$st"; return ;;
        esac
    done
    echo "JobState=TIMEOUT_WAITING"
}

echo "== a job with --mem=64M: its cgroup"
JOB=$(sbatch --parsable --mem=64M -o "$DIR/cg.out" --wrap '
    cg=$(grep "^0::" /proc/self/cgroup | cut -d: -f3)
    echo "cgroup $cg"
    if [ -n "$cg" ] && [ -f "/sys/fs/cgroup$cg/../memory.max" ]; then
        echo "controllers $(cat /sys/fs/cgroup$cg/cgroup.controllers)"
        echo "memory.max $(cat /sys/fs/cgroup$cg/../memory.max)"
    fi')
echo "$(wait_done "$JOB")"
cat "$DIR/cg.out"
if [ "$V2" -gt 0 ]; then
    grep -q "^controllers .*cpu.*memory.*pids" "$DIR/cg.out" ||
        grep -q "^controllers cpuset cpu memory pids" "$DIR/cg.out" ||
        bad "the job's cgroup lacks controllers"
    grep -q "^memory.max $((64 << 20))$" "$DIR/cg.out" ||
        bad "the job's memory.max is not 64 MiB"
fi

echo "== a job touching 512 MiB with --mem=64M"
JOB=$(sbatch --parsable --mem=64M -o "$DIR/oom.out" --wrap "python3 -c '
b = bytearray(512 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
print(\"survived\")'")
ST=$(wait_done "$JOB")
echo "$ST"; cat "$DIR/oom.out"
[ "$ST" = "JobState=OUT_OF_MEMORY" ] || bad "the job was not killed for memory"

device_result
