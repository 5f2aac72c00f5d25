#!/bin/bash
# Slurm array job: each task computes one contiguous range of query rows of the same
# `attn attend` run; `attn concat` joins the shards afterwards. The rows of every shard are
# bitwise identical to the same rows of the whole run, so the joined file equals it.
#
#   sbatch --array=0-3 data/shard/slurm.sh ROWS OUTDIR ATTEND-ARGS...
#     ROWS    number of query rows (T of -x, or Tq of -q)
#     OUTDIR  a directory every node can write (shared file system)
#   then, once the array has finished (or from a job submitted with
#   --dependency=afterok:JOBID), join along the query-row axis (-2 for every --show name):
#     attn concat OUTDIR/shard-*.npy --axis -2 --format npy -o result.npy
#
# Example (4 tasks of 8 threads):
#   sbatch --array=0-3 --cpus-per-task=8 data/shard/slurm.sh 4096 /scratch/run1 \
#       -x x.npy --heads 8 --in-proj in_proj_weight.npy --causal --show output
# ATTN names the binary when it is not `attn` on the PATH.
#SBATCH --job-name=attn-shard
#SBATCH --output=attn-shard-%A_%a.log
set -euo pipefail
attn=${ATTN:-attn}
rows=$1 outdir=$2
shift 2
task=${SLURM_ARRAY_TASK_ID:?run with sbatch --array=0-N}
tasks=${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=0-N}
first=$(( task * rows / tasks ))
last=$(( (task + 1) * rows / tasks ))
threads=()
[ -n "${SLURM_CPUS_PER_TASK:-}" ] && threads=(--threads "$SLURM_CPUS_PER_TASK")
mkdir -p "$outdir"
# Zero-padded task numbers keep the shell's glob order equal to the row order.
"$attn" attend "$@" "${threads[@]}" --query-rows "$first:$last" \
    --format npy -o "$outdir/shard-$(printf %05d "$task").npy"
