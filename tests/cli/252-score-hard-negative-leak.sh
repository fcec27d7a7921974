# A hard negative that states the question's gold answer would put the answer at two depths at
# once: it is excluded like leaking filler, and run and report both say so.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
python3 - <<'PY'
import json
rows = [json.loads(l) for l in open("golden.jsonl")]
d = rows[0]["distractors"][0]
d["text"] = "LEAKY " + rows[0]["answers"][0]
with open("leak.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
start_sim sim --dataset golden.jsonl
run_args
RUN_ARGS=("${RUN_ARGS[@]/golden.jsonl/leak.jsonl}")
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r --store-prompts
assert_contains err "golden set leak.jsonl: 1 hard negative excluded because it contains the question's answer (1 of 2 questions affected: kv-0001 (kv-0001-n1))"
# no prompt sent carries the leaking chunk
[ "$(q t.db "select count(*) from prompts where text like '%LEAKY%'")" = 0 ] || fail "the leaking hard negative was sent"
[ "$(q t.db "select count(*) from prompts")" -gt 0 ] || fail "no prompts stored"
# the fair hard negatives are still used
n2=$(python3 -c 'import json; print(json.loads(open("leak.jsonl").readline())["distractors"][1]["text"])')
[ "$(q t.db "select count(*) from prompts where instr(text, '$n2') > 0")" -gt 0 ] || fail "the other hard negatives were dropped too"
expect_code 0 "$DIPMAP" report r --db t.db --format md --no-plots --out rep
assert_contains rep/summary.md "1 hard negative excluded because it contains the question's answer (1 of 2 questions affected: kv-0001 (kv-0001-n1))"
