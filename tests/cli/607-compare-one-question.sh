# compare treats the question as the unit (issue 19): one question x 12
# repeats of a model with a much deeper dip was a FAIL on trial-level McNemar
# (repeats counted as independent pairs); as one cluster no test can reach
# p < alpha, so it is not FAIL; nor can one question bound the drop, so it is
# INCONCLUSIVE (exit 4), and the Markdown and --json say why.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
head -n1 golden.jsonl >one.jsonl
start_sim sim --dataset one.jsonl --model base:edge=0.95,dip=0.0 --model deep:edge=0.95,dip=1.0
run_args
for m in base deep; do
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --dataset one.jsonl --model $m --lengths 6k \
        --depths 0,50,100 --repeats 12 --db t.db --run $m
done
expect_code 4 "$DIPMAP" compare base deep --db t.db --json c.json
assert_contains out "Warning: only 1 question carry a result"
assert_contains out "Warning: 12 repeats exceed the 1 question"
assert_contains out "sign-flip test over questions"
python3 - c.json <<'PY' || fail "compare JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "INCONCLUSIVE" and d["questions"] == 1, d["verdict"]
mid = [t for t in d["tests"] if t["scope"] == "cell" and t["depth"] == 0.5][0]
assert mid["lost"] >= 5 and mid["questions"] == 1, mid     # a real drop ...
assert mid["p_drop"] > 0.05, mid["p_drop"]                 # ... but one cluster
assert len(d["warnings"]) == 3, d["warnings"]
PY
