#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# gres/mps on a real NVIDIA GPU with the MPS daemon started by a Prolog
# (docs/examples/prolog-mps.sh), as Slurm leaves it to its prolog (issue
# 16).  Builds nothing: give it a built tree.  As root, from the
# repository root:
#
#   tests/device/gpu_mps.sh [BUILD_DIR]   (default: $DROVER_BUILD_DIR,
#                                         else build-p)
#
# A one-node cluster (AutoDetect=nvml, Gres=gpu:<type>:1,mps:100): a
# --gres=mps:50 step sees CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50, runs CUDA
# work (PyTorch) through the MPS server the Prolog's daemon started (the
# control daemon lists it), then a --gres=gpu:1 step's Prolog stops MPS.
# Exits 0 when everything matches, 1 on a mismatch, 2 when it cannot run.
set -u

BUILD=$(cd "${1:-${DROVER_BUILD_DIR:-build-p}}" && pwd) || exit 2
REPO=$(pwd)
export PATH="$BUILD/src/cmd:$PATH"
fail=0
bad() { echo "MISMATCH: $*"; fail=1; }
for p in drover srun nvidia-smi nvidia-cuda-mps-control python3; do
    command -v "$p" >/dev/null || { echo "missing: $p"; exit 2; }
done
python3 -c 'import torch' 2>/dev/null || { echo "missing: torch"; exit 2; }

TYPE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 |
       grep -oiE '\b[A-Z]{1,2}[0-9]{2,3}\b' | head -1 | tr 'A-Z' 'a-z')
DIR=$(mktemp -d /tmp/drover-gpu-mps.XXXXXX) || exit 2
chmod 755 "$DIR"
export DROVER_CONF="$DIR/cluster/etc/slurm.conf"
keep_logs() {
    [ -n "${KEEP_LOGS:-}" ] &&
        tar czf "$KEEP_LOGS/gpu_mps_logs.tgz" -C "$DIR/cluster" log etc
}
trap 'drover down --dir "$DIR/cluster" >/dev/null 2>&1; keep_logs;
      echo quit | nvidia-cuda-mps-control >/dev/null 2>&1; rm -rf "$DIR"' EXIT
drover up --dir "$DIR/cluster" --nodes=1 --gpus-per-node=1 \
    ${TYPE:+--gpu-type="$TYPE"} >/dev/null &&
    drover down --dir "$DIR/cluster" >/dev/null || exit 2
sed -i -e 's/^GresTypes=gpu$/GresTypes=gpu,mps/' \
    -e "s/Gres=gpu:${TYPE:+$TYPE:}1/Gres=gpu:${TYPE:+$TYPE:}1,mps:100/" \
    "$DROVER_CONF"
echo "Prolog=$REPO/docs/examples/prolog-mps.sh" >>"$DROVER_CONF"
printf 'AutoDetect=nvml\nName=mps Count=100\n' >"$DIR/cluster/etc/gres.conf"
grep -E '^(GresTypes|NodeName|Prolog)' "$DROVER_CONF"
drover up --dir "$DIR/cluster" >/dev/null || exit 2
scontrol show node node01 | grep -E 'Gres=|State='

echo "== srun --gres=mps:50: CUDA through MPS"
srun --gres=mps:50 bash -c '
echo PCT=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
python3 -c "
import torch
x = torch.ones(1 << 20, device=\"cuda\")
print(\"sum\", x.sum().item())"
echo servers=$(echo get_server_list | nvidia-cuda-mps-control)' 2>&1 |
    tee "$DIR/mps.txt"
grep -q '^PCT=50$' "$DIR/mps.txt" || bad "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"
grep -q '^sum 1048576.0$' "$DIR/mps.txt" || bad "CUDA work under MPS"
grep -qE '^servers=[0-9]+' "$DIR/mps.txt" || bad "no MPS server"
pgrep -f "nvidia-cuda-mps-control -d" >/dev/null || bad "no MPS control daemon"

echo "== srun --gres=gpu:1: the Prolog stops MPS"
srun --gres=gpu:1 nvidia-smi -L || bad "whole-GPU step"
sleep 1
pgrep -f "nvidia-cuda-mps-control -d" >/dev/null && bad "MPS still running"

[ "$fail" = 0 ] && echo "gpu_mps: OK" || echo "gpu_mps: FAILED"
exit "$fail"
