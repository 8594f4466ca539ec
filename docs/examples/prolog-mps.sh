#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# A slurm.conf Prolog= for gres/mps (docs/config.md, Prolog): NVIDIA's MPS
# control daemon for the GPUs of jobs that ask --gres=mps:N, stopped when a
# job takes such a GPU whole.  Drover, like Slurm, leaves starting MPS to
# a prolog; this one follows the same rules as Slurm's etc/prolog.example.
#
# The Prolog's environment has the job's GPUs on this node in
# CUDA_VISIBLE_DEVICES (the node's indexes) and, for an MPS job, its share
# in CUDA_MPS_ACTIVE_THREAD_PERCENTAGE.  The GPU that MPS serves is kept
# in $STATE; the daemon uses NVIDIA's default pipe and log directories, so
# the job's CUDA programs find it without settings of their own.
STATE=${MPS_STATE_FILE:-/run/drover-mps-gpu}
MPS_CONTROL=${MPS_CONTROL:-nvidia-cuda-mps-control}

[ -n "$CUDA_VISIBLE_DEVICES" ] || exit 0 # no GPU: nothing to do
serving=$(cat "$STATE" 2>/dev/null)

stop_mps() {
    echo quit | "$MPS_CONTROL" >/dev/null 2>&1
    rm -f "$STATE"
}

if [ -n "$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" ]; then
    # an MPS job: a daemon for its GPU, started unless it runs already
    [ "$serving" = "$CUDA_VISIBLE_DEVICES" ] &&
        echo get_server_list | "$MPS_CONTROL" >/dev/null 2>&1 && exit 0
    [ -n "$serving" ] && stop_mps
    CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES "$MPS_CONTROL" -d || exit 1
    echo "$CUDA_VISIBLE_DEVICES" >"$STATE"
    exit 0
fi

# a job with whole GPUs: none of them may stay under MPS
if [ -n "$serving" ]; then
    case ",$CUDA_VISIBLE_DEVICES," in
    *",$serving,"*) stop_mps ;;
    esac
fi
exit 0
