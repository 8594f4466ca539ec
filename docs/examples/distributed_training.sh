#!/bin/bash
#SBATCH --job-name=ddp
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:2
#SBATCH --time=00:10:00
# The usual distributed-training launch: one launcher task per node (srun),
# each starting one worker per GPU; the first node is the rendezvous host.
export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=29500
export WORLD_SIZE=$((SLURM_NNODES * 2))
srun bash -c '
for local_rank in 0 1; do
    (
        export LOCAL_RANK=$local_rank RANK=$((SLURM_NODEID * 2 + local_rank))
        echo "worker rank=$RANK/$WORLD_SIZE node=$SLURM_NODEID procid=$SLURM_PROCID local=$LOCAL_RANK host=$SLURMD_NODENAME master=$MASTER_ADDR:$MASTER_PORT gpus=$CUDA_VISIBLE_DEVICES"
    ) &
done
wait'
