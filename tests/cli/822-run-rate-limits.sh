# --rpm: a token bucket (10 s burst = rpm/6) then a steady rate; measured in the server's log.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/data/run/lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
# 30 rpm: a burst of 5, then one request every 2 s; 8 trials -> the last 3 are paced
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100,25 --db t.db --run r \
    --rpm 30 --concurrency 8
python3 - sim.log <<'PY' || fail "--rpm not honoured"
import json, sys
ts = sorted(json.loads(l)["ts"] for l in open(sys.argv[1]) if "/completions" in l)
assert len(ts) == 8, len(ts)
burst = ts[4] - ts[0]
gaps = [b - a for a, b in zip(ts[4:], ts[5:])]
assert burst < 1.0, "burst took %.2f s" % burst
assert all(g >= 1.8 for g in gaps), "paced gaps %r" % gaps
print("burst %.2f s, gaps %s" % (burst, ["%.2f" % g for g in gaps]))
PY
