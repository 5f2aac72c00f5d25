#!/bin/bash
# Slurm array job over keys: each task attends to one contiguous range of keys of the same
# `attn attend` run (--key-rows; every mask keeps the global key index) and writes that
# shard's context and log-sum-exp; `attn merge` combines the shards afterwards (FlashDecoding's
# split-K across nodes). The merged context is within float32 rounding of the whole run, with
# the same bits whatever order the shards are listed in. Use it when K and V outgrow one node;
# data/shard/slurm.sh splits query rows instead.
#
#   sbatch --array=0-3 data/shard/slurm-keys.sh KEYS OUTDIR ATTEND-ARGS...
#     KEYS    number of keys (Tk: the rows of -k/-v, or T of --kv / -x)
#     OUTDIR  a directory every node can write (shared file system)
#   then, once the array has finished (or from a job submitted with
#   --dependency=afterok:JOBID):
#     attn merge OUTDIR/shard-*.npz --show context --format npy -o context.npy
#
# Example (4 tasks of 8 threads, one long decoding step):
#   sbatch --array=0-3 --cpus-per-task=8 data/shard/slurm-keys.sh 1048576 /scratch/run1 \
#       -q q.npy -k k.npy -v v.npy --causal=bottom-right
# ATTN names the binary when it is not `attn` on the PATH. The ATTEND-ARGS must not choose
# --show or the output: each task writes --show context,lse as npz.
#SBATCH --job-name=attn-key-shard
#SBATCH --output=attn-key-shard-%A_%a.log
set -euo pipefail
attn=${ATTN:-attn}
keys=$1 outdir=$2
shift 2
task=${SLURM_ARRAY_TASK_ID:?run with sbatch --array=0-N}
tasks=${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=0-N}
first=$(( task * keys / tasks ))
last=$(( (task + 1) * keys / tasks ))
threads=()
[ -n "${SLURM_CPUS_PER_TASK:-}" ] && threads=(--threads "$SLURM_CPUS_PER_TASK")
mkdir -p "$outdir"
"$attn" attend "$@" "${threads[@]}" --key-rows "$first:$last" --show context,lse \
    --format npz -o "$outdir/shard-$(printf %05d "$task").npz"
