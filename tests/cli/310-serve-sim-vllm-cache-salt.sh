# serve-sim --owned-by vllm presents itself as vLLM (/v1/models owned_by, no llama.cpp /props):
# run detects vllm, which caches prefixes, so the default schedule is cache and serve-sim's
# cached_tokens show reuse; with --no-cache-reuse each request carries its own cache_salt
# (vLLM's way to forbid reuse; no cache_prompt, no id_slot) and serve-sim reports 0 cached tokens.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim reuse --dataset golden.jsonl --prefix-cache 1m --owned-by vllm
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db --run r1 -c 2
assert_contains err "schedule: cache (server vllm, caches prompt prefixes)"
[ "$(q t.db "select sum(cached_tokens) from trials")" -gt 0 ] || fail "vllm sim reused nothing"

start_sim salted --dataset golden.jsonl --prefix-cache 1m --owned-by vllm
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db s.db --run r2 -c 2 \
    --no-cache-reuse
assert_contains err "server vllm, caches prompt prefixes); no cache reuse: cache_salt per request"
[ "$(q s.db "select count(*) from trials")" = 15 ] || fail "expected 15 trials"
[ "$(q s.db "select count(*) from trials where cached_tokens = 0")" = 15 ] ||
    fail "cached tokens with --no-cache-reuse: $(q s.db "select sum(cached_tokens) from trials")"
python3 - salted.log <<'PY' || fail "cache_salt not distinct per request"
import json, sys
gen = [json.loads(l) for l in open(sys.argv[1])]
gen = [g for g in gen if g["route"] == "/v1/chat/completions"]
assert len(gen) == 15, len(gen)
salts = [(g.get("extra") or {}).get("cache_salt") for g in gen]
assert all(isinstance(s, str) and s for s in salts), salts
assert len(set(salts)) == len(salts), salts
for g in gen:
    assert "cache_prompt" not in (g.get("extra") or {}) and "id_slot" not in (g.get("extra") or {}), g
PY
# the default serve-sim is still llama.cpp (its /props)
start_sim llama --dataset golden.jsonl --prefix-cache 1m
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db l.db --run r3 \
    --no-cache-reuse
assert_contains err "(server llama.cpp, caches prompt prefixes); no cache reuse: cache_prompt false"
