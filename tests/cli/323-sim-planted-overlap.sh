# serve-sim's overlap=E plants "paraphrased evidence is harder": E * (1 - o) * (1 + w(x)) / 2
# lower, o the question's lexical overlap with its gold (the report's definition), w the dip's
# shape at the gold's position. Two servers with the same seed (common random numbers), one with
# overlap=0.6, get the same 300 NQ prompts (60 questions, 5 depths): per overlap tercile the drop
# in accuracy (paired by prompt, 95% bootstrap interval over questions) holds the planted value
# computed from each prompt's o and x, is larger for low-overlap questions than for high ones
# and, for low-overlap questions, larger mid-prompt than at the edges; the model's p (--log) is
# lower by exactly the planted amount. Without the effect in the code the drop is 0 and this fails.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 60 >nq.jsonl
hay="$REPO/datasets/nq-haystack.jsonl.gz"
args=(--dataset nq.jsonl --haystack "$hay" --lengths 2k --depths 0:100:25 --progress none)
start_sim base --dataset nq.jsonl --model m:edge=0.9,dip=0.3,flat=1,seed=5
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m "${args[@]}" --run base --db t.db
start_sim para --dataset nq.jsonl --model m:edge=0.9,dip=0.3,flat=1,seed=5,overlap=0.6
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m "${args[@]}" --run para --db t.db
expect_code 0 "$DIPMAP" report para --db t.db --out rep --format json --no-plots
python3 - <<'PY' || fail "the planted overlap effect is not recovered (above)"
import json, random
E, SHAPE = 0.6, 1.6
def load(path):
    out = {}
    for l in open(path):
        o = json.loads(l)
        if o.get("p", -1) >= 0:
            out[(o["question_id"], o["x"], o["T"])] = o
    return out
base, para = load("base.log"), load("para.log")
assert sorted(base) == sorted(para) and len(base) == 300, (len(base), len(para))
w = lambda x: 1 - abs(2 * x - 1) ** SHAPE
planted = {}
for k, b in base.items():
    p = para[k]
    o = p["overlap"]
    assert 0 <= o <= 1 and o == b["overlap"], (k, o, b.get("overlap"))
    eff = E * (1 - o) * (1 + w(k[1])) / 2
    assert abs((b["p"] - p["p"]) - eff) < 1e-9, (k, b["p"], p["p"], eff)   # the model's p
    planted[k] = eff
# the terciles the report groups questions by (its overlap axis: equal counts, ties by id)
qo = sorted({(p["overlap"], k[0]) for k, p in para.items()})
assert qo[0][0] < 0.4 and qo[-1][0] > 0.8, (qo[0], qo[-1])  # NQ questions overlap in a wide range
n = len(qo)
terc = {q: ("low" if i * 3 < n else "mid" if i * 3 < 2 * n else "high") for i, (_, q) in enumerate(qo)}
ax = {a["name"]: a for a in json.load(open("rep/summary.json"))["axes"]}
assert "overlap" in ax, list(ax)
def drop_by_q(keys):
    d = {}
    for k in keys:
        s = d.setdefault(k[0], [0, 0, 0.0])
        s[0] += (base[k]["outcome"] == "correct") - (para[k]["outcome"] == "correct")
        s[1] += 1
        s[2] += planted[k]
    return d
def interval(d, seed=1):
    qs = sorted(d)
    rnd = random.Random(seed)
    reps = []
    for _ in range(2000):
        s = [d[rnd.choice(qs)] for _ in qs]
        reps.append(sum(x[0] for x in s) / sum(x[1] for x in s))
    reps.sort()
    return reps[49], reps[1949]
got = {}
for t in ("low", "mid", "high"):
    d = drop_by_q([k for k in base if terc[k[0]] == t])
    est = sum(x[0] for x in d.values()) / sum(x[1] for x in d.values())
    want = sum(x[2] for x in d.values()) / sum(x[1] for x in d.values())
    lo, hi = interval(d)
    print(f"{t}: drop {est:.3f} [{lo:.3f}, {hi:.3f}], planted {want:.3f}")
    assert lo <= want <= hi and lo > 0, (t, est, lo, hi, want)
    got[t] = (est, want)
assert got["low"][0] > got["high"][0] and got["low"][1] > got["high"][1], got
# depth: for low-overlap questions the drop mid-prompt (depths 25-75 %) exceeds the edges'
low = [k for k in base if terc[k[0]] == "low"]
mid = [k for k in low if 0.2 < k[1] < 0.8]
edge = [k for k in low if not 0.2 < k[1] < 0.8]
dm, de = (sum(planted[k] for k in s) / len(s) for s in (mid, edge))
om = sum((base[k]["outcome"] == "correct") - (para[k]["outcome"] == "correct") for k in mid) / len(mid)
oe = sum((base[k]["outcome"] == "correct") - (para[k]["outcome"] == "correct") for k in edge) / len(edge)
print(f"low overlap: planted mid {dm:.3f} edges {de:.3f}; measured mid {om:.3f} edges {oe:.3f}")
assert dm > de and om > oe, (dm, de, om, oe)
PY
# the key is validated
expect_code 2 "$DIPMAP" serve-sim --port 0 --model m:overlap=2
assert_contains err "overlap must be a number in [0,1]"
