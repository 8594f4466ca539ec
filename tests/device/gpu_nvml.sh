#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# gres.conf AutoDetect=nvml on a real NVIDIA GPU (issue 16).  Builds
# nothing: give it a built tree.  Run as root from the repository root:
#
#   tests/device/gpu_nvml.sh [BUILD_DIR]      (default: $DROVER_BUILD_DIR,
#                                              else build-p)
#
# A one-node cluster from `drover up` whose gres.conf is AutoDetect=nvml:
# prints `scontrol show node`, runs `srun --gres=gpu:1 nvidia-smi -L` and
# `env | grep CUDA` in a job, and checks that the UUID droverrestd's
# /metrics gives the job's GPU (drover_job_gpu_info) is the one
# `nvidia-smi --query-gpu=index,uuid` gives for that index.  KEEP_LOGS=DIR
# leaves the cluster's logs and config in DIR.  Exits 0 when
# everything matches, 1 on a mismatch, 2 when it cannot run.
set -u

. "$(dirname "$0")/lib.sh"
device_init gpu_nvml "${1:-}" srun sbatch scontrol nvidia-smi python3

mapfile -t SMI < <(nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader)
NGPU=${#SMI[@]}
[ "$NGPU" -gt 0 ] || { echo "nvidia-smi lists no GPU"; exit 2; }
device_gpu_type
printf 'nvidia-smi: %s\n' "${SMI[@]}"
device_cluster "$NGPU"
echo "AutoDetect=nvml" >"$DIR/cluster/etc/gres.conf"
drover up --dir "$DIR/cluster" || exit 2

echo "== droverd's log"
grep "AutoDetect=nvml" "$DIR/cluster/log/droverd-node01.log"
echo "== scontrol show node"
scontrol show node node01 | tee "$DIR/node.txt"
grep -q "Gres=gpu:${TYPE:+$TYPE:}$NGPU" "$DIR/node.txt" ||
    bad "node's Gres= is not gpu:${TYPE:+$TYPE:}$NGPU"
grep -q "DRAIN" "$DIR/node.txt" && bad "node drained"

echo "== srun --gres=gpu:1 nvidia-smi -L"
srun --gres=gpu:1 nvidia-smi -L | tee "$DIR/job_smi.txt" || bad "srun failed"
echo "== srun --gres=gpu:1 env | grep CUDA"
srun --gres=gpu:1 env | grep CUDA | tee "$DIR/job_env.txt"
grep -qE '^CUDA_VISIBLE_DEVICES=[0-9]+$' "$DIR/job_env.txt" ||
    bad "CUDA_VISIBLE_DEVICES is not one GPU"

# ConstrainDevices=yes (drover up's cgroup.conf): a job given no GPU is
# refused the GPU's device node, one given the GPU opens it.
if [ -c /dev/nvidia0 ]; then
    echo "== open /dev/nvidia0 in a job without a GPU, then with one"
    OPEN='exec 3</dev/nvidia0 && echo opened || echo refused'
    srun bash -c "$OPEN" 2>&1 | tee "$DIR/open_none.txt"
    grep -q '^refused$' "$DIR/open_none.txt" ||
        bad "a job without a GPU opened /dev/nvidia0"
    srun -n1 nvidia-smi -L 2>&1 | head -3
    srun --gres=gpu:1 bash -c "$OPEN" 2>&1 | tee "$DIR/open_gpu.txt"
    grep -q '^opened$' "$DIR/open_gpu.txt" ||
        bad "a job given GPU 0 could not open /dev/nvidia0"
fi
# Real CUDA work in a job, where PyTorch is installed.
if python3 -c 'import torch' 2>/dev/null; then
    echo "== srun --gres=gpu:1 python3 (torch)"
    srun --gres=gpu:1 python3 -c '
import torch
n = torch.cuda.device_count()
print("torch sees", n, torch.cuda.get_device_name(0) if n else "")
print("sum", torch.ones(1 << 20, device="cuda").sum().item())' 2>&1 |
        tee "$DIR/torch.txt"
    grep -q "^torch sees 1 " "$DIR/torch.txt" || bad "torch does not see 1 GPU"
    grep -q "^sum 1048576.0$" "$DIR/torch.txt" || bad "CUDA work failed"
fi

echo "== /metrics"
JOB=$(sbatch --parsable --gres=gpu:1 -o /dev/null --wrap "sleep 120")
for _ in $(seq 60); do
    [ "$(scontrol show job "$JOB" | grep -o 'JobState=[A-Z]*')" = \
      "JobState=RUNNING" ] && break
    sleep 1
done
TOKEN=$(scontrol token | sed 's/^SLURM_JWT=//')
LINE=$(python3 - "$(cat "$DIR/cluster/etc/restd.addr")" "$TOKEN" "$JOB" <<'EOF'
import sys, urllib.request
addr, token, job = sys.argv[1:]
req = urllib.request.Request(f"http://{addr}/metrics",
                             headers={"X-SLURM-USER-TOKEN": token})
for l in urllib.request.urlopen(req, timeout=30).read().decode().splitlines():
    if l.startswith("drover_job_gpu_info{") and f'job_id="{job}"' in l:
        print(l)
EOF
)
echo "$LINE"
IDX=$(echo "$LINE" | grep -o 'gpu_index="[0-9]*"' | grep -o '[0-9]*')
UUID=$(echo "$LINE" | grep -o 'uuid="[^"]*"' | cut -d'"' -f2)
WANT=$(printf '%s\n' "${SMI[@]}" | awk -F', ' -v i="$IDX" '$1 == i {print $2}')
echo "metrics: index=$IDX uuid=$UUID; nvidia-smi: $WANT"
[ -n "$UUID" ] && [ "$UUID" = "$WANT" ] || bad "UUID in /metrics"
grep -q "$UUID" "$DIR/job_smi.txt" 2>/dev/null || [ "$NGPU" -gt 1 ] ||
    bad "the job's nvidia-smi -L does not show $UUID"
scancel "$JOB"

device_result
