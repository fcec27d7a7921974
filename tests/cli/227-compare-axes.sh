# compare pairs trials only within equal axis values: two runs crossing --question-at end,start
# pair every (question, length, depth, repeat, axes) key once (600 pairs, not 300 collapsed
# ones); a candidate that plants a drop at start only fails the gate; a candidate run without
# the start value leaves the baseline's start trials unpaired (baseline-only keys).
# 100 generated questions: the anytime-valid FAIL rule (issue 42) needs more than needle.jsonl's 36.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 100 --seed 1 --out needle-100.jsonl >/dev/null || fail "gen needle"
start_sim sim --dataset needle-100.jsonl --model base --model cand:start=0.4
args=(--endpoint "$SIM_URL" --dataset needle-100.jsonl
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --template "$REPO/prompts/qa-both.txt"
    --lengths 1k --depths 0,50,100 --progress none --db t.db)
expect_code 0 "$DIPMAP" run "${args[@]}" --model base --question-at end,start --run b
expect_code 0 "$DIPMAP" run "${args[@]}" --model cand --question-at end,start --run c
expect_code 1 "$DIPMAP" compare b c --db t.db --json cmp.json
python3 - <<'PY' || fail "compare did not pair within axis values"
import json
r = json.load(open("cmp.json"))
o = [t for t in r["tests"] if t["scope"] == "overall"][0]
assert o["keys"] == 600 and o["pairs"] == 600, o
assert r["baseline_only_keys"] == 0 and r["candidate_only_keys"] == 0, r
assert o["lost"] > o["gained"], o
PY
expect_code 0 "$DIPMAP" run "${args[@]}" --model base --question-at end --run e
"$DIPMAP" compare b e --db t.db --json cmp2.json >/dev/null 2>&1
python3 -c '
import json
r = json.load(open("cmp2.json"))
assert r["baseline_only_keys"] == 300 and r["candidate_only_keys"] == 0, r
' || fail "the start trials of b should be baseline-only against e"
