# serve-sim's window=E deepens the dip by E * (1 - |2 fill - 1|), fill = prompt tokens / --ctx
# (deepest at half the served window): a --lengths 25%,50%,90% run against serve-sim --ctx 8192
# (flat=1: the same base dip at every length) reports the largest dip at 50%, and each length's
# dip interval holds the dip the model's own p (--log) implies; without the key the model's dip
# is the same at every length.
# sanitizers: skip: a statistical check of a planted effect; 320 runs serve-sim's plants
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
args=(--model dipmap-sim --dataset "$REPO/datasets/needle.jsonl" --template needle
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --depths 0,50,100 --repeats 2
    --lengths 25%,50%,90% --progress none --run w)
start_sim win --dataset "$REPO/datasets/needle.jsonl" --ctx 8192 --model dipmap-sim:window=0.4,flat=1,dip=0.2
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db t.db
start_sim plain --dataset "$REPO/datasets/needle.jsonl" --ctx 8192 --model dipmap-sim:flat=1,dip=0.2
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db plain.db
expect_code 0 "$DIPMAP" report w --db t.db --out rep --format json
python3 - <<'PY' || fail "the planted window effect is not recovered"
import json
def model_dips(path):
    # per length: the dip the model's p implies (edges' mean p less the middle's), as the report
    # measures it (edge = mean of depth 0 and 100, middle = depth 50)
    p = {}
    for l in open(path):
        o = json.loads(l)
        if o.get("p", -1) < 0 or "T" not in o:
            continue
        length = min((2048, 4096, 7372), key=lambda n: abs(n - o["T"]))
        where = "shallow" if o["x"] < 0.2 else "deep" if o["x"] > 0.8 else "middle"
        p.setdefault((length, where), []).append(o["p"])
    m = {k: sum(v) / len(v) for k, v in p.items()}
    return {n: (m[(n, "shallow")] + m[(n, "deep")]) / 2 - m[(n, "middle")] for n in (2048, 4096, 7372)}
planted, plain = model_dips("win.log"), model_dips("plain.log")
assert max(plain.values()) - min(plain.values()) < 0.02, plain
assert planted[4096] - plain[4096] > 0.35, (planted, plain)
assert planted[4096] > planted[2048] + 0.15 and planted[4096] > planted[7372] + 0.25, planted
dips = {l["length"]: l["dip"] for l in json.load(open("rep/summary.json"))["lengths"]}
for n, want in planted.items():
    assert dips[n]["lo"] <= want <= dips[n]["hi"], (n, want, dips[n])
assert dips[4096]["lo"] > dips[2048]["value"] and dips[4096]["lo"] > dips[7372]["value"], dips
PY
