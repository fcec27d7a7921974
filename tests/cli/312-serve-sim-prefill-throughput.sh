# serve-sim --prefill-throughput R: one prefill engine shared by every request (a GPU's
# compute), not a latency per request. Two requests sent together are prefilled one after the
# other: the server's log shows their engine intervals back to back, the second waited
# (queue_ms) and finished its prefill after both prompts' time (twice one, the prompts being
# equal); each reply's timings.prompt_ms is its own uncached tokens / R; the cache is looked up
# when a request's turn comes, so an identical prompt sent together with the first one is
# served from the cache. Without the option, two requests overlap (no engine in the log).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

start_sim engine --prefix-cache 100k --timings --prefill-throughput 1500 --log engine.jsonl
engine=$SIM_PORT
start_sim latency --prefix-cache 100k --timings --prefill-ms-per-1k 500 --log latency.jsonl
latency=$SIM_PORT
pylib - "$engine" "$latency" <<'EOF2' || exit 1
import sys, simclient as sc
from simclient import check
engine, latency = (int(a) for a in sys.argv[1:])
a = sc.filler(sc.rng(1), 1500)
b = sc.filler(sc.rng(2), 1500)   # as long as a, shares nothing with it

def ask(port):
    return lambda text: sc.chat(port, text, max_tokens=4)

ra, rb = sc.parallel(ask(engine), [a, b], workers=2)
check(ra.status == 200 and rb.status == 200, "answers: %r %r" % (ra, rb))
log = sorted(sc.read_log("engine.jsonl"), key=lambda l: l["engine_start_ms"])
check(len(log) == 2, "log: %r" % log)
first, second = log
for r in (ra, rb):
    t = r.json["timings"]
    check(abs(t["prompt_ms"] - 1000.0 * t["prompt_n"] / 1500) < 1e-6,
          "prompt_ms is the request's uncached tokens at 1500/s: %r" % t)
    check(t["cache_n"] == 0, "nothing shared: %r" % t)
pf = [l["engine_end_ms"] - l["engine_start_ms"] for l in log]
check(second["engine_start_ms"] >= first["engine_end_ms"], "engine intervals overlap: %r" % log)
check(second["queue_ms"] > 0, "the second request did not wait for the engine: %r" % log)
ratio = (second["engine_end_ms"] - first["engine_start_ms"]) / pf[0]
check(ratio >= 1.95, "two requests together took %.2f x one prefill: %r" % (ratio, log))

# the same prompt twice together: the second's lookup waits for the first's prefill
rc = sc.parallel(ask(engine), [a + " once more", a + " once more"], workers=2)
cached = sorted(r.json["timings"]["cache_n"] for r in rc)
n = rc[0].json["usage"]["prompt_tokens"]
check(cached[1] == n - 1, "the later of two identical prompts was not cached: %r of %d" % (cached, n))

# the per-request latency model: no shared engine, requests overlap
sc.parallel(ask(latency), [a, b], workers=2)
for l in sc.read_log("latency.jsonl"):
    check("engine_start_ms" not in l and "queue_ms" not in l, "engine in the latency model: %r" % l)
EOF2
expect_code 2 "$DIPMAP" serve-sim --prefill-throughput -5
assert_contains err "--prefill-throughput must be in 0..1000000000 tokens/s"
