#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: install what is missing, build, start a local
# 4-node cluster with 8 fake GPUs per node, run a CPU job and a GPU job on
# it, and leave it running.
#   DROVER_DEMO_DIR=/tmp/drover-demo (default)   the cluster's directory
#   BUILD_DIR=build (default)                    where to build
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$PWD
DEMO_DIR=${DROVER_DEMO_DIR:-/tmp/drover-demo}
BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(meson ninja-build pkg-config gcc g++ libc6-dev libsimdjson-dev libjansson-dev
          libuv1-dev libraft-dev libmunge-dev munge libcmocka-dev python3-pytest
          uthash-dev libsqlite3-dev libpq-dev postgresql libpmix-dev
          nettle-dev zlib1g-dev liblz4-dev libmicrohttpd-dev libjwt-dev libhwloc-dev
          libbpf-dev curl)  # libplplot-dev: drover-sim --plot (optional)

step() { printf '\n==> %s\n' "$*"; }

install_missing() {
    local missing=() p sudo=
    for p in "${PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
                | grep -q 'install ok installed'; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    step "Installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        sudo=sudo
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y \
        --no-install-recommends "${missing[@]}"
}

build() {
    step "Building in $BUILD_DIR"
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        meson setup "$BUILD_DIR"
    fi
    meson compile -C "$BUILD_DIR"
}

# Wait (at most $2 seconds) until job $1 has left the queue.
wait_job() {
    local id=$1 limit=$2 waited=0
    while squeue -h -o %i | grep -qx "$id"; do
        if [ "$waited" -ge "$limit" ]; then
            echo "job $id still in the queue after ${limit}s:" >&2
            squeue >&2
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
}

show() {
    local f
    for f in "$@"; do
        if [ -s "$f" ]; then
            echo "--- $f"
            cat "$f"
        fi
    done
}

install_missing
build
case $BUILD_DIR in
/*) BIN=$BUILD_DIR/src/cmd ;;
*) BIN=$REPO/$BUILD_DIR/src/cmd ;;
esac

step "Starting a local cluster in $DEMO_DIR"
"$BIN/drover" up --dir "$DEMO_DIR"
export DROVER_CONF=$DEMO_DIR/etc/slurm.conf
export PATH=$BIN:$PATH

step "sinfo"
sinfo

step "Submitting docs/examples/cpu_job.sh and docs/examples/gpu_job.sh"
JOBS_DIR=$DEMO_DIR/jobs
mkdir -p "$JOBS_DIR"
cd "$JOBS_DIR"
cpu=$(sbatch --parsable "$REPO/docs/examples/cpu_job.sh")
gpu=$(sbatch --parsable "$REPO/docs/examples/gpu_job.sh")
echo "CPU job: $cpu   GPU job: $gpu"

step "squeue"
squeue

step "Waiting for jobs $cpu and $gpu"
wait_job "$cpu" 120
wait_job "$gpu" 120

step "Their output (in $JOBS_DIR)"
show "output_$cpu.log" "error_$cpu.log" "gpu_output_$gpu.log" \
     "gpu_error_$gpu.log"

step "The same queue over REST (droverrestd, a token from scontrol token)"
REST=$(cat "$DEMO_DIR/etc/restd.addr")
eval "$(scontrol token)"
curl -s -H "X-SLURM-USER-TOKEN: $SLURM_JWT" "http://$REST/slurm/v0.0.38/jobs" \
    | grep -E '"(job_id|name|job_state)"' || true

step "The cluster is still running"
cat <<EOT
Use it from a shell:
  export DROVER_CONF=$DROVER_CONF
  export PATH=$BIN:\$PATH
  sinfo; squeue; sbatch $REPO/docs/examples/gpu_job.sh
  eval \$(scontrol token); curl -H "X-SLURM-USER-TOKEN: \$SLURM_JWT" http://$REST/metrics
Stop it:
  $BIN/drover down --dir $DEMO_DIR
EOT
