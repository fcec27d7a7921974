#!/bin/sh
# Submit the shard array and, after it (whatever its outcome), the merge.
#   RUN=my-model-2026-12-01 ./submit.sh
set -eu
: "${RUN:?set RUN to the run name}"
mkdir -p logs
jid=$(sbatch --parsable --export=ALL,RUN="$RUN" shards.sbatch)
sbatch --dependency=afterany:"$jid" --export=ALL,RUN="$RUN" merge.sbatch
