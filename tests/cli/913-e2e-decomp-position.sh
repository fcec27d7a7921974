# The position penalty (adjacent - haystack, run --arm haystack,adjacent) recovers serve-sim's
# planted dip (dip=0.5, flat=1: the same U at every length): the planted value is computed from
# the sim's own p per request (--log: per question the adjacent prompt's p less the mean p of
# its haystack prompts over the depths), the interval covers it and lies above 0; with the
# planted effect switched off (dip=0) the same run's interval covers 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 40 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
for d in 0.5 0; do
    start_sim "sim$d" --dataset golden.jsonl --haystack "$HAY" --model "dipmap-sim:dip=$d,flat=1"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
        --haystack "$HAY" --lengths 2k --depths 0:100:25 --progress none --arm haystack,adjacent \
        --db "t$d.db" --run pos
    expect_code 0 "$DIPMAP" report pos --db "t$d.db" --out "rep$d" --format json
done
python3 - <<'PY' || fail "the planted position penalty is not recovered (or is found without it)"
import collections, json, sys
by_q = collections.defaultdict(list)
for l in open("sim0.5.log"):
    r = json.loads(l)
    if r["route"] == "/v1/chat/completions" and r.get("p") is not None:
        by_q[r["question_id"]].append((r["x"], r["p"]))
planted = []
for q, v in by_q.items():
    assert len(v) == 10, (q, v)  # 5 haystack depths + 5 adjacent (the depth-100 prompt)
    xmax = max(x for x, _ in v)
    p_adj = [p for x, p in v if x == xmax]
    assert len(p_adj) == 6 and len(set(p_adj)) == 1, (q, v)
    planted.append(p_adj[0] - (sum(p for _, p in v) - 5 * p_adj[0]) / 5)
planted = sum(planted) / len(planted)
def pen(d):
    return json.load(open("rep%s/summary.json" % d))["decomposition"][0]["position_penalty"]
p, o = pen("0.5"), pen("0")
print("position: planted %.3f, recovered %.3f [%.3f, %.3f]; off %.3f [%.3f, %.3f]" % (
    planted, p["penalty"]["value"], p["penalty"]["lo"], p["penalty"]["hi"],
    o["penalty"]["value"], o["penalty"]["lo"], o["penalty"]["hi"]), file=sys.stderr)
assert p["pairs"] == 200 and p["questions"] == 40, p
assert planted > 0.1, planted
assert p["penalty"]["lo"] <= planted <= p["penalty"]["hi"] and p["penalty"]["lo"] > 0, (planted, p)
assert o["penalty"]["lo"] <= 0 <= o["penalty"]["hi"], o
PY
