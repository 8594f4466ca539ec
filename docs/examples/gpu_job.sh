#!/bin/bash
#SBATCH --job-name=gpu-job
#SBATCH --partition=debug
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=4
#SBATCH --gres=gpu:2
#SBATCH --mem=32G
#SBATCH --time=01:00:00
#SBATCH --output=gpu_output_%j.log
#SBATCH --error=gpu_error_%j.log

# A GPU job: the node daemon hands it two GPUs through CUDA_VISIBLE_DEVICES.
echo "Job ID: $SLURM_JOB_ID"
echo "Running on nodes: $SLURM_JOB_NODELIST"
echo "CUDA_VISIBLE_DEVICES: $CUDA_VISIBLE_DEVICES"
nvidia-smi 2>/dev/null || echo "(no nvidia-smi: the GPUs of a drover up cluster are fake devices)"
sleep 5
echo "Done"
