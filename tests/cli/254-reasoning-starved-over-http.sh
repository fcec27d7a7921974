# Reasoning over HTTP (serve-sim --think, both forms: reasoning_content and inline <think>): the
# thinking is stored apart from the answer and never scored; thinking that eats the whole answer
# budget gives "starved" (kept out of accuracy, shown in coverage with the reasoning tokens spent),
# whether the server says finish_reason length or, after a forced end of thinking, stop.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim plain --dataset golden.jsonl --model dipmap-sim:edge=0.5,dip=0.3
PLAIN=$SIM_URL
start_sim think --dataset golden.jsonl --think 300 --model dipmap-sim:edge=0.5,dip=0.3
THINK=$SIM_URL
start_sim stop --dataset golden.jsonl --think 300 --think-stop --think-form inline
STOP=$SIM_URL
SIM_URL=$PLAIN
run_args
args=("${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db)
set_ep() { RUN_ARGS=("${args[@]}"); RUN_ARGS[1]=$1; }

# the budget (256 tokens) goes to 300 tokens of thinking: every trial starved, none scored, so
# the run is not a success (exit 4)
set_ep "$THINK"
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" --run starved
assert_contains err "no trial could be scored (20 starved)"
assert_contains out "starved 20"
assert_contains out "starved: 20 trial(s) spent the answer budget on reasoning (5120 reasoning tokens)"
assert_not_contains out "accuracy:"
[ "$(n_trials starved "outcome = 'starved' and reasoning_tokens = 256 and reasoning_chars > 0 and ifnull(answer, '') = ''")" = 20 ] ||
    fail "not starved with reasoning: $(q t.db "select outcome, reasoning_tokens, reasoning_chars, answer from trials")"
# both forms were served (field and inline), and neither leaked into the answer
grep -q '"think_form":"field"' think.log || fail "no reasoning_content answers"
grep -q '"think_form":"inline"' think.log || fail "no inline <think> answers"
# a forced end of thinking (finish_reason stop, empty answer) is starved too
set_ep "$STOP"
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" --run forced
[ "$(n_trials forced "outcome = 'starved' and finish_reason = 'stop'")" = 20 ] || fail "a forced stop was not starved"

# with room for the answer: scored exactly like the model without thinking, though every
# thought names the gold answer (crediting it would raise accuracy)
set_ep "$THINK"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --run thought --max-tokens 400
[ "$(n_trials thought "outcome in ('correct','wrong')")" = 20 ] || fail "answers after thinking not scored"
[ "$(n_trials thought "answer like '%think>%'")" = 0 ] || fail "a <think> block reached the answer"
[ "$(n_trials thought "reasoning like 'Is the answer %' and reasoning_tokens = 300")" = 20 ] ||
    fail "reasoning not stored: $(q t.db "select reasoning_tokens, substr(reasoning, 1, 40) from trials")"
[ "$(n_trials thought "outcome = 'wrong'")" -gt 0 ] || fail "the simulated model should answer some trials wrongly"
set_ep "$PLAIN"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --run plain
[ "$(n_trials thought "outcome = 'correct'")" = "$(n_trials plain "outcome = 'correct'")" ] ||
    fail "thinking changed accuracy: $(n_trials thought "outcome = 'correct'") vs $(n_trials plain "outcome = 'correct'")"
# the report's coverage shows starved trials and the reasoning tokens they spent
expect_code 0 "$DIPMAP" report starved --db t.db --out rep --format md,json --no-plots
assert_contains rep/summary.md "20 starved trials spent 5120 reasoning tokens and gave no answer"
python3 - <<'PY' || fail "summary.json"
import json
t = json.load(open("rep/summary.json"))["totals"]
assert t["outcomes"]["starved"] == 20 and t["valid"] == 0 and t["starved_reasoning_tokens"] == 5120, t
PY
