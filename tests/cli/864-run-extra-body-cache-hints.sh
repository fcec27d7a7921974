# --extra-body naming a cache hint the schedule would send (llama.cpp id_slot and
# cache_prompt, vLLM cache_salt): the user's value goes to the server, once; the request body
# holds no duplicate key (serve-sim logs the unknown members as it parsed them, duplicates kept).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
# check LOG KEY VALUE: every generation request carried KEY once, with VALUE (JSON)
check() {
    python3 - "$@" <<'PY' || fail "$2 in $1"
import json, sys
log, key, want = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
n = 0
for line in open(log):
    if '"/v1/chat/completions"' not in line:
        continue
    n += 1
    assert line.count('"%s":' % key) == 1, line  # once in the raw record
    assert json.loads(line)["extra"][key] == want, line
assert n == 9, n
PY
}
# llama.cpp with slots: the cache schedule pins groups with id_slot; the user's id_slot wins
start_sim slots --dataset golden.jsonl --prefix-cache 1m --slots 2
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db a.db --run a \
    -c 2 --schedule cache --extra-body '{"id_slot": 1}'
assert_contains err "groups pinned to llama.cpp slots"
check slots.log id_slot 1
# every request on slot 1, as asked
[ "$(grep -c '"slot":1,' slots.log)" = 9 ] || fail "not every request on slot 1"

# llama.cpp, --no-cache-reuse sends cache_prompt false; the user's true wins
start_sim nocache --dataset golden.jsonl --prefix-cache 1m
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db b.db --run b \
    -c 1 --schedule cache --no-cache-reuse --extra-body '{"cache_prompt": true}'
assert_contains err "no cache reuse: cache_prompt false"
check nocache.log cache_prompt true

# vLLM, --no-cache-reuse sends a cache_salt per request; the user's salt wins
start_sim salted --dataset golden.jsonl --prefix-cache 1m --owned-by vllm
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db c.db --run c \
    -c 1 --schedule cache --no-cache-reuse --extra-body '{"cache_salt": "mine"}'
assert_contains err "no cache reuse: cache_salt per request"
check salted.log cache_salt '"mine"'
# one salt for all: the server reused prefixes between them
[ "$(q c.db "select sum(cached_tokens) > 0 from trials")" = 1 ] || fail "one salt, no reuse"
