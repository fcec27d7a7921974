# dipmap runs: --model PREFIX and --tag filter, DIPMAP_DB replaces the default
# path, --db overrides DIPMAP_DB, and --json is valid JSON with every field.
. "$TESTS/cli/lib/lib.sh"
helper=$(dirname "$DIPMAP")/tests/unit/test_store
[ -x "$helper" ] || helper=$REPO/build/tests/unit/test_store
[ -x "$helper" ] || fail "the test_store helper is not built"
"$helper" --fixtures "$PWD" || fail "cannot create the fixture databases"

expect_code 0 "$DIPMAP" runs --db runs.db --model llama
assert_contains out llama-nightly-1
assert_contains out llama-nightly-2
assert_not_contains out gpt-ci
[ "$(wc -l <out)" = 3 ] || fail "--model llama: expected header + 2 rows"

# the prefix also matches the model the server echoed
expect_code 0 "$DIPMAP" runs --db runs.db --model gpt-4o-mini-2024
assert_contains out gpt-ci

expect_code 0 "$DIPMAP" runs --db runs.db --tag gpu
assert_contains out llama-nightly-2
assert_not_contains out llama-nightly-1

expect_code 0 "$DIPMAP" runs --db runs.db --tag nope
[ -s out ] && fail "no match should print nothing on stdout"
assert_contains err "runs.db: no runs match"

# default database: ./dipmap.db, or $DIPMAP_DB
cp runs.db dipmap.db
expect_code 0 env -u DIPMAP_DB "$DIPMAP" runs
assert_contains out gpt-ci
mkdir sub
mv dipmap.db sub/elsewhere.db
expect_code 0 env DIPMAP_DB=sub/elsewhere.db "$DIPMAP" runs --tag nightly
assert_contains out llama-nightly-1
expect_code 2 env DIPMAP_DB=sub/elsewhere.db "$DIPMAP" runs --db missing.db
assert_contains err "missing.db: no such database"

expect_code 0 "$DIPMAP" runs --db runs.db --json --model gpt
python3 - out <<'PY' || fail "--json output is wrong"
import json, sys
runs = json.load(open(sys.argv[1]))
assert len(runs) == 1, runs
r = runs[0]
# the keys of summary.json's "run" (summary_json_run), plus live, lock, trials_stored, ...
assert r["name"] == "gpt-ci" and r["model_requested"] == "gpt-4o-mini", r
assert r["model_served"] == "gpt-4o-mini-2024-07-18"
assert r["status"] == "interrupted"
assert (r["trials_done"], r["trials_planned"], r["trials_stored"]) == (2, 8, 4)
assert int(r["created_at"]) == 1764547200, r["created_at"]  # 2025-12-01T00:00:00Z, Unix seconds
assert r["settings"]["max-tokens"] == 64
assert r["tags"] == []
assert r["system_fingerprint"] == "fp_x"
assert r["live"] is False and r["lock"] is None
PY
expect_code 0 "$DIPMAP" runs --db runs.db --json --tag nope
[ "$(tr -d ' \n' <out)" = "[]" ] || fail "--json with no match must print []"
