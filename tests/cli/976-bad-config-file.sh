# Bad input: config files with an unknown key, bad JSON, a wrong type, the API key -> exit 2 naming the file and the key.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
echo '{"lengths": "1k", "bogus": 1}' >c1.json
bad_run 2 "error: c1.json:1: unknown setting \"bogus\" (the keys are the command's long option names)" --config c1.json
printf '{\n  "lengths": "1k",\n  "repeats": \n' >c2.json
bad_run 2 "error: c2.json:3: not valid JSON" --config c2.json
echo '{"repeats": "three"}' >c3.json
bad_run 2 "error: c3.json: \"repeats\" must be an integer" --config c3.json
echo '{"api_key": "sk-in-a-file-123"}' >c4.json
bad_run 2 "error: c4.json: \"api_key\" cannot be set in a config file" --config c4.json
assert_not_contains err "sk-in-a-file-123"
echo '[1]' >c5.json
bad_run 2 "error: c5.json: a config file must be a JSON object" --config c5.json
