# --tokenizer server does not serialise sending: prompts are counted through the server's
# /tokenize concurrently (one builder per request in flight, pooled counting handles), so with
# /tokenize taking 300 ms (serve-sim's clock, long against a busy machine's scheduling delays)
# several /tokenize calls are in flight at once; serialised counting never had more than one.
# serve-sim's --log records, per request, how many of its kind were in flight on arrival. How many
# chat requests stay in flight is a wall-clock figure (the client's CPU on a busy machine): it is
# not asserted here.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 8 --seed 3 --out golden.jsonl >/dev/null || fail "gen needle"
start_sim sim --dataset golden.jsonl --tokenize-latency-ms 300 --latency-ms 300
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --template needle --lengths 1k \
    --depths 0:100:25 --tokenizer server --concurrency 8 --progress none --db t.db --run r1
assert_contains out "trials: 40 of 40 done"
python3 - sim.log <<'PY' || fail "requests in flight (above)"
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
tok = [r["inflight"] for r in log if r["route"] == "/tokenize"]
gen = [r["inflight"] for r in log if r["route"] == "/v1/chat/completions"]
print(f"/tokenize: {len(tok)} requests, at most {max(tok)} in flight; "
      f"chat: {len(gen)} requests, at most {max(gen)}, mean {sum(gen) / len(gen):.1f} in flight")
ok = len(gen) == 40 and len(tok) > 40 and max(tok) >= 2 and max(gen) >= 2
sys.exit(0 if ok else 1)
PY
# the counts are cached per chunk (in the store): a second run of the same prompts asks again
# for what it cannot take from the cache only
before=$(grep -c '"/tokenize"' sim.log)
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --template needle --lengths 1k \
    --depths 0:100:25 --tokenizer server --concurrency 8 --progress none --db t.db --run r2
assert_contains out "trials: 40 of 40 done"
again=$(($(grep -c '"/tokenize"' sim.log) - before))
echo "tokenize requests: first run $before, second run $again"
[ $((again * 4)) -le "$before" ] || fail "the second run sent $again /tokenize requests (first: $before)"
