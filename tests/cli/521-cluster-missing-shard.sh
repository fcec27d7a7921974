# A shard that never ran is reported, not dropped: the Kubernetes example's shard commands run
# for indices 0, 1 and 3 only (index 2 = shard 3/4 never finished), the merge Job's commands
# merge the three stores and say the run is incomplete with shard 3/4 missing (merge, runs,
# runs --json, the report); rerunning index 2 and merging again completes the run.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
EX=$REPO/examples
make_kv 4
start_sim sim --dataset golden.jsonl
top=$PWD
mkdir -p data etc work && ln -s "$DIPMAP" work/dipmap
export PATH="$top/work:$PATH" # the image has dipmap on the PATH (the examples call it by name)
cat >etc/run.json <<EOF2
{"endpoint": ["$SIM_URL"], "model": "dipmap-sim", "dataset": "$top/golden.jsonl",
 "haystack": "$top/hay.jsonl", "template": "$REPO/prompts/kv.txt", "scorer": "kv",
 "lengths": ["1k"], "depths": "0:100:25", "repeats": 2, "progress": "none"}
EOF2
block() {
    awk -v b="# dipmap-$2-begin" -v e="# dipmap-$2-end" '
        { line = $0; sub(/^[ \t]+/, "", line) }
        line == e { inb = 0 }
        inb { if (ind == "") { match($0, /^[ \t]*/); ind = RLENGTH } print substr($0, ind + 1) }
        line == b { inb = 1 }' "$1"
}
block "$EX/kubernetes/shards-job.yaml" shard | sed "s#/data/#$top/data/#g; s#/etc/dipmap/#$top/etc/#g" >shard.sh
block "$EX/kubernetes/merge-job.yaml" merge | sed "s#/data/#$top/data/#g" >merge.sh
run=$(sed -n 's/.*name: RUN, value: \([^ }]*\)}.*/\1/p' "$EX/kubernetes/shards-job.yaml" | head -n 1)
shard() {
    (cd work && env -u SLURM_ARRAY_TASK_ID -u CI_NODE_INDEX JOB_COMPLETION_INDEX=$1 DIPMAP_SHARD_COUNT=4 \
        RUN=$run /bin/sh "$top/shard.sh") >shard$1.log 2>&1 || fail "shard $1: $(tail -5 shard$1.log)"
}
for i in 0 1 3; do shard $i; done
(cd work && RUN=$run /bin/sh "$top/merge.sh") >merge.log 2>&1 || fail "merge job: $(tail -5 merge.log)"
assert_contains merge.log "incomplete: shard 3/4 missing"
grep -q "$run .*complete" merge.log && ! grep -q "$run .*incomplete" merge.log && fail "runs called it complete: $(cat merge.log)"
expect_code 0 "$DIPMAP" runs --db "data/$run.db" --json
python3 -c 'import json; (r,) = json.load(open("out")); assert r["missing_shards"] == "3/4", r' ||
    fail "runs --json: $(cat out)"
grep -q "incomplete: shard 3/4 missing" "data/reports/$run/summary.md" || fail "the report does not say shard 3/4 is missing"
# the Job restarts index 2; the merge Job runs again and the run is complete
shard 2
rm -f "data/$run.db"
(cd work && RUN=$run /bin/sh "$top/merge.sh") >merge2.log 2>&1 || fail "second merge: $(tail -5 merge2.log)"
assert_not_contains merge2.log "incomplete"
expect_code 0 "$DIPMAP" runs --db "data/$run.db" --json
python3 -c 'import json; (r,) = json.load(open("out")); assert r["missing_shards"] is None and r["status"] == "complete" and r["trials_done"] == 40, r' ||
    fail "runs --json after shard 3/4: $(cat out)"
exit 0
