# --needles 1,2,4 --spacing 0,25,50: N of the question's gold chunks, placed apart (the first at
# the depth, each next one the spacing's share of the distractor tokens later, clamped at the
# end), all needed for the answer (each chunk's "value", scored all-of). Checked on the stored
# prompts: the number of needles, their order and their measured spacing; a correct answer
# names every needle's value; serve-sim's planted needles=0.1 (per needle beyond the first) is
# recovered inside its interval; more needles than a question's gold chunks is refused.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
python3 - <<'PY'
import json, random
rnd = random.Random(7)
names = ["Aster", "Borea", "Calyx", "Dorne", "Elmira", "Fennic", "Galva", "Hollis", "Isenor",
         "Jarrow", "Kestle", "Lumen", "Marrow", "Nerith", "Orlan", "Pavis", "Quell", "Rhodan",
         "Sable", "Tamsin", "Umbra", "Varen", "Wexley", "Xanth", "Yarrow", "Zephyr", "Avalon",
         "Brisk", "Corvin", "Delmar"]
with open("multi.jsonl", "w") as f:
    for i, n in enumerate(names):
        vals = [str(rnd.randrange(1000000, 9999999)) for _ in range(4)]
        gold = [{"id": "m%02d-%d" % (i, k), "title": "",
                 "text": "One of the vault codes of the %s observatory is %s." % (n, v), "value": v}
                for k, v in enumerate(vals)]
        f.write(json.dumps({"id": "m%02d" % i, "question": "What are the vault codes of the %s "
                            "observatory? List every one." % n, "answers": vals, "gold": gold}) + "\n")
PY
start_sim sim --dataset multi.jsonl --model dipmap-sim:needles=0.1
args=(--endpoint "$SIM_URL" --model dipmap-sim --dataset multi.jsonl --template needle
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 2k --depths 0,25,50
    --progress none --db t.db)
expect_code 0 "$DIPMAP" run "${args[@]}" --needles 1,2,4 --spacing 0,25,50 --run n --store-prompts
[ "$(q t.db "select count(*) from trials")" = 810 ] || fail "not 810 trials"
python3 - <<'PY' || fail "the needles are not placed as claimed"
import json, sqlite3
qs = {json.loads(l)["id"]: json.loads(l) for l in open("multi.jsonl")}
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.depth_bp, t.axes, t.outcome, t.answer, p.text from"
                  " trials t join prompts p on p.sha256 = t.prompt_sha256").fetchall()
checked = 0
for qid, depth, axes, outcome, answer, text in rows:
    ax = dict(kv.split("=") for kv in axes.split(";"))
    n, sp, d = int(ax["needles"]), int(ax["spacing"]) / 100, depth / 10000
    gold = [g["text"] for g in qs[qid]["gold"]]
    at = [text.find(g) for g in gold]
    assert all(a >= 0 for a in at[:n]) and all(a < 0 for a in at[n:]), (qid, axes, at)
    assert at[:n] == sorted(at[:n]), (qid, axes, at)
    if outcome == "correct":
        assert all(g["value"] in answer for g in qs[qid]["gold"][:n]), (qid, axes, answer)
    # measured spacing: the share of the distractor characters between consecutive needles
    start, end = text.index("<text>"), text.index("</text>")
    block = end - start - sum(len(g) for g in gold[:n])
    for j in range(1, n):
        want = min(1.0, d + j * sp) - min(1.0, d + (j - 1) * sp)
        got = (at[j] - at[j - 1] - len(gold[j - 1])) / block
        assert abs(got - want) <= 0.12, (qid, axes, j, got, want)
        checked += 1
assert checked > 500, checked
PY
expect_code 0 "$DIPMAP" report n --db t.db --out rep --format json
python3 - <<'PY' || fail "the planted needles effect is not recovered"
import json
ax = {a["name"]: a for a in json.load(open("rep/summary.json"))["axes"] if a["paired"]}
a = ax["needles"]
assert [v["value"] for v in a["values"]] == ["1", "2", "4"], a["values"]
eff = {e["value"]: e["difference"] for e in a["effects"]}
assert eff["2"]["lo"] <= -0.1 <= eff["2"]["hi"] and eff["2"]["hi"] < 0, eff
assert eff["4"]["lo"] <= -0.3 <= eff["4"]["hi"], eff
assert "spacing" in ax
PY
expect_code 2 "$DIPMAP" run "${args[@]}" --needles 5 --run n2
assert_contains err "question m00 has 4 gold chunks; --needles 5 needs as many"
expect_code 2 "$DIPMAP" run "${args[@]}" --needles 0 --run n3
assert_contains err "--needles: '0' is not a count 1..64"
expect_code 2 "$DIPMAP" run "${args[@]}" --spacing 120 --run n4
assert_contains err "--spacing: '120' is not a percentage 0..100"
