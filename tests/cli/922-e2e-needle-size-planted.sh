# The needle-size effect recovered end to end (docs/effects.md "Needle size"; Lost in the
# Haystack, arXiv 2505.18148: smaller gold, lower accuracy, sharper position effect). serve-sim
# plants size=0.5 (E * s(g) * (1 + w(x)) / 2 off, s = 1 at 16 tokens, 0 at 256); a run of 120
# needle questions at 2k tokens, depths 0/50/100, --needle-tokens 24,256 is reported
# (summary.json "axes"): the paired difference 24 vs 256 and its 95% interval, bootstrapped over
# questions, lie below 0 and hold the planted difference (the mean of serve-sim's p per size,
# from its log); the dip (edges minus middle) is deeper at 24 tokens than at 256, as planted.
# The same run against the same model with the knob off (size=0): the difference's interval
# covers 0. Without the planted effect the first half fails; without the axis both do.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 120 9
args=(--model m --dataset golden.jsonl --template needle --lengths 2k --depths 0:100:50
    --haystack "$REPO/datasets/books-haystack.jsonl.gz" --needle-tokens 24,256 --progress none
    --db t.db)
start_sim on --dataset golden.jsonl --model m:edge=0.9,dip=0.3,flat=1,seed=5,size=0.5
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run on
start_sim off --dataset golden.jsonl --model m:edge=0.9,dip=0.3,flat=1,seed=5,size=0
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run off
for r in on off; do
    expect_code 0 "$DIPMAP" report "$r" --db t.db --out "rep-$r" --format json --no-plots
done
python3 - <<'PY' || fail "the planted needle-size effect is not recovered, or appears with the knob off (above)"
import json
def axis(run):
    ax = {a["name"]: a for a in json.load(open(f"rep-{run}/summary.json"))["axes"]}
    return ax["needle-tokens"]
def diff_small_minus_large(a):
    e = a["effects"][0]
    d = e["difference"]
    sign = 1 if (e["value"], e["versus"]) == ("24", "256") else -1
    assert {e["value"], e["versus"]} == {"24", "256"}, e
    lo, hi = sorted((sign * d["lo"], sign * d["hi"]))
    return sign * d["value"], lo, hi, e["pairs"]
def planted(run):
    p = {}
    for l in open(f"{run}.log"):
        o = json.loads(l)
        if o.get("p", -1) >= 0:
            p.setdefault(o["gold_tokens"], []).append(o["p"])
    assert sorted(p) == [24, 256], sorted(p)
    return sum(p[24]) / len(p[24]) - sum(p[256]) / len(p[256])
def dip(a, value):
    v = next(x for x in a["values"] if x["value"] == value)
    acc = {round(pt["depth"], 2): pt["accuracy"] for pt in v["by_depth"]}
    return (acc[0.0] + acc[1.0]) / 2 - acc[0.5]
on, off = axis("on"), axis("off")
est, lo, hi, n = diff_small_minus_large(on)
want = planted("on")
print(f"size=0.5: 24 vs 256 {est:+.3f} [{lo:+.3f}, {hi:+.3f}] ({n} pairs), planted {want:+.3f}")
assert n == 360, n
assert hi < 0 and lo <= want <= hi, (est, lo, hi, want)
d24, d256 = dip(on, "24"), dip(on, "256")
print(f"size=0.5: dip at 24 tokens {d24:.3f}, at 256 {d256:.3f}")
assert d24 > d256 + 0.05, (d24, d256)
est, lo, hi, n = diff_small_minus_large(off)
print(f"size=0:   24 vs 256 {est:+.3f} [{lo:+.3f}, {hi:+.3f}], planted {planted('off'):+.3f}")
assert lo <= 0 <= hi, (est, lo, hi)
PY
