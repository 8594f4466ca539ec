#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build Drover and run the whole test suite: unit tests (seconds) and the
# end-to-end tests, which start real local clusters with `drover up`.
#   BUILD_DIR=build (default)   where to build
#   extra arguments go to `meson test` (e.g. --suite unit)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    meson setup "$BUILD_DIR"
fi
meson compile -C "$BUILD_DIR"
meson test -C "$BUILD_DIR" --print-errorlogs "$@"
