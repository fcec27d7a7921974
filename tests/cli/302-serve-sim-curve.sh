# serve-sim's planted curve over HTTP: ~1300 direct requests with the gold chunk at chosen
# positions and lengths reproduce P(x,T) = edge - depth(T)(1 - |2x-1|^shape) within binomial
# error; the logged P matches the formula recomputed here from the logged x and T; wrong
# answers are the hard negative's value when it is in the prompt, else "I don't know"; a prompt
# without the gold chunk is never answered correctly.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 2000)'
start_sim sim --dataset ds.jsonl --model m:edge=0.9,dip=0.4,shape=1.6,seed=2 --log log.jsonl

pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
EDGE, DIP, SHAPE = 0.9, 0.4, 1.6
# (name, gold word fraction, filler words, requests)
groups = [("start-4k", 0.0, 4000, 300), ("middle-4k", 0.5, 4000, 300), ("end-4k", 1.0, 4000, 300),
          ("middle-16k", 0.5, 14000, 150), ("nogold-4k", None, 4000, 60)]
jobs, qi = [], 0
for name, frac, words, n in groups:
    for k in range(n):
        jobs.append((name, qi, frac, words))
        qi += 1

def one(job):
    name, i, frac, words = job
    rng = sc.rng(i)
    negative = i % 2 == 0   # half the prompts carry the hard negative
    if frac is None:
        p = sc.prompt_at(i, words, 0.5, rng, negative).replace(sc.gold_text(i), "")
    else:
        p = sc.prompt_at(i, words, frac, rng, negative)
    r = sc.chat(port, p, model="m", max_tokens=32)
    check(r.status == 200, "request %d: %r" % (i, r))
    return (name, i, negative, sc.content_of(r))

res = sc.parallel(one, jobs, workers=8)
log = {l["question_id"]: l for l in sc.read_log("log.jsonl") if l["route"] == "/v1/chat/completions"}
check(len(log) == len(jobs), "log has %d questions, sent %d" % (len(log), len(jobs)))

by_group = {}
for name, i, negative, content in res:
    l = log["q%04d" % i]
    if name.startswith("nogold"):
        check(not l["gold"] and l["x"] is None and l["p"] == 0, "no gold: %r" % l)
    else:
        check(l["gold"], "gold not found: %r" % l)
        want = sc.planted_p(EDGE, DIP, SHAPE, l["x"], l["T"])
        check(abs(l["p"] - want) < 1e-9, "logged p %r != formula %r for %r" % (l["p"], want, l))
    correct = content == "PASS-%d-OK" % i
    check(correct == (l["outcome"] == "correct"), "log outcome %r vs content %r" % (l["outcome"], content))
    if not correct:
        want_wrong = "WRONG-%d-NO" % i if negative else "I don't know"
        check(content == want_wrong, "q%d wrong answer %r, expected %r" % (i, content, want_wrong))
    by_group.setdefault(name, []).append((correct, l["p"], l["x"], l["T"]))

acc = {}
for name, rows in by_group.items():
    ok = sum(c for c, _, _, _ in rows)
    good, mean, sd = sc.within(ok, [p for _, p, _, _ in rows])
    xs = [x for _, _, x, _ in rows if x is not None]
    Ts = [T for _, _, _, T in rows]
    acc[name] = ok / len(rows)
    print("%-11s n=%d correct=%d expected=%.1f sd=%.1f x~%.3f T~%d" % (
        name, len(rows), ok, mean, sd, sum(xs) / len(xs) if xs else -1, sum(Ts) // len(Ts)))
    check(good, "%s: %d correct, planted %.1f +- %.1f" % (name, ok, mean, sd))
check(acc["nogold-4k"] == 0, "never correct without the gold chunk")
# the U: both edges clearly above the middle, and the dip deeper at 16k than at 4k
check(acc["start-4k"] - acc["middle-4k"] > 0.06 and acc["end-4k"] - acc["middle-4k"] > 0.06,
      "no dip: %r" % acc)
check(acc["middle-4k"] - acc["middle-16k"] > 0.08, "dip does not deepen with length: %r" % acc)
EOF
stop_sim "$SIM_PID"
exit 0
