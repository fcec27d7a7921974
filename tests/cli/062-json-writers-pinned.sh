# The JSON writers keep their bytes now that they go through json.c (issue 15): summary.json of a
# depth run with a named axis and a closed-book control and of an order run, `runs --json`,
# `compare --json`, its JUnit XML and its Markdown, for seeded serve-sim runs, equal
# 062-json-writers-pinned.out, which was made by the cJSON writers before the move. Only what
# changes per invocation is masked: timestamps, the endpoint's port, dipmap's version and commit,
# the scratch and repository paths. A new summary.json field (a schema-2 addition) updates the
# .out file in the same commit.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model base --model cand:start=0.4
args=(--endpoint "$SIM_URL" --dataset "$REPO/datasets/needle.jsonl"
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --template "$REPO/prompts/qa-both.txt"
    --progress none --db t.db)
expect_code 0 "$DIPMAP" run "${args[@]}" --lengths 1k --depths 0,100 --question-at end,start \
    --controls closed-book --model base --run b
expect_code 0 "$DIPMAP" run "${args[@]}" --lengths 1k --depths 0,100 --question-at end,start \
    --controls closed-book --model cand --run c
expect_code 0 "$DIPMAP" run "${args[@]}" --experiment order --policies source,best-first --k 2,4 \
    --budget 2000 --model base --run o
expect_code 0 "$DIPMAP" report b --db t.db --format json --no-plots --out rb
expect_code 0 "$DIPMAP" report o --db t.db --format json --no-plots --out ro
# a store without a depth run to take expectations from: "expected" and its interval are null
expect_code 0 "$DIPMAP" run "${args[@]}" --experiment order --policies source,best-first --k 2,4 \
    --budget 2000 --model base --run o --db o.db
expect_code 0 "$DIPMAP" report o --db o.db --format json --no-plots --out ro2
"$DIPMAP" runs --db t.db --json >runs.json || fail "runs --json failed"
"$DIPMAP" compare b c --db t.db --json compare.json --junit junit.xml >compare.md 2>compare.err
# a planted drop at start, 36 questions: FAIL, or INCONCLUSIVE where the anytime-valid bounds
# cannot yet claim "worse by more than the margin" (the bytes are what this test pins)
case $? in 1 | 4) ;; *) fail "compare b c should not PASS (a planted drop at start)" ;; esac
mask() {
    sed -E -e 's/("(created_at|started_at|finished_at|heartbeat_at)":[[:space:]]*)[0-9.e+]+/\1T/' \
        -e 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g' \
        -e 's/("dipmap_(version|commit)":[[:space:]]*)"[^"]*"/\1"V"/' \
        -e 's/(timestamp|time)="[^"]*"/\1="T"/g' -e "s#$REPO#REPO#g" -e "s#$PWD#SCRATCH#g" "$1"
}
for f in rb/summary.json ro/summary.json ro2/summary.json runs.json compare.json junit.xml compare.md; do
    echo "== $f"
    mask "$f"
done
