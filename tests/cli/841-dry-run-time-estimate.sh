# The dry run estimates the wall time from concurrency x --latency-s, --rpm and --tpm (prompt
# plus answer budget, as the runner charges it), names the binding limit and shows each bound;
# without a latency it gives the rate-limit lower bound or says what to pass; --latency-s is
# range-checked. Sends nothing and writes no store.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 10
D=(--dataset golden.jsonl --haystack hay.jsonl --lengths 1k,4k --depths 0:100:10 --dry-run --db t.db)
# 220 trials x 2.5 s / 4 in flight = 137.5 s
expect_code 0 "$DIPMAP" run "${D[@]}" --concurrency 4 --latency-s 2.5
assert_contains out "time: 2 min 18 s estimated (bound by concurrency)"
assert_contains out "  concurrency 4 x 2.5 s per request (--latency-s): 2 min 18 s"
# rpm 60: 220 min/60 = 220 s; tpm 100k: (563,200 prompt + 220 x 256 answer) / 100k per min = 6.196 min
expect_code 0 "$DIPMAP" run "${D[@]}" -c 16 --latency-s 0.5 --rpm 60 --tpm 100000
assert_contains out "time: 6 min 12 s estimated (bound by --tpm)"
assert_contains out "  concurrency 16 x 0.5 s per request (--latency-s): 7 s"
assert_contains out "  --rpm 60: 3 min 40 s"
assert_contains out "  --tpm 100000 (prompt + answer budget): 6 min 12 s"
expect_code 0 "$DIPMAP" run "${D[@]}" -c 1 --latency-s 30 --rpm 60
assert_contains out "time: 1 h 50 min estimated (bound by concurrency)"
# no latency: the limits still bound it from below
expect_code 0 "$DIPMAP" run "${D[@]}" --rpm 60
assert_contains out "time: at least 3 min 40 s (bound by --rpm; give --latency-s or --probe for the concurrency bound)"
expect_code 0 "$DIPMAP" run "${D[@]}"
assert_contains out "time: unknown: give --latency-s SECONDS (mean seconds per request) or --probe (time one real request) for an estimate"
# a shard estimates its own share
expect_code 0 "$DIPMAP" run "${D[@]}" --shard 1/2 --run s -c 4 --latency-s 2.5
assert_contains out "trials: 110 (shard 1/2 of 220)"
assert_contains out "time: 1 min 09 s estimated (bound by concurrency)"
expect_code 2 "$DIPMAP" run "${D[@]}" --latency-s -1
assert_contains err "--latency-s is the mean seconds per request, 0 to 86400"
[ ! -e t.db ] || fail "the dry run created the store"
exit 0
