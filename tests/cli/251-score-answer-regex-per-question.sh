# A question's "answer_regex" selects the regex scorer for that question without --scorer regex
# (the golden set chooses per question); other questions keep the run's scorer.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
python3 - <<'PY'
import json
rows = [json.loads(l) for l in open("golden.jsonl")]
# kv-0001: a pattern the simulated answer (the value) never matches; kv-0002: one it always does
rows[0]["answer_regex"] = "^NEVER$"
rows[1]["answer_regex"] = "^[0-9a-f-]{36}$"
with open("re.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=1,dip=0
run_args
RUN_ARGS=("${RUN_ARGS[@]/golden.jsonl/re.jsonl}")
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run r
n() { q t.db "select count(*) from trials where question_id='$1' and outcome='$2'"; }
[ "$(n kv-0001 wrong)" = 3 ] || fail "answer_regex ^NEVER$ ignored: $(q t.db "select question_id, outcome, answer from trials")"
[ "$(n kv-0002 correct)" = 3 ] || fail "kv-0002 should be correct by its regex"
[ "$(n kv-0003 correct)" = 3 ] || fail "kv-0003 (no regex) should be scored by --scorer kv"
# a bad pattern is refused with file:line even though --scorer regex was not given
sed -i '1s/\^NEVER\$/(unclosed/' re.jsonl
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db t.db --run bad
assert_contains err 're.jsonl:1: "answer_regex": invalid answer_regex at offset 9'
