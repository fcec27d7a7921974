# The length penalty (oracle - padding, run --arm padding --controls oracle) recovers serve-sim's
# planted lenpen=E: at each length L the interval covers E x clamp(log2(L/1500)/4, 0, 1) (the
# sim's planted drop; no dip, so padding at any depth loses only that) and lies above 0; with
# the planted effect switched off (lenpen=0) the same run's interval covers 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 40 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
for e in 0.6 0; do
    start_sim "sim$e" --dataset golden.jsonl --haystack "$HAY" --model "dipmap-sim:dip=0,lenpen=$e"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
        --haystack "$HAY" --lengths 4k,8k --depths 0:100:25 --progress none --arm padding \
        --controls oracle --db "t$e.db" --run len
    expect_code 0 "$DIPMAP" report len --db "t$e.db" --out "rep$e" --format json
done
python3 - <<'PY' || fail "the planted length penalty is not recovered (or is found without it)"
import json, math, sys
def pen(e):
    return {x["length"]: x["length_penalty"] for x in json.load(open("rep%s/summary.json" % e))["decomposition"]}
on, off = pen("0.6"), pen("0")
for L in (4096, 8192):
    planted = 0.6 * min(1, max(0, math.log2(L / 1500) / 4))
    p = on[L]["penalty"]
    print("length %d: planted %.3f, recovered %.3f [%.3f, %.3f]; off %.3f [%.3f, %.3f]" % (
        L, planted, p["value"], p["lo"], p["hi"], off[L]["penalty"]["value"],
        off[L]["penalty"]["lo"], off[L]["penalty"]["hi"]), file=sys.stderr)
    assert on[L]["pairs"] == 200 and on[L]["questions"] == 40, on[L]
    assert p["lo"] <= planted <= p["hi"] and p["lo"] > 0, (L, planted, p)
    assert off[L]["penalty"]["lo"] <= 0 <= off[L]["penalty"]["hi"], (L, off[L])
PY
