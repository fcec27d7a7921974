# Real llama-server with 2 slots, 2 requests in flight: --schedule cache (each group's
# deepest depth first, the rest after its answer, pinned to one slot with id_slot) gets more
# prompt tokens from the server's cache (timings.cache_n) than --schedule shuffle, each on a
# fresh server (both runs hold the same 18 trials).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 3 5
for s in cache shuffle; do
    llama_start "srv-$s" -c 8192 -np 2
    llama_run "$s" --lengths 1k --depths 0:100:20 --concurrency 2 --max-tokens 8 --schedule "$s"
    [ "$LLAMA_RC" = 0 ] || { cat "run-$s.err" >&2; fail "run $s exited $LLAMA_RC"; }
    llama_stop "$LLAMA_PID"
done
assert_contains run-cache.err "groups pinned to llama.cpp slots"
share() { q t.db "select sum(cache_n) * 1.0 / sum(cache_n + prompt_n) from trials t join runs r on r.id = t.run_id where r.name = '$1'"; }
c=$(share cache)
s=$(share shuffle)
python3 -c "import sys; c, s = map(float, sys.argv[1:]); sys.exit(0 if c > s else 1)" "$c" "$s" ||
    fail "cache schedule reused $c of its prompt tokens, shuffle $s"
[ "$(q t.db "select count(*) from trials t join runs r on r.id = t.run_id where r.name = 'cache'")" = 18 ] &&
    [ "$(q t.db "select count(*) from trials t join runs r on r.id = t.run_id where r.name = 'shuffle'")" = 18 ] ||
    fail "expected 18 trials per run"
echo "cache schedule: $c of prompt tokens from the cache; shuffle: $s" >&2
