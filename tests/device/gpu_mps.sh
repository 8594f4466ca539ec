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

. "$(dirname "$0")/lib.sh"
REPO=$(pwd)
device_init gpu_mps "${1:-}" srun scontrol nvidia-smi nvidia-cuda-mps-control \
    python3
python3 -c 'import torch' 2>/dev/null || { echo "missing: torch"; exit 2; }
DEVICE_CLEANUP='echo quit | nvidia-cuda-mps-control >/dev/null 2>&1'
device_gpu_type
device_cluster 1
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

device_result
