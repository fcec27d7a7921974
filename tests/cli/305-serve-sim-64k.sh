# serve-sim answers a 64k-token request correctly (gold in the middle, a model without a dip),
# counting every prompt token, and serves 64 concurrent long requests (all answered, all
# logged). Elapsed times are printed for information only.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 100)'
start_sim sim --dataset ds.jsonl --model flat:edge=1,dip=0 --log log.jsonl

pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, time, simclient as sc
from simclient import check
port = int(sys.argv[1])
p = sc.prompt_at(42, 62000, 0.5, sc.rng(42))
n = sc.post(port, "/tokenize", {"prompt": p}).json["count"]
check(n >= 65536, "the prompt should be at least 64k tokens, got %d" % n)
t = time.monotonic()
r = sc.chat(port, p, model="flat", max_tokens=20)
dt = time.monotonic() - t
check(r.status == 200 and sc.content_of(r) == "PASS-42-OK", "64k request: %r" % r)
check(r.json["usage"]["prompt_tokens"] == n, "usage %r vs /tokenize %d" % (r.json["usage"], n))
log = sc.read_log("log.jsonl")[-1]
check(abs(log["x"] - 0.5) < 0.01, "gold should sit in the middle: x=%r" % log["x"])
print("64k-token request (%d tokens, %d bytes): %.1f ms" % (n, len(p), dt * 1000))

# 64 concurrent 16k-token requests
prompts = [sc.prompt_at(i, 15000, 0.3, sc.rng(i)) for i in range(64)]
t = time.monotonic()
res = sc.parallel(lambda i: sc.chat(port, prompts[i], model="flat", max_tokens=20), range(64), workers=64)
dt = time.monotonic() - t
for i, r in enumerate(res):
    check(r.status == 200 and sc.content_of(r) == "PASS-%d-OK" % i, "concurrent request %d: %r" % (i, r))
print("64 concurrent 16k-token requests: %.1f ms" % (dt * 1000))
log = sc.read_log("log.jsonl")
check(sum(1 for l in log if l["route"] == "/v1/chat/completions") == 65, "log lines")
EOF
stop_sim "$SIM_PID"
exit 0
