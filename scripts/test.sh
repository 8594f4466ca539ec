#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build Drover and run the whole test suite: unit tests (seconds) and the
# end-to-end tests, which start real local clusters with `drover up`.
#   BUILD_DIR=build (default)   where to build
#   SANITIZE=1                  build with address,undefined sanitizers
#                               (default BUILD_DIR then: build-asan)
#   DROVER_E2E_WORKERS=N        pytest workers for the end-to-end suite
#                               (default: the CPU count, at most 2; 1:
#                               serial; tests/e2e/run_e2e.py)
#   extra arguments go to `meson test` (e.g. --suite unit)
set -euo pipefail

cd "$(dirname "$0")/.."
setup_args=()
if [ "${SANITIZE:-0}" = 1 ]; then
    BUILD_DIR=${BUILD_DIR:-build-asan}
    setup_args=(-Db_sanitize=address,undefined -Db_lundef=false)
fi
BUILD_DIR=${BUILD_DIR:-build}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    meson setup "$BUILD_DIR" "${setup_args[@]}"
fi
meson compile -C "$BUILD_DIR"
if [ $# -gt 0 ]; then
    exec meson test -C "$BUILD_DIR" --print-errorlogs "$@"
fi
# Unit tests and the fuzz corpora first (seconds), then the end-to-end
# suite with pytest's own report shown.
meson test -C "$BUILD_DIR" --print-errorlogs --suite unit --suite bench --suite fuzz
meson test -C "$BUILD_DIR" --print-errorlogs --suite e2e --verbose
