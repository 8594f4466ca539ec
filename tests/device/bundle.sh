#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Packs a built tree for a bare machine that has no Drover dependencies
# installed (the device tool's GPU machines fetch no packages):
#
#   tests/device/bundle.sh [BUILD_DIR] [OUT_DIR]   (defaults: build-p, .dev)
#
# OUT_DIR/build-p holds the stripped programs at their build-tree paths
# (so `drover up` finds its daemons as it does in a build tree),
# OUT_DIR/sbin/munged this machine's munged, and OUT_DIR/lib every shared
# library they load that glibc does not provide.  On the other machine,
#
#   source tests/device/bundle_env.sh OUT_DIR
#
# adds to the loader cache only the libraries whose soname that machine
# lacks (never shadowing its own), and sets PATH and DROVER_MUNGED.
set -eu

BUILD=${1:-build-p}
OUT=${2:-.dev}
rm -rf "$OUT"
mkdir -p "$OUT/lib" "$OUT/sbin"

progs=$(find "$BUILD/src" -maxdepth 2 -type f -executable ! -name '*.so' \
        ! -path '*.p/*')
for p in $progs; do
    rel=${p#"$BUILD"/}
    mkdir -p "$OUT/build-p/$(dirname "$rel")"
    strip -o "$OUT/build-p/$rel" "$p"
done
cp /usr/sbin/munged "$OUT/sbin/munged"

# glibc's own libraries come from the target machine.
skip='^(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|linux-vdso)\.so'
ldd $progs "$OUT/sbin/munged" 2>/dev/null |
    awk '/=> \//{print $3}' | sort -u |
    while read -r lib; do
        base=$(basename "$lib")
        [[ $base =~ $skip ]] && continue
        cp -L "$lib" "$OUT/lib/$base"
    done
du -sh "$OUT"
