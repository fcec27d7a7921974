# run --controls closed-book,oracle (issue 19): per question and repeat one
# prompt with no documents and one with the gold chunk alone, same template
# and answer budget, stored as length 0 / depth -1 and -2 (trial.h); the
# report shows both next to the curve and uses the oracle as the
# effective-length reference; compare leaves them out of its tests;
# --exclude-known is accepted by report and compare and says which set it
# shows. serve-sim never answers without the gold chunk, so closed-book is 0%.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 12
start_sim sim --dataset golden.jsonl --model m:edge=0.9,dip=0.6
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000 --depths 0,50,100 \
    --repeats 2 --controls closed-book,oracle --db t.db --run c1
# 12 questions x 3 depths x 2 repeats + 12 x 2 repeats x 2 controls
assert_contains out "trials: 120 of 120 done"
[ "$(q t.db "select count(*) from trials where length = 0 and depth_bp = -1")" = 24 ] ||
    fail "closed-book trials"
[ "$(q t.db "select count(*) from trials where length = 0 and depth_bp = -2")" = 24 ] ||
    fail "oracle trials"
# closed-book prompts carry no document, the oracle's only the gold one (the sim logs gold)
python3 - sim.log <<'PY' || fail "control prompts"
import json, sys
small = [json.loads(l) for l in open(sys.argv[1])]
small = [d for d in small if d["route"].endswith("/completions") and d["T"] < 1000]
assert len(small) == 48, len(small)
assert sum(d["gold"] for d in small) == 24, [d["gold"] for d in small]
PY
expect_code 0 "$DIPMAP" report c1 --db t.db --out r --no-plots
assert_contains r/summary.md "**controls:** closed-book (no documents) 0.0%"
assert_contains r/summary.md "oracle (the gold chunk alone)"
assert_contains r/summary.md "**question set:** all 12 questions, 0 of them answered correctly closed-book"
assert_contains r/summary.md "of the oracle control's accuracy"
python3 - r/summary.json <<'PY' || fail "summary.json controls"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["controls"]
assert c["closed_book"]["valid"] == 24 and c["closed_book"]["correct"] == 0, c
assert c["oracle"]["valid"] == 24 and c["oracle"]["accuracy"] > 0.5, c
assert d["question_set"] == {"kind": "all", "questions": 12, "known": 0}, d["question_set"]
assert d["effective_length"]["reference"] == "oracle"
assert [x["depth_bp"] for x in d["cells"]] == [0, 5000, 10000]
PY
# the U-curve draws both controls as levels across the depths
if has_tool gnuplot DIPMAP_REQUIRE_GNUPLOT; then
    expect_code 0 "$DIPMAP" report c1 --db t.db --out rp --format html
    assert_contains rp/ucurve.svg "closed-book (no documents) 0.0%"
    assert_contains rp/ucurve.svg "oracle (gold chunk alone)"
fi
expect_code 0 "$DIPMAP" report c1 --db t.db --out r2 --no-plots --exclude-known
assert_contains r2/summary.md "the 0 answered correctly closed-book are left out (--exclude-known)"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000 --depths 0,50,100 \
    --repeats 2 --controls closed-book,oracle --db t.db --run c2 --seed 1
expect_code 0 "$DIPMAP" compare c1 c2 --db t.db --exclude-known --json c.json --pass-rule no-regression
assert_contains out "golden set: 12 questions paired (sha256 "
assert_contains out "; closed-book known questions left out)"
python3 -c 'import json,sys; d=json.load(open("c.json")); assert all(t["length"] in (None, 3000) for t in d["tests"]) and d["exclude_known"] is True' ||
    fail "compare tested a control"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --model m --lengths 3000 --controls book --db t.db --run bad
assert_contains err "--controls: unknown control 'book' (known: closed-book, oracle)"
