# --schedule cache against llama.cpp slots with --concurrency above the slot count: each slot
# takes one group at a time and one request at a time (a request more in flight would only
# queue at the server, in an order it picks, between other groups' requests, and cost cache
# hits). serve-sim --slots 2 with a cache of about one prompt per slot, as a llama.cpp slot
# holds one sequence: the share of prompt tokens served from the cache (the server's
# counters, usage.prompt_tokens_details.cached_tokens) is the same at C = 8 and 16 as at C = 2
# (before: 38.9 % at C = 2, 29.9 % at C = 8, 28.4 % at C = 16); the server never had more than
# 2 requests in flight, and each slot served its groups whole, one after another.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 8
share() { q "$1" "select sum(cached_tokens) || ' ' || sum(usage_prompt_tokens) from trials"; }
for c in 2 8 16; do
    start_sim "s$c" --dataset golden.jsonl --prefix-cache 1500 --slots 2 --latency-ms 5
    run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --db "t$c.db" \
        --run r -c "$c" --schedule cache
    assert_contains out "trials: 88 of 88 done"
    read -r cached sent < <(share "t$c.db")
    echo "C=$c: $cached of $sent prompt tokens from the cache"
    eval "cached$c=$cached sent$c=$sent"
    python3 - "s$c.log" <<'PY' || fail "C=$c: slots"
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
log = [l for l in log if l["route"] == "/v1/chat/completions"]
assert len(log) == 88, len(log)
assert max(l["inflight"] for l in log) <= 2, "more than one request per slot in flight"
for slot in (0, 1):
    seq = [l["question_id"] for l in log if l["slot"] == slot]
    assert seq, "slot %d unused" % slot
    runs = [q for i, q in enumerate(seq) if i == 0 or seq[i - 1] != q]
    assert len(runs) == len(set(runs)), "slot %d interleaved groups: %r" % (slot, runs)
PY
done
assert_contains err "groups pinned to llama.cpp slots; one request per slot in flight: 2 of --concurrency 16"
for c in 8 16; do
    eval "[ \"\$sent$c\" = \"$sent2\" ]" || fail "C=$c sent other prompts"
    eval "x=\$cached$c"
    python3 -c "import sys; a, b, t = map(int, sys.argv[1:]); sys.exit(0 if abs(a - b) <= 0.002 * t else 1)" \
        "$x" "$cached2" "$sent2" || fail "C=$c: $x cached tokens, C=2: $cached2 (of $sent2)"
done
