# An answer cut at the answer budget (finish_reason length) is scored on what it said and
# counted as "cut" in coverage; "truncated" stays for prompts the server shortened.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl
run_args
# kv answers are UUIDs (about 25 tokens): 4 tokens cut every one; the contains scorer still
# credits the gold when what was said contains it, here never (a UUID prefix)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run r --max-tokens 4
assert_contains out "outcomes: correct 0 wrong 9 overflow 0 truncated 0"
assert_contains out "cut: 9 scored answer(s) reached the answer budget"
assert_contains out "accuracy: 0.0% (0 of 9 scored trials)"
[ "$(q t.db "select count(*) from trials where outcome = 'wrong' and cut = 1 and finish_reason = 'length'")" = 9 ] ||
    fail "cut answers not scored: $(q t.db "select outcome, cut, finish_reason from trials")"
# a budget the answer fits: nothing cut
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run full
[ "$(n_trials full "cut = 0 and outcome in ('correct','wrong')")" = 9 ] || fail "full answers flagged cut"
expect_code 0 "$DIPMAP" report r --db t.db --out rep --format md,json --no-plots
python3 - <<'PY' || fail "report: cut not in coverage"
import json
s = json.load(open("rep/summary.json"))
assert s["totals"]["cut"] == 9 and s["totals"]["valid"] == 9, s["totals"]
assert all(c["cut"] == 3 for c in s["cells"]), s["cells"]
md = open("rep/summary.md").read()
sec = md[md.index("## Coverage per outcome"):]
head = [c.strip() for c in [l for l in sec.splitlines() if l.startswith("|")][0].strip("|").split("|")]
assert head[-1] == "cut", head
PY
