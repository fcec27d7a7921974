# serve-sim --faults: over 2000 identical requests each fault kind shows up at roughly its
# configured rate (binomial bounds), exactly as often as the request log says, with its
# documented wire behaviour (429 + Retry-After, closed connection, short body, HTML, 200 with
# an error object, delay); identical requests get different faults, so a retry can succeed.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 5)'
rates="429=0.06,500=0.05,503=0.05,drop=0.05,truncate=0.05,garbage=0.05,slow=0.04,error200=0.05"
start_sim sim --dataset ds.jsonl --model m:edge=1,dip=0 --faults "$rates" --fault-seed 3 \
    --slow-ms 300 --retry-after-ms 1500 --log log.jsonl

pylib - "$SIM_PORT" "$rates" <<'EOF' || exit 1
import sys, json, math, collections, simclient as sc
from simclient import check
port, spec = int(sys.argv[1]), sys.argv[2]
rates = {k: float(v) for k, v in (kv.split("=") for kv in spec.split(","))}
N = 2000
prompt = sc.prompt_at(2, 150, 0.5, sc.rng(5))   # the same request every time

def one(_):
    return sc.chat(port, prompt, model="m", max_tokens=20)

res = sc.parallel(one, range(N), workers=32)
seen = collections.Counter()
for r in res:
    if r.error == "drop":
        kind = "drop"
    elif r.error == "truncate":
        check(r.status == 200 and int(r.headers["content-length"]) > len(r.body),
              "truncated body must be shorter than Content-Length: %r" % r)
        kind = "truncate"
    elif r.error:
        sc.fail("unexpected transport error %r" % r)
    elif r.status == 429:
        check(r.headers.get("retry-after") == "2" and r.headers.get("retry-after-ms") == "1500",
              "429 headers: %r" % r.headers)
        check(r.json["error"]["code"] == "rate_limit_exceeded", "429 body %r" % r.body)
        kind = "429"
    elif r.status == 500:
        check(r.json["error"]["code"] == 500 and r.json["error"]["type"] == "InternalServerError", "500: %r" % r)
        kind = "500"
    elif r.status == 503:
        check(r.json == {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}},
              "503: %r" % r)
        kind = "503"
    elif r.status == 200 and r.json is None and r.error is None:
        # a completion cut short: not JSON (an HTML page would stop a run, not be retried)
        check(r.body.startswith(b'{"id":"chatcmpl-sim"') and not r.body.lstrip().startswith(b"<"),
              "garbage: %r" % r)
        kind = "garbage"
    elif r.status == 200 and r.json is not None and "error" in r.json:
        check("choices" not in r.json and r.json["error"]["message"], "error200: %r" % r)
        kind = "error200"
    elif r.status == 200 and r.json is not None and "choices" in r.json:
        check(sc.content_of(r) == "PASS-2-OK", "normal answer %r" % r)
        kind = "slow" if r.elapsed >= 0.3 else "ok"
    else:
        sc.fail("unclassified response %r" % r)
    seen[kind] += 1

log = [l for l in sc.read_log("log.jsonl") if l["route"] == "/v1/chat/completions"]
check(len(log) == N, "log has %d generation lines, sent %d" % (len(log), N))
logged = collections.Counter(l["fault"] for l in log)
for kind, rate in rates.items():
    sd = math.sqrt(N * rate * (1 - rate))
    # slow answers are recognised by the client only by their delay, so count them from the log
    got = logged[kind] if kind == "slow" else seen[kind]
    print("%-8s configured %.3f observed %4d expected %6.1f (sd %.1f)" % (kind, rate, got, N * rate, sd))
    check(abs(got - N * rate) <= 4.5 * sd, "%s: %d of %d, rate %g" % (kind, got, N, rate))
    if kind != "slow":
        check(logged[kind] == seen[kind], "%s: client saw %d, log says %d" % (kind, seen[kind], logged[kind]))
# every slow-fault answer took at least --slow-ms (a lower bound, not a timing benchmark)
check(seen["slow"] >= logged["slow"], "slow: log %d, client saw only %d delayed answers" % (logged["slow"], seen["slow"]))
check(logged["none"] + logged["slow"] == seen["ok"] + seen["slow"], "answered requests disagree with the log")
drop_status = [l["status"] for l in log if l["fault"] == "drop"]
check(set(drop_status) <= {0}, "a dropped request is logged with status 0: %r" % drop_status[:5])

# faults do not depend on content: the same request failed and succeeded
# (from the log: an answer without a fault that took 0.3 s on a busy machine counts as "slow" above)
check(logged["none"] > 1000 and seen["429"] > 0, "identical requests got different faults")
EOF
stop_sim "$SIM_PID"

# the same seed gives the same fault sequence (sequential requests)
start_sim seq --model m --faults "429=0.3,500=0.2" --fault-seed 11
p1=$SIM_PORT
pylib - "$p1" >seq1 <<'EOF' || exit 1
import sys, simclient as sc
port = int(sys.argv[1])
print(" ".join(str(sc.chat(port, "hello %d" % i, model="m").status) for i in range(40)))
EOF
stop_sim "$SIM_PID"
start_sim seq2 --model m --faults "429=0.3,500=0.2" --fault-seed 11
pylib - "$SIM_PORT" >seq2 <<'EOF' || exit 1
import sys, simclient as sc
port = int(sys.argv[1])
print(" ".join(str(sc.chat(port, "other text %d" % i, model="m").status) for i in range(40)))
EOF
stop_sim "$SIM_PID"
cmp -s seq1 seq2 || fail "fault sequence differs across restarts with the same --fault-seed: $(cat seq1) / $(cat seq2)"
grep -q 429 seq1 && grep -q 500 seq1 && grep -q 200 seq1 || fail "expected a mix of statuses: $(cat seq1)"
exit 0
