# dipmap run --config: every option can come from a JSON file; flags override it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
cat >cfg.json <<JSON
{"dataset": "golden.jsonl", "haystack": "hay.jsonl", "lengths": ["1k", 2048], "depths": "0:100:50", "repeats": 2,
 "max_tokens": 64, "dry-run": true}
JSON
expect_code 0 "$DIPMAP" run --config cfg.json
assert_contains out "trials: 48 = 4 questions x 2 lengths x 3 depths x 2 repeats"
# a flag wins over the file
expect_code 0 "$DIPMAP" run --config cfg.json --lengths 1k --repeats 1
assert_contains out "trials: 12 = 4 questions x 1 lengths x 3 depths x 1 repeats"
# the file drives a real run (endpoint list, model, template...) and the run stores its settings
start_sim sim --dataset golden.jsonl
cat >cfg2.json <<JSON
{"endpoint": ["$SIM_URL"], "model": "dipmap-sim", "dataset": "golden.jsonl",
 "haystack": "hay.jsonl", "template": "$REPO/prompts/kv.txt", "scorer": "kv",
 "lengths": "1k", "depths": [0, 100], "max-tokens": 32, "seed": 7, "db": "c.db", "run": "fromfile",
 "progress": "none"}
JSON
expect_code 0 "$DIPMAP" run --config cfg2.json --seed 9
assert_contains out "run fromfile: complete"
settings=$(q c.db "select settings_json from runs where name='fromfile'")
case $settings in *'"max-tokens":32'*'"seed":9'*) ;; *) fail "stored settings: $settings" ;; esac
[ "$(q c.db "select count(*) from trials")" = 8 ] || fail "expected 8 trials"
# errors name the file and the key; API keys are refused in config files
echo '{"lenghts": "1k"}' >bad.json
expect_code 2 "$DIPMAP" run --config bad.json
assert_contains err 'bad.json:1: unknown setting "lenghts" (did you mean "lengths"?)'
echo '{"dataset": "golden.jsonl", "api_key": "sk-test-CONFIGSECRET"}' >key.json
expect_code 2 "$DIPMAP" run --config key.json --dry-run
assert_contains err '"api_key" cannot be set in a config file'
assert_not_contains err CONFIGSECRET
