#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build the fuzz targets with clang's libFuzzer, ASan and UBSan, and fuzz
# each one (tests/fuzz/README.md).
#   FUZZ_SECONDS=60 (default)   time per target
#   FUZZ_RUNS=N                 executions per target instead of a time
#   BUILD_DIR=build-fuzz        where to build
#   arguments: the targets to run (default: all)
# New inputs that reach new code go to build-fuzz/corpus/NAME (the
# committed seeds in tests/fuzz/corpus/NAME are only read); a crash leaves
# its input in the current directory and fails the run.
set -euo pipefail

cd "$(dirname "$0")/.."
# Inputs name file descriptors (sbatch's --export-file=N reads descriptor
# N, as Slurm's): one inherited from the caller, a pipe, would block a
# target until libFuzzer calls it a timeout.  None is kept open above 2.
for fd in $(ls /proc/$$/fd); do
    [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null || true
done
BUILD_DIR=${BUILD_DIR:-build-fuzz}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(frame conf specs sbatch jwt rest_submit swf rows)
fi
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    CC=clang CXX=clang++ meson setup "$BUILD_DIR" -Dfuzz=true \
        -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false \
        -Dman=disabled
fi
ninja -C "$BUILD_DIR" "${targets[@]/#/tests/fuzz/fuzz_}"
for t in "${targets[@]}"; do
    work=$BUILD_DIR/corpus/$t
    mkdir -p "$work"
    limit=(-max_total_time="${FUZZ_SECONDS:-60}")
    if [ -n "${FUZZ_RUNS:-}" ]; then
        limit=(-runs="$FUZZ_RUNS")
    fi
    echo "== fuzz_$t ${limit[*]}"
    log=$BUILD_DIR/fuzz_$t.log
    rc=0
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$BUILD_DIR/tests/fuzz/fuzz_$t" "${limit[@]}" -max_len=65536 \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
    grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|SUMMARY)" "$log" || true
    if [ "$rc" -ne 0 ]; then
        tail -60 "$log" >&2
        echo "fuzz_$t: FAILED (rc $rc, log $log)" >&2
        exit 1
    fi
done
