# serve-sim's prefix cache: --prefix-cache TOKENS keeps prompts' token prefixes (LRU, a shared
# prefix counted once) and reports the longest cached prefix as usage.prompt_tokens_details.cached_tokens (vLLM's shape;
# the last prompt token is always computed); --timings adds llama.cpp's timings (cache_n +
# prompt_n = prompt_tokens, prompt_ms = --prefill-ms-per-1k x uncached tokens); --slots N gives
# each slot its own cache and honours id_slot; cache_salt and cache_prompt:false share nothing;
# a small cache evicts the least recently used tokens; without --prefix-cache nothing changes.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

start_sim shared --prefix-cache 100k --timings --prefill-ms-per-1k 400 --log shared.jsonl
shared=$SIM_PORT
start_sim slots --prefix-cache 100k --slots 2 --log slots.jsonl
slots=$SIM_PORT
start_sim small --prefix-cache 700
small=$SIM_PORT
start_sim off
off=$SIM_PORT
pylib - "$shared" "$slots" "$small" "$off" <<'EOF' || exit 1
import sys, time, simclient as sc
from simclient import check
shared, slots, small, off = (int(a) for a in sys.argv[1:])
rng = sc.rng(5)
head = sc.filler(rng, 400)
a = head + " " + sc.filler(rng, 200)
b = head + " " + sc.filler(rng, 200)   # shares the first 400 words with a
c = sc.filler(sc.rng(6), 600)           # shares nothing

def ask(port, text, **extra):
    r = sc.post(port, "/v1/chat/completions",
                dict({"messages": [{"role": "system", "content": "Answer briefly."},
                                   {"role": "user", "content": text}], "max_tokens": 4}, **extra))
    check(r.status == 200, "status %r" % r)
    return r.json

def cached(j):
    return j["usage"]["prompt_tokens_details"]["cached_tokens"]

t0 = time.monotonic()
j = ask(shared, a)
took = time.monotonic() - t0
T = j["usage"]["prompt_tokens"]
check(T > 500, "prompt of %d tokens" % T)
check(cached(j) == 0, "first request: nothing cached: %r" % j["usage"])
tm = j["timings"]
check(tm["cache_n"] == 0 and tm["prompt_n"] == T, "timings of a miss: %r" % tm)
check(abs(tm["prompt_ms"] - 0.4 * T) < 1e-6, "prompt_ms = 0.4 ms x %d tokens: %r" % (T, tm))
check(tm["predicted_n"] == j["usage"]["completion_tokens"], "predicted_n: %r" % tm)
check(took >= 0.4 * T / 1000.0, "the prefill delay was not applied (%.3f s)" % took)
j = ask(shared, a)
check(cached(j) == T - 1, "the same prompt again: all but the last token cached: %r" % j["usage"])
check(j["timings"]["cache_n"] == T - 1 and j["timings"]["prompt_n"] == 1, "timings: %r" % j["timings"])
check(abs(j["timings"]["prompt_ms"] - 0.4) < 1e-6, "one token computed: %r" % j["timings"])
j = ask(shared, b)
hb = cached(j)
check(200 < hb < j["usage"]["prompt_tokens"] - 100, "shared prefix only: %d of %d" % (hb, j["usage"]["prompt_tokens"]))
hc = cached(ask(shared, c))
check(0 < hc < 10, "an unrelated prompt shares the system message only: %d" % hc)
check(cached(ask(shared, a, cache_salt="s1")) == 0, "a cache_salt starts a cache of its own")
check(cached(ask(shared, a, cache_salt="s1")) == T - 1, "the same salt shares")
check(cached(ask(shared, a, cache_salt="s2")) == 0, "another salt does not")
check(cached(ask(shared, a, cache_prompt=False)) == 0, "cache_prompt false: no reuse")
log = sc.read_log("shared.jsonl")
check([l["cached"] for l in log] == [0, T - 1, hb, hc, 0, T - 1, 0, 0], "log: %r" % [l.get("cached") for l in log])
check(log[4]["extra"] == {"cache_salt": "s1"}, "the request's cache fields are logged: %r" % log[4])

# slots: one cache per slot, id_slot pins the slot
check(cached(ask(slots, a, id_slot=0)) == 0, "slot 0 is empty")
check(cached(ask(slots, a, id_slot=1)) == 0, "slot 1 has its own cache")
check(cached(ask(slots, a, id_slot=0)) == T - 1, "slot 0 kept the prompt")
check(cached(ask(slots, a, id_slot=7)) == T - 1, "a slot the server lacks: any slot (as llama.cpp)")
check(cached(ask(slots, a)) == T - 1, "no id_slot: the slot holding the prompt")
r = sc.post(slots, "/v1/chat/completions", {"messages": [{"role": "user", "content": "x"}], "id_slot": "one"})
check(r.status == 400, "id_slot must be an integer: %r" % r)
check([l["slot"] for l in sc.read_log("slots.jsonl")[:3]] == [0, 1, 0], "slots served")
props = sc.get(slots, "/props").json
check(props["total_slots"] == 2 and props["default_generation_settings"]["params"]["cache_prompt"] is True,
      "/props: %r" % props)

# LRU over token prefixes: a 700-token cache holds one of these prompts; the next evicts the
# least recently used tokens, the ends of older prompts first
check(cached(ask(small, a)) == 0 and cached(ask(small, a)) == T - 1, "small cache keeps one prompt")
ask(small, c)
left = cached(ask(small, a))
check(hc <= left < T // 4, "the unrelated prompt evicted the older one's end (%d of %d left)" % (left, T))

# off: the usage has no cache details, no timings
j = ask(off, a)
check("prompt_tokens_details" not in j["usage"] and "timings" not in j, "cache off: %r" % j)
check(sc.get(off, "/props").json["default_generation_settings"]["params"]["cache_prompt"] is False,
      "/props says the cache is off")
EOF

expect_code 2 "$DIPMAP" serve-sim --slots -1
assert_contains err "--slots must be in 0..1024"
expect_code 2 "$DIPMAP" serve-sim --prefix-cache lots
assert_contains err "--prefix-cache 'lots'"
expect_code 2 "$DIPMAP" serve-sim --prefill-ms-per-1k -3
assert_contains err "--prefill-ms-per-1k and --decode-ms-per-token must be in 0..1000000"
