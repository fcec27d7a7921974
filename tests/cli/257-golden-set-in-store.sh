# The golden set lives in the store: each run keeps the questions, answers and gold ids it used,
# content-addressed and once per store, so report shows questions and expected answers (and the
# hygiene note) without --dataset, even after the file is gone.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
python3 - <<'PY'
import json
rows = [json.loads(l) for l in open("golden.jsonl")]
rows[0]["distractors"][0]["text"] = "LEAKY " + rows[0]["answers"][0]
with open("set.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.5,dip=0.3
run_args
RUN_ARGS=("${RUN_ARGS[@]/golden.jsonl/set.jsonl}")
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db --run a
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run b
sha=$(python3 -c 'import hashlib; print(hashlib.sha256(open("set.jsonl","rb").read()).hexdigest())')
[ "$(q t.db "select count(*) from golden_sets")" = 1 ] || fail "the golden set is not kept once"
[ "$(q t.db "select sha256 = '$sha' and golden_sha256 = '$sha' from golden_sets, runs where name = 'a'")" = 1 ] ||
    fail "kept under another hash"
q t.db "select content from golden_sets" >kept
cmp <(head -c "$(wc -c <set.jsonl)" kept) set.jsonl || fail "kept content differs from the file"
# the file is gone: report still shows the questions of failed trials and the hygiene note
mkdir away && mv set.jsonl away/
[ "$(n_trials a "outcome = 'wrong'")" -gt 0 ] ||
    fail "the simulated model should fail some trials"
expect_code 0 "$DIPMAP" report a --db t.db --out rep --format md,html --no-plots
assert_not_contains rep/report.html "Questions and expected answers are not shown"
assert_contains rep/report.html "Questions from the store (golden set ${sha:0:12})"
assert_contains rep/report.html 'What is the value of the key'
assert_contains rep/summary.md "1 hard negative excluded because it contains the question's answer (1 of 3 questions affected: kv-0001 (kv-0001-n1))"
# a store without it (a run made by an older dipmap): the old note, and --dataset still works
sqlite3 t.db "delete from golden_sets"
expect_code 0 "$DIPMAP" report a --db t.db --out rep2 --format html --no-plots
assert_contains rep2/report.html "Questions and expected answers are not shown"
expect_code 0 "$DIPMAP" report a --db t.db --out rep3 --format html --no-plots --dataset away/set.jsonl
assert_contains rep3/report.html 'What is the value of the key'
# merge carries kept golden sets into the merged store
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]/set.jsonl/away\/set.jsonl}" --lengths 1k --depths 0 --db s1.db --run m
expect_code 0 "$DIPMAP" merge m.db s1.db
[ "$(q m.db "select count(*) from golden_sets")" = 1 ] || fail "merge dropped the golden set"
