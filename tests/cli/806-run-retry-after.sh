# A 429's Retry-After is honoured: the retry of a rate-limited request comes no earlier than the
# advertised delay (measured in the server's request log).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --faults 429=0.3 --fault-seed 5 --retry-after-ms 700
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run ra \
    --concurrency 1 --retry-base-ms 10
assert_contains out "run ra: complete"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 9 ] || fail "not all scored"
# with one request in flight, the request after a 429 is its retry: measure every gap
python3 - sim.log <<'PY' || fail "Retry-After not honoured"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '/completions' in l]
gaps = [b["ts"] - a["ts"] for a, b in zip(rows, rows[1:]) if a["status"] == 429]
assert len(gaps) >= 2, "too few 429s: %d" % len(gaps)
bad = [g for g in gaps if g < 0.69]
assert not bad, "retries sooner than 700 ms: %r" % bad
print("gaps", ["%.3f" % g for g in gaps])
PY
