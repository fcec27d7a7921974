# The overhead probe (a server without a counting route) and the trials follow one rule for an
# answer budget the server refuses (client.c budget_refused()): OpenAI's reasoning models (and
# Azure deployments of them) answer max_tokens with a 400 unsupported_parameter naming
# max_completion_tokens, so the auto field switches and the request goes again; a budget below
# the server's minimum (a 400 naming the field) makes the probe ask with that minimum. The probe
# used to send max_tokens 1 whatever the trials sent, failed, and the run went on with overhead 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 4 --seed 3 --out golden.jsonl >/dev/null || fail "gen needle"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
start_sim sim --dataset golden.jsonl --tokenize-api none --chat-template chatml \
    --template-overhead 2 --reject-max-tokens --min-max-tokens 4
ARGS=(--model dipmap-sim --dataset golden.jsonl --haystack "$HAY"
    --template needle --lengths 512 --depths 0:100:50 --progress none --db t.db)
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${ARGS[@]}" --run r1
assert_contains err "tokens per request (probe: the server counts "
assert_not_contains err "cannot measure"
ov=$(sed -n 's/.*template overhead: \([0-9]*\) tokens per request.*/\1/p' err)
[ "${ov:-0}" -gt 20 ] || fail "overhead '$ov' (chatml markup for two messages + 2)"
# the probe's requests: max_tokens refused, max_completion_tokens 1 refused (below 4), then 4;
# the second probe (the longer request the overhead is checked on) starts at the budget learned
python3 - sim.log <<'PY' || fail "probe requests (above)"
import json, sys
gen = [json.loads(l) for l in open(sys.argv[1]) if '"/v1/chat/completions"' in l]
print([g["status"] for g in gen[:5]])
sys.exit(0 if [g["status"] for g in gen[:3]] == [400, 400, 200] and
         all(g["status"] == 200 for g in gen[3:]) and len(gen) == 4 + 12 else 1)
PY
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong') and usage_prompt_tokens = realized_length and realized_length <= length")" = 12 ] ||
    fail "every trial scored at its length: $(q t.db "select outcome, length, realized_length, usage_prompt_tokens from trials")"
# the trials follow the same rule without a probe (overhead given): the requests in flight with
# max_tokens are refused once and sent again with max_completion_tokens
start_sim sim2 --dataset golden.jsonl --tokenize-api none --reject-max-tokens
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${ARGS[@]}" --run r2 \
    --template-overhead 0 --concurrency 4
assert_contains out "trials: 12 of 12 done"
assert_contains out "outcomes: correct"
grep '/v1/chat/completions' sim2.log >chat.log
[ "$(grep -c '"status":400' chat.log)" -ge 1 ] || fail "no request was refused"
[ "$(grep -c '"status":200' chat.log)" = 12 ] || fail "$(grep -c '"status":200' chat.log) answers"
# a field given by hand is not second-guessed: the refusal stops the run, naming the server's words
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" "${ARGS[@]}" --run r3 --template-overhead 0 \
    --max-tokens-field max_tokens
assert_contains err "Use 'max_completion_tokens' instead"
