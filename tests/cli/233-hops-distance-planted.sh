# serve-sim's planted hop-distance effect (issue 32 item 7) is recovered by the report's
# "by hop distance and order" rows: on a flat model (edge 0.95, no dip) with spacing=0.4 the
# model's p is 0.95 - 0.4 x the needles' gap as a share of the prompt (serve-sim logs each
# request's gap), so it falls with |depth B - depth A|. Against the same server without the
# effect (same seed: the same draws) every row's 95% interval holds the planted accuracy (the
# mean logged p of its prompts), the 100 pp rows sit below the 0 pp row with intervals apart, and
# without the effect they overlap. Removing the spacing term from serve-sim fails this test.
# The draws are seeded (seed 12): with five rows at 95% each, some seeds put one row's planted
# value outside its interval (seeds 11 and 13 did, both in the 60-trial B-first 100 pp row).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
expect_code 0 "$DIPMAP" gen hops --n 60 --seed 5 --out hops.jsonl
hay="$REPO/datasets/nq-haystack.jsonl.gz"
args=(--model m --dataset hops.jsonl --haystack "$hay" --lengths 2k --depths 0,50,100 --hops 2
    --progress none)
start_sim base --dataset hops.jsonl --model m:edge=0.95,dip=0,flat=1,seed=12
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run base --db t.db
start_sim sp --dataset hops.jsonl --model m:edge=0.95,dip=0,flat=1,seed=12,spacing=0.4
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run sp --db t.db
expect_code 0 "$DIPMAP" report sp --db t.db --out rep --format json --no-plots
expect_code 0 "$DIPMAP" report base --db t.db --out rep0 --format json --no-plots
python3 - <<'PY' || fail "the planted hop-distance effect is not recovered (above)"
import json
# the planted p of every request, by the needles' gap (0, about a half, about the whole prompt)
logged = {}
for o in map(json.loads, open("sp.log")):
    if o.get("p", -1) >= 0:
        assert "spacing" in o, o
        d = min((0, 0.5, 1), key=lambda v: abs(v - o["spacing"] / 0.95))
        logged.setdefault((d, o["reversed"]), []).append(o["p"])
        assert abs(o["p"] - (0.95 - 0.4 * o["spacing"])) < 1e-9, o
assert sum(map(len, logged.values())) == 540, {k: len(v) for k, v in logged.items()}
def rows(path):
    return {(g["distance"], g["order"]): g for g in json.load(open(path))["hops"]["by_distance"]}
sp, base = rows("rep/summary.json"), rows("rep0/summary.json")
for (d, order), g in sp.items():
    ps = [p for (ld, rev), v in logged.items() if ld == d and (order == "same" or rev == (order == "b-first")) for p in v]
    assert len(ps) == g["valid"], (d, order, len(ps), g)
    planted = sum(ps) / len(ps)
    lo, hi = g["interval95"]
    assert lo <= planted <= hi, ("planted outside the interval", d, order, planted, g)
    print(d, order, round(planted, 3), round(g["accuracy"], 3), [round(lo, 3), round(hi, 3)])
for order in ("a-first", "b-first"):
    assert sp[(1, order)]["interval95"][1] < sp[(0, "same")]["interval95"][0], (order, sp)
    assert base[(1, order)]["interval95"][1] >= base[(0, "same")]["interval95"][0], ("apart without it", base)
PY
exit 0
