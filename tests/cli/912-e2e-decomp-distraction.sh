# The distraction penalty (padding - haystack at the same depth, run --arm haystack,padding)
# recovers serve-sim's planted distract=E (E lower whenever a chunk of its --haystack is in the
# prompt): the interval covers E and lies above 0; with the planted effect switched off
# (distract=0) the same run's interval covers 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 40 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
for e in 0.25 0; do
    start_sim "sim$e" --dataset golden.jsonl --haystack "$HAY" --model "dipmap-sim:dip=0,distract=$e"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
        --haystack "$HAY" --lengths 2k --depths 0:100:25 --progress none --arm haystack,padding \
        --db "t$e.db" --run dis
    expect_code 0 "$DIPMAP" report dis --db "t$e.db" --out "rep$e" --format json
done
python3 - <<'PY' || fail "the planted distraction penalty is not recovered (or is found without it)"
import json, sys
def pen(e):
    return json.load(open("rep%s/summary.json" % e))["decomposition"][0]
on, off = pen("0.25"), pen("0")
p, o = on["distraction_penalty"], off["distraction_penalty"]
print("distraction: planted 0.25, recovered %.3f [%.3f, %.3f]; off %.3f [%.3f, %.3f]" % (
    p["penalty"]["value"], p["penalty"]["lo"], p["penalty"]["hi"], o["penalty"]["value"],
    o["penalty"]["lo"], o["penalty"]["hi"]), file=sys.stderr)
assert p["pairs"] == 200 and p["questions"] == 40, p
assert p["penalty"]["lo"] <= 0.25 <= p["penalty"]["hi"] and p["penalty"]["lo"] > 0, p
assert o["penalty"]["lo"] <= 0 <= o["penalty"]["hi"], o
assert on["length_penalty"] is None and on["position_penalty"] is None, on
PY
