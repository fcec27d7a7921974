# A gold answer that is empty once normalised ("A") would be credited for any answer by the
# substring scorers: run refuses it with file:line before sending anything, unless the question
# names the exact (or regex) scorer; import litm drops such answers and says so.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
python3 - <<'PY'
import json
rows = [json.loads(l) for l in open("golden.jsonl")]
rows[1]["answers"] = ["A"]
with open("mc.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
rows[1]["scorer"] = "exact"
with open("mc-exact.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
start_sim sim --dataset golden.jsonl
args=(--endpoint "$SIM_URL" --model dipmap-sim --haystack hay.jsonl --template "$REPO/prompts/kv.txt"
    --lengths 1k --depths 0,100 --progress none --db t.db)
expect_code 2 "$DIPMAP" run "${args[@]}" --dataset mc.jsonl --run bad
assert_contains err 'error: mc.jsonl:2: "answers"[0]: "A" is empty once normalised (articles and punctuation are removed), so it would match any answer; give the question "scorer": "exact" or an "answer_regex"'
[ "$(grep -c '/completions' sim.log)" = 0 ] || fail "a refused golden set sent requests"
# --scorer exact on the command line does not make the question safe: the question must say so
expect_code 2 "$DIPMAP" run "${args[@]}" --dataset mc.jsonl --run bad --scorer exact
# the question that names exact runs, and a sentence starting "B. A..." is not credited for "A"
expect_code 0 "$DIPMAP" run "${args[@]}" --dataset mc-exact.jsonl --run ok
assert_contains out "run ok: complete"
[ "$(q t.db "select count(*) from trials join runs on runs.id = run_id where name='ok' and question_id='kv-0002' and outcome='correct'")" = 0 ] ||
    fail "the simulated model never answers 'A', yet a trial was credited"
[ "$(q t.db "select count(*) from trials join runs on runs.id = run_id where name='ok' and question_id='kv-0002' and outcome in ('correct','wrong')")" = 2 ] ||
    fail "the exact question's trials were not scored"
# import litm: the "*" answer of the NQ multiplication-sign question is dropped and counted
cat >litm.jsonl <<'J'
{"question": "what is the multiplication sign on the computer", "answers": ["the symbol \u00d7", "*"], "ctxs": [{"title": "Multiplication sign", "text": "The multiplication sign is the symbol \u00d7.", "isgold": true}]}
J
expect_code 0 "$DIPMAP" import litm litm.jsonl --out nq.jsonl
assert_contains err '(1 answers that are empty once normalised dropped, e.g. "*")'
assert_contains nq.jsonl '"answers": ["the symbol ×"]'
