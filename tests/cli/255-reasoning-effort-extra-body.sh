# --reasoning-effort sends reasoning_effort; --extra-body merges a JSON object into every request
# (Qwen3's chat_template_kwargs.enable_thinking here), is stored with the run and is part of its
# identity. serve-sim thinks 1/4 as long at effort low and not at all with enable_thinking false,
# so both change what comes back over HTTP.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --think 600
run_args
args=("${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db)
# 600 tokens of thinking do not fit 256: starved (nothing scored: exit 4); at effort low (150)
# they do
expect_code 4 "$DIPMAP" run "${args[@]}" --run high --reasoning-effort high
[ "$(n_trials high "outcome = 'starved'")" = 6 ] || fail "effort high should starve"
expect_code 0 "$DIPMAP" run "${args[@]}" --run low --reasoning-effort low
[ "$(n_trials low "outcome in ('correct','wrong') and reasoning_tokens = 150")" = 6 ] || fail "effort low not applied"
[ "$(grep -c '"reasoning_effort":"low"' sim.log)" = 6 ] || fail "reasoning_effort not sent"
# thinking off through the chat template, merged into every request
kw='{"chat_template_kwargs": {"enable_thinking": false}}'
expect_code 0 "$DIPMAP" run "${args[@]}" --run nothink --extra-body "$kw"
[ "$(n_trials nothink "outcome in ('correct','wrong') and reasoning_tokens is null")" = 6 ] || fail "extra body not applied"
[ "$(grep -c '"extra":{"chat_template_kwargs":{"enable_thinking":false}}' sim.log)" = 6 ] ||
    fail "extra body not in every request"
# stored with the run, part of its identity: resuming with another body is refused
settings=$(q t.db "select settings_json from runs where name = 'nothink'")
case $settings in *'"extra-body":{"chat_template_kwargs":{"enable_thinking":false}}'*) ;;
*) fail "extra body not in the run's settings: $settings" ;; esac
expect_code 2 "$DIPMAP" run "${args[@]}" --run nothink --extra-body '{"chat_template_kwargs": {"enable_thinking": true}}'
assert_contains err 'setting "extra-body"'
expect_code 2 "$DIPMAP" run "${args[@]}" --run nothink
expect_code 0 "$DIPMAP" run "${args[@]}" --run nothink --extra-body "$kw"
assert_contains out "0 this time, 6 kept from before"
# runs made without these options keep their identity (the keys are absent, not null)
case $(q t.db "select settings_json from runs where name = 'low'") in *extra-body*) fail "extra-body stored when not given" ;; esac
# bad values: exit 2 naming the option
expect_code 2 "$DIPMAP" run "${args[@]}" --run bad --extra-body '[1]'
assert_contains err "error: run: --extra-body must be a JSON object"
expect_code 2 "$DIPMAP" run "${args[@]}" --run bad --extra-body '{"temperature": 1}'
assert_contains err 'error: run: --extra-body must not set "temperature": dipmap sets it (use its own option)'
expect_code 2 "$DIPMAP" run "${args[@]}" --run bad --reasoning-effort max
assert_contains err "error: run: --reasoning-effort must be low, medium or high, got 'max'"
[ "$(q t.db "select count(*) from runs where name = 'bad'")" = 0 ] || fail "a refused run was stored"
