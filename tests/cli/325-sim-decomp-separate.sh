# serve-sim plants the length and distraction effects separately (lenpen=E, distract=E; dip=0):
# in a run of all three arms and the oracle, a model with lenpen alone shows a length penalty
# above 0 while the distraction and position penalties' intervals cover 0, and a model with
# distract alone shows a distraction penalty above 0 while the length and position penalties'
# intervals cover 0 (the adjacent arm holds the haystack too, so position cancels distraction).
# sanitizers: skip: a statistical check of a planted effect; 320 runs serve-sim's plants
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 40 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
for m in lenpen=0.6 distract=0.25; do
    start_sim "$m" --dataset golden.jsonl --haystack "$HAY" --model "dipmap-sim:dip=0,$m"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
        --haystack "$HAY" --lengths 8k --depths 0:100:50 --progress none \
        --arm haystack,padding,adjacent --controls oracle --db "$m.db" --run sep
    expect_code 0 "$DIPMAP" report sep --db "$m.db" --out "rep-$m" --format json
done
python3 - <<'PY' || fail "a planted effect leaks into another penalty (or is not found)"
import json, sys
def pens(m):
    d = json.load(open("rep-%s/summary.json" % m))["decomposition"][0]
    return {k: d[k + "_penalty"]["penalty"] for k in ("length", "distraction", "position")}
for m, found in (("lenpen=0.6", "length"), ("distract=0.25", "distraction")):
    p = pens(m)
    print(m, {k: "%.3f [%.3f, %.3f]" % (v["value"], v["lo"], v["hi"]) for k, v in p.items()}, file=sys.stderr)
    for k, v in p.items():
        if k == found:
            assert v["lo"] > 0, (m, k, v)
        else:
            assert v["lo"] <= 0 <= v["hi"], (m, k, v)
PY
