# serve-sim is deterministic: the same requests after a restart get the same answers, and two
# models sharing a seed differ only where their curves differ (the deeper dip is wrong on a
# superset of the shallower one's errors; equal at the edges); another seed draws anew.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 150)'
models=(--model deep:edge=0.9,dip=0.5,seed=8 --model shallow:edge=0.9,dip=0.1,seed=8
    --model other:edge=0.9,dip=0.1,seed=9)

cat >client.py <<'EOF'
import sys, json, simclient as sc
port = int(sys.argv[1])
jobs = [(m, i, frac) for m in ("deep", "shallow") for i in range(150) for frac in (0.0, 0.5)]
jobs += [("other", i, 0.5) for i in range(150)]
def one(job):
    m, i, frac = job
    r = sc.chat(port, sc.prompt_at(i, 2500, frac, sc.rng(i)), model=m, max_tokens=16)
    sc.check(r.status == 200, "%r" % r)
    return [m, i, frac, sc.content_of(r), r.json["usage"]["prompt_tokens"]]
print(json.dumps(sc.parallel(one, jobs, workers=8)))
EOF
start_sim a --dataset ds.jsonl "${models[@]}"
pylib client.py "$SIM_PORT" >run1.json || fail "first client run"
stop_sim "$SIM_PID"
start_sim b --dataset ds.jsonl "${models[@]}"
pylib client.py "$SIM_PORT" >run2.json || fail "second client run"
stop_sim "$SIM_PID"
cmp -s run1.json run2.json || fail "answers differ across restarts"

pylib - <<'EOF' || exit 1
import json, simclient as sc
from simclient import check
rows = json.load(open("run1.json"))
ans = {(m, i, f): c == "PASS-%d-OK" % i for m, i, f, c, _ in rows}
mid_only_shallow = sum(ans["shallow", i, 0.5] and not ans["deep", i, 0.5] for i in range(150))
mid_only_deep = sum(ans["deep", i, 0.5] and not ans["shallow", i, 0.5] for i in range(150))
edge_diff = sum(ans["deep", i, 0.0] != ans["shallow", i, 0.0] for i in range(150))
other_diff = sum(ans["other", i, 0.5] != ans["shallow", i, 0.5] for i in range(150))
print("middle: only shallow right %d, only deep right %d; edge differences %d; other seed differs %d"
      % (mid_only_shallow, mid_only_deep, edge_diff, other_diff))
check(mid_only_deep == 0, "the deeper dip got a middle question right that the shallower missed")
check(mid_only_shallow > 5, "the curves differ in the middle, answers should too")
check(edge_diff == 0, "same seed, same edge accuracy: answers must be identical at the edge")
check(other_diff > 10, "another seed should draw differently")
EOF
exit 0
