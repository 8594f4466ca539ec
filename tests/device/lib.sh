# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the device checks (tests/device/*.sh): the build, the
# result, a one-node cluster in a scratch directory.
#
#   device_init NAME BUILD_DIR TOOL...   PATH, fail/bad(), exit 2 when a
#                                        tool is missing; $DIR, $DROVER_CONF
#   device_gpu_type                      $TYPE: the first GPU's model in
#                                        lower case ("h100"), or ""
#   device_cluster GPUS                  drover up, then down: the
#                                        configuration to edit before
#                                        drover up starts it for good
#   device_result                        prints NAME: OK|FAILED, exits
#
# On exit the cluster goes down and $DIR is removed; with KEEP_LOGS=DIR
# its logs and configuration are left there as NAME_logs.tgz.

device_init() {
    DEVICE_NAME=$1
    BUILD=$(cd "${2:-${DROVER_BUILD_DIR:-build-p}}" && pwd) || exit 2
    shift 2
    export PATH="$BUILD/src/cmd:$PATH"
    fail=0
    for p in drover "$@"; do
        command -v "$p" >/dev/null || { echo "missing: $p"; exit 2; }
    done
    DIR=$(mktemp -d "/tmp/drover-$DEVICE_NAME.XXXXXX") || exit 2
    chmod 755 "$DIR"
    export DROVER_CONF="$DIR/cluster/etc/slurm.conf"
    trap device_cleanup EXIT
}

bad() { echo "MISMATCH: $*"; fail=1; }

device_cleanup() {
    drover down --dir "$DIR/cluster" >/dev/null 2>&1
    [ -n "${KEEP_LOGS:-}" ] && [ -d "$DIR/cluster/log" ] &&
        tar czf "$KEEP_LOGS/${DEVICE_NAME}_logs.tgz" -C "$DIR/cluster" log etc
    [ -n "${DEVICE_CLEANUP:-}" ] && eval "$DEVICE_CLEANUP"
    rm -rf "$DIR"
}

# Gres=gpu:h100:N when the name holds a model ("NVIDIA H100 80GB HBM3"):
# the configured type is matched as a substring of NVML's name, as Slurm.
device_gpu_type() {
    TYPE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 |
           grep -oiE '\b[A-Z]{1,2}[0-9]{2,3}\b' | head -1 | tr 'A-Z' 'a-z')
}

device_cluster() {
    drover up --dir "$DIR/cluster" --nodes=1 --gpus-per-node="$1" \
        ${TYPE:+--gpu-type="$TYPE"} >/dev/null &&
        drover down --dir "$DIR/cluster" >/dev/null || exit 2
}

device_result() {
    [ "$fail" = 0 ] && echo "$DEVICE_NAME: OK" || echo "$DEVICE_NAME: FAILED"
    exit "$fail"
}
