# run --no-cache-reuse: against a llama.cpp-style server every request body carries
# "cache_prompt": false and serve-sim then reports 0 cached tokens for every trial (and the
# default schedule is plan); without it the same matrix gets cached tokens. --price-cached-in:
# the cost and --max-cost count the reported cached tokens at that price, across a resume too:
# a budget the cache schedule stays under stops the run that forbids reuse (exit 4).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim nocache --dataset golden.jsonl --prefix-cache 1m
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --run rn \
    --no-cache-reuse
assert_contains err "schedule: plan (server llama.cpp, caches prompt prefixes); no cache reuse: cache_prompt false"
python3 - nocache.log <<'EOF' || fail "request bodies or cached tokens"
import json, sys
n = 0
for line in open(sys.argv[1]):
    l = json.loads(line)
    if l["route"] != "/v1/chat/completions":
        continue
    n += 1
    assert l.get("extra", {}).get("cache_prompt") is False, l
    assert l["cached"] == 0, l
assert n == 40, n
EOF
[ "$(q t.db "select count(*) from trials where cached_tokens = 0")" = 40 ] ||
    fail "cached_tokens: $(q t.db "select cached_tokens from trials limit 5")"

# the same server, reuse allowed: cached tokens reported and stored
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db --run rc
[ "$(n_trials rc "cached_tokens > 0")" -gt 30 ] ||
    fail "no cached tokens with reuse allowed"

# cost: prompt $10 per 1M, cached $0, completion $0; the matrix is 40 prompts of 1k-2k tokens
start_sim fresh --dataset golden.jsonl --prefix-cache 1m
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db c.db --run cheap \
    --price-in 10 --price-out 0 --price-cached-in 0 --max-cost 0.5 -c 4
sent=$(q c.db "select sum(usage_prompt_tokens) from trials")
computed=$(q c.db "select sum(usage_prompt_tokens - cached_tokens) from trials")
want=$(python3 -c "import sys; print('%.4f' % (int(sys.argv[1]) * 10 / 1e6))" "$computed")
assert_contains out "cost \$$want"
python3 -c "import sys; s, c = map(int, sys.argv[1:]); sys.exit(0 if s * 10 / 1e6 > 0.5 > c * 10 / 1e6 else 1)" \
    "$sent" "$computed" || fail "the matrix should cost more than the budget whole ($sent tokens) and less cached ($computed)"
# a resume counts the stored trials' cached tokens at their price
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db c.db --run cheap \
    --price-in 10 --price-out 0 --price-cached-in 0 --max-cost 0.5
assert_contains err "budget: \$$want of --max-cost \$0.50 already spent by this run"
# forbidding reuse, the same budget is reached before the matrix is done
start_sim fresh2 --dataset golden.jsonl --prefix-cache 1m
run_args
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db c.db --run dear \
    --price-in 10 --price-out 0 --price-cached-in 0 --max-cost 0.5 -c 4 --no-cache-reuse
assert_contains out "run dear: budget"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --db c.db --price-cached-in 1 --dry-run
assert_contains err "--price-cached-in needs --price-in and --price-out"
