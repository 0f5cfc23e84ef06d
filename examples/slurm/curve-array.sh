#!/bin/bash
#SBATCH --job-name=pmlopt-curve
#SBATCH --output=pmlopt-curve-%A_%a.out
#SBATCH --cpus-per-task=1
#
# One shard of a pmlopt trade-off curve per task of a Slurm job array
# (see README.md beside this script):
#
#   sbatch --array=1-8 curve-array.sh problem.yaml [curve flags...]
#   pmlopt merge problem.yaml part-*.jsonl --json > curve.json
#
# Task K of an array 1-N runs
#   pmlopt curve FILE --shard K/N --jsonl [curve flags...]
# and writes part-K.jsonl into $PMLOPT_PARTS (default: the job's working
# directory, where sbatch ran unless --chdir), one line per threshold as it
# settles. N is the array's
# largest task id; to rerun shard 3 of 8 alone:
#   sbatch --array=3 --export=ALL,PMLOPT_SHARDS=8 curve-array.sh problem.yaml
# $PMLOPT names the pmlopt binary (default: pmlopt on the PATH).
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: sbatch --array=1-N $0 FILE [curve flags...]" >&2
	exit 2
fi
K=${SLURM_ARRAY_TASK_ID:?not a job-array task: submit with sbatch --array=1-N}
N=${PMLOPT_SHARDS:-${SLURM_ARRAY_TASK_MAX:?not a job-array task}}
file=$1
shift
dir=${PMLOPT_PARTS:-.}

# The part is written as the thresholds settle: a task stopped by the
# scheduler keeps what it settled, and merge names what is missing.
exec "${PMLOPT:-pmlopt}" curve "$file" --shard "$K/$N" --jsonl --quiet \
	--workers "${SLURM_CPUS_PER_TASK:-1}" "$@" >"$dir/part-$K.jsonl"
