# --dry-run --probe sends exactly one real request (the first trial at the longest length),
# times it and estimates the wall time from it; nothing is stored. A probe that cannot reach
# the endpoint exits 3, one the endpoint refuses 2, --probe without --dry-run or an endpoint 2.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 6
start_sim sim --dataset golden.jsonl --latency-ms 300
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --dry-run --probe \
    --concurrency 4 --db t.db
[ "$(grep -c '/completions' sim.log)" = 1 ] || fail "the probe sent $(grep -c '/completions' sim.log) requests"
[ ! -e t.db ] || fail "the probe created the store"
assert_contains err "probe: one request at 2048 tokens took "
line=$(grep '^  concurrency 4 x ' out) || fail "no concurrency bound: $(cat out)"
case "$line" in *"s per request (probe: one request at 2048 tokens): "*) ;; *) fail "bound: $line" ;; esac
# the sim waits 300 ms before it answers: the measured latency cannot be shorter
lat=$(echo "$line" | sed 's/^  concurrency 4 x \([0-9.]*\) s per request.*/\1/')
python3 -c "import sys; sys.exit(0 if float('$lat') >= 0.3 else 1)" || fail "probed latency $lat s < 0.3 s"
assert_contains out "estimated (bound by concurrency)"
# a probe that fails: nothing listens (3), the endpoint does not serve the model (2)
closed_port
port=$CLOSED_PORT
expect_code 3 "$DIPMAP" run "${RUN_ARGS[@]}" --endpoint "http://127.0.0.1:$port" --lengths 1k --dry-run --probe --db t.db
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --model nosuch --lengths 1k --dry-run --probe --db t.db
[ ! -e t.db ] || fail "a failed probe created the store"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --probe --db t.db
assert_contains err "--probe goes with --dry-run"
expect_code 2 "$DIPMAP" run --dataset golden.jsonl --lengths 1k --dry-run --probe
assert_contains err "--probe goes with --dry-run and needs --endpoint and --model"
exit 0
