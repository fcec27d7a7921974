# A run is written to JSON in one place (summary_json_run): `runs --json` and summary.json's
# "run" describe a run with the same keys and values (runs --json adds live, lock,
# trials_stored, trials_valid, accuracy, dip and missing_shards).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r \
    --tag nightly
expect_code 0 "$DIPMAP" runs --db t.db --json
cp out runs.json
expect_code 0 "$DIPMAP" report r --db t.db --out rep --format json --no-plots
python3 - runs.json rep/summary.json <<'PY' || fail "runs --json and summary.json disagree"
import json, sys
runs = json.load(open(sys.argv[1]))
runs = runs.get('runs', runs) if isinstance(runs, dict) else runs
entry = [x for x in runs if x.get('name') == 'r'][0]
run = json.load(open(sys.argv[2]))['run']
missing = [k for k in run if k not in entry]
assert not missing, ('keys of summary.json run missing from runs --json', missing)
differ = [k for k in run if entry[k] != run[k]]
assert not differ, [(k, entry[k], run[k]) for k in differ]
extra = set(entry) - set(run)
assert extra <= {'live', 'lock', 'trials_stored', 'trials_valid', 'accuracy', 'dip', 'missing_shards'}, extra
assert run['model_requested'] == 'dipmap-sim' and run['tags'] == ['nightly'], run
assert run['inputs']['golden_sha256'] and run['inputs']['tokenizer_name'] == 'cl100k_base', run
PY
