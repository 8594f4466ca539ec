# SPDX-License-Identifier: Apache-2.0
#
# Sourced on a bare machine, as root, with the folder tests/device/bundle.sh
# made:   source tests/device/bundle_env.sh [BUNDLE_DIR]   (default .dev)
#
# Copies into /opt/drover-bundle-lib the bundled libraries whose soname
# the machine's loader cache lacks (the machine's own are never shadowed),
# registers that folder with ldconfig, and exports PATH (the bundled
# commands first), DROVER_BUILD_DIR and DROVER_MUNGED.

_bundle=$(cd "${1:-.dev}" && pwd)
mkdir -p /opt/drover-bundle-lib
for _lib in "$_bundle"/lib/*; do
    _name=$(basename "$_lib")
    ldconfig -p | grep -q "^[[:space:]]*$_name " ||
        cp "$_lib" /opt/drover-bundle-lib/
done
echo /opt/drover-bundle-lib >/etc/ld.so.conf.d/zz-drover-bundle.conf
ldconfig
echo "bundle: added $(ls /opt/drover-bundle-lib | wc -l) libraries:" \
     $(ls /opt/drover-bundle-lib)
export DROVER_BUILD_DIR="$_bundle/build-p"
export DROVER_MUNGED="$_bundle/sbin/munged"
export PATH="$DROVER_BUILD_DIR/src/cmd:$PATH"
for _p in "$DROVER_BUILD_DIR"/src/*/* "$DROVER_MUNGED"; do
    ldd "$_p" 2>/dev/null | grep "not found" | sed "s|^|$(basename "$_p"): |"
done
unset _bundle _lib _name _p
