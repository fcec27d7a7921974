# Ordinal needles (MRCR-style, docs/effects.md "Ordinal needles"), end to end: `gen ordinal`
# writes questions with 8 notes of one template about one entity, the question naming occurrence
# k; `run --ordinal 2,4,8` places N of them, the named one at the depth. serve-sim plants the
# neighbour slip on a flat model (p = 0.9 everywhere): ordinal=0.1 turns a correct answer into
# the value of occurrence k - 1 or k + 1 with probability 0.1 log2 N. The report (summary.json,
# summary.md, report.html) recovers per N the planted accuracy 0.9 (1 - 0.1 log2 N) and neighbour
# rate 0.9 x 0.1 log2 N inside their intervals, the N = 8 neighbour rate above N = 2's with
# intervals apart; by target depth too. With the knob off (the same server otherwise) the
# neighbour rate is 0 in every (N, depth) cell and the accuracy 0.9 inside the intervals: the
# recovery above fails without the planting or without the measurement.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
expect_code 0 "$DIPMAP" gen ordinal --n 60 --seed 2 --out ord.jsonl
hay="$REPO/datasets/nq-haystack.jsonl.gz"
args=(--model m --dataset ord.jsonl --haystack "$hay" --lengths 2k --depths 0,50,100
    --ordinal 2,4,8 --repeats 2 --progress none --db t.db)
start_sim on --dataset ord.jsonl --model m:edge=0.9,dip=0,flat=1,seed=5,ordinal=0.1
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run on
start_sim off --dataset ord.jsonl --model m:edge=0.9,dip=0,flat=1,seed=5
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run off
[ "$(n_trials on)" = 1080 ] || fail "not 60 questions x 3 N x 3 depths x 2 repeats"
expect_code 0 "$DIPMAP" report on --db t.db --out rep-on --no-plots
expect_code 0 "$DIPMAP" report off --db t.db --out rep-off --no-plots
python3 - <<'PY' || fail "the planted ordinal effect is not recovered (above)"
import json, math, sys
bad = []
def check(name, rows, want_acc, want_nb):
    for r in rows:
        key = f"{name} N={r.get('n', 'all')} depth={r.get('depth', 'all')}"
        a, nb = want_acc(r), want_nb(r)
        lo, hi = r["interval95"]
        if not lo <= a <= hi:
            bad.append(f"{key}: planted accuracy {a:.3f} outside [{lo:.3f}, {hi:.3f}] ({r['accuracy']:.3f})")
        lo, hi = r["neighbour_interval95"]
        if nb == 0:
            if r["neighbour"] != 0:
                bad.append(f"{key}: {r['neighbour']} neighbour answers without the planted effect")
        elif not lo <= nb <= hi:
            bad.append(f"{key}: planted neighbour rate {nb:.3f} outside [{lo:.3f}, {hi:.3f}] ({r['neighbour_rate']:.3f})")
on = json.load(open("rep-on/summary.json"))["ordinal"]
off = json.load(open("rep-off/summary.json"))["ordinal"]
slip = lambda r: 0.1 * math.log2(r["n"])
check("on", on["by_n"], lambda r: 0.9 * (1 - slip(r)), lambda r: 0.9 * slip(r))
# by depth: every N pooled (equal trials per N)
mean = sum(0.1 * math.log2(n) for n in (2, 4, 8)) / 3
check("on", on["by_depth"], lambda r: 0.9 * (1 - mean), lambda r: 0.9 * mean)
check("off", off["by_n"], lambda r: 0.9, lambda r: 0)
if any(r["neighbour"] for r in off["cells"]):
    bad.append(f"neighbour answers without the planted effect: {off['cells']}")
by = {r["n"]: r for r in on["by_n"]}
if [sorted(by)] != [[2, 4, 8]] or not by[8]["neighbour_interval95"][0] > by[2]["neighbour_interval95"][1]:
    bad.append(f"the N = 8 neighbour rate is not above N = 2's: {by.get(8)} vs {by.get(2)}")
if len(on["cells"]) != 9 or sum(r["valid"] for r in on["by_n"]) != 1080:
    bad.append(f"{len(on['cells'])} (N, depth) cells, {sum(r['valid'] for r in on['by_n'])} scored trials")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
for f in rep-on/summary.md rep-on/report.html; do
    grep -q "Ordinal needles" "$f" || fail "$f has no Ordinal needles section"
    grep -q "By the target occurrence" "$f" || fail "$f has no accuracy by the target's depth"
done
grep -q "^| 8 | .*% | \\\\\[.*\\\\\] | .*% |" rep-on/summary.md || fail "summary.md has no N = 8 row"
echo ok
