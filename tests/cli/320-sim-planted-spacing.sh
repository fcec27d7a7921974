# serve-sim's spacing=E plants E times the measured needle spacing (tokens from the end of the
# earliest gold chunk to the start of the latest, over the prompt): a --needles 2 --spacing 0,50
# run's paired spacing effect recovers -E times the spacing measured in the stored prompts
# inside its interval; the model's p (--log) is lower for every spaced prompt than for its
# adjacent pair by about that much; without the key p is the same for both spacings.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
python3 - <<'PY'
import json, random
rnd = random.Random(11)
with open("multi.jsonl", "w") as f:
    for i in range(40):
        n = "Site%02d%s" % (i, "".join(rnd.choice("bcdfghklmnprstvz") for _ in range(5)))
        vals = [str(rnd.randrange(1000000, 9999999)) for _ in range(2)]
        gold = [{"id": "m%02d-%d" % (i, k), "title": "",
                 "text": "One of the vault codes of the %s observatory is %s." % (n, v), "value": v}
                for k, v in enumerate(vals)]
        f.write(json.dumps({"id": "m%02d" % i, "question": "What are the vault codes of the %s "
                            "observatory? List every one." % n, "answers": vals, "gold": gold}) + "\n")
PY
args=(--model dipmap-sim --dataset multi.jsonl --template needle
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 2k --depths 0,20,40
    --needles 2 --spacing 0,50 --progress none --store-prompts --run s)
start_sim sp --dataset multi.jsonl --model dipmap-sim:spacing=0.6
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db t.db
start_sim plain --dataset multi.jsonl
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db plain.db
[ "$(q t.db "select count(*) from trials")" = 240 ] || fail "not 240 trials"
expect_code 0 "$DIPMAP" report s --db t.db --out rep --format json
expect_code 0 "$DIPMAP" report s --db plain.db --out rep0 --format json
python3 - <<'PY' || fail "the planted spacing effect is not recovered"
import json, sqlite3
qs = {json.loads(l)["id"]: json.loads(l) for l in open("multi.jsonl")}
db = sqlite3.connect("t.db")
meas = {}
for qid, depth, axes, text in db.execute(
        "select t.question_id, t.depth_bp, t.axes, p.text from trials t"
        " join prompts p on p.sha256 = t.prompt_sha256"):
    g = [x["text"] for x in qs[qid]["gold"]]
    a0, a1 = text.find(g[0]), text.find(g[1])
    assert 0 <= a0 < a1, (qid, axes)
    meas[(qid, depth, axes)] = (a1 - a0 - len(g[0])) / len(text)
d = [meas[(q, dp, "needles=2;spacing=50")] - meas[(q, dp, "needles=2;spacing=0")]
     for (q, dp, ax) in meas if ax == "needles=2;spacing=0"]
want = -0.6 * sum(d) / len(d)
assert 0.2 < -want < 0.4, want
def effect(path):
    ax = {a["name"]: a for a in json.load(open(path))["axes"] if a["paired"]}
    return {e["value"]: e["difference"] for e in ax["spacing"]["effects"]}["50"]
e = effect("rep/summary.json")
assert e["lo"] <= want <= e["hi"] and e["hi"] < 0, (want, e)
e0 = effect("rep0/summary.json")
assert e0["lo"] <= 0 <= e0["hi"], e0
print("planted %.3f recovered %s; without the key %s" % (want, e, e0))
PY
python3 - <<'PY' || fail "serve-sim's p does not carry the planted spacing"
import json
def ps(path):
    out = {}
    for l in open(path):
        o = json.loads(l)
        if o.get("p", -1) >= 0 and "question_id" in o:
            out.setdefault((o["question_id"], round(o["x"], 2)), []).append(o["p"])
    return out
# the first needle sits at the depth in both spacings (same x): p of the pair
sp, plain = ps("sp.log"), ps("plain.log")
pairs = [v for v in sp.values() if len(v) == 2]
assert len(pairs) > 100, len(pairs)
assert all(abs(a - b) > 0.1 for a, b in pairs), [v for v in pairs if abs(v[0] - v[1]) <= 0.1][:3]
same = [v for v in plain.values() if len(v) == 2]
assert len(same) > 100 and all(a == b for a, b in same), [v for v in same if v[0] != v[1]][:3]
PY
