# Statistics on degenerate runs (issue 19): a model that is wrong everywhere
# has no effective length (not "8k (every depth reaches 0.0%)" with a
# threshold of 0); one question x 12 repeats gets a dip interval that spans
# the whole range instead of a zero-width one, a cell design effect of 12,
# and the small-sample warnings in summary.md, report.html and summary.json.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --model zero:edge=0,dip=0 --model sim:edge=0.9,dip=0.5
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model zero --lengths 2k --depths 0,50,100 \
    --db t.db --run zero
expect_code 0 "$DIPMAP" report zero --db t.db --out rz --no-plots
assert_contains rz/summary.md "**effective length:** undefined: the shortest length's edge accuracy is 0.0%"
assert_not_contains rz/summary.md "every depth reaches 0.0%"
python3 - rz/summary.json <<'PY' || fail "summary.json effective_length"
import json, sys
e = json.load(open(sys.argv[1]))["effective_length"]
assert e["threshold"] is None and e["length"] is None and e["reference_accuracy"] is None, e
PY

# one question (the first of the set), 12 repeats
head -n1 golden.jsonl >one.jsonl
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --dataset one.jsonl --model sim --lengths 6k \
    --depths 0,50,100 --repeats 12 --db t.db --run one
expect_code 0 "$DIPMAP" report one --db t.db --out r1 --no-plots
assert_contains r1/summary.md "**warning:** only 1 question carry a result"
assert_contains r1/summary.md "**warning:** 12 repeats exceed the 1 question"
assert_contains r1/summary.md "rest on fewer than 10 questions"
assert_contains r1/report.html "12 repeats exceed the 1 question"
python3 - r1/summary.json <<'PY' || fail "summary.json of one question"
import json, sys
d = json.load(open(sys.argv[1]))
L = d["lengths"][0]
assert L["questions"] == 1, L["questions"]
assert (L["dip"]["lo"], L["dip"]["hi"]) == (-1, 1), L["dip"]
assert (L["dip_worst"]["lo"], L["dip_worst"]["hi"]) == (-1, 1), L["dip_worst"]
for c in d["cells"]:
    assert c["design_effect"] == 12 and c["questions"] == 1, c
assert len(d["warnings"]) == 3, d["warnings"]
PY
