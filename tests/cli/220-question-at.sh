# --question-at end,start,both crosses the question's place with lengths and depths in one
# paired run: every stored prompt has the question where its axis value says (start: only
# before the documents, end: only after, both: both), the values share their distractors and
# order, the store keys trials by axes (resume sends nothing), export has the axes column, and
# the report's paired effect recovers serve-sim's planted start=0.15 drop inside its interval
# (both vs end: no effect). A template without a start slot and an unknown value are refused
# before anything is sent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 60 >golden.jsonl
start_sim sim --dataset golden.jsonl --model dipmap-sim:start=0.15
args=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 2k --depths 0:100:25
    --progress none --db t.db)
expect_code 0 "$DIPMAP" run "${args[@]}" --template qa-both --question-at end,start,both \
    --run qa --store-prompts
[ "$(q t.db "select count(*) from trials")" = 900 ] || fail "not 900 trials"
[ "$(q t.db "select group_concat(distinct axes) from (select axes from trials order by axes)")" = \
    "question-at=both,question-at=end,question-at=start" ] || fail "axes not stored"
python3 - <<'PY' || fail "prompts do not place the question as claimed"
import json, sqlite3, re
qs, gold = {}, {}
for l in open("golden.jsonl"):
    o = json.loads(l)
    qs[o["id"]] = o["question"]
    gold[o["id"]] = {g["title"] for g in o["gold"]}
db = sqlite3.connect("t.db")
rows = db.execute("select t.question_id, t.depth_bp, t.axes, p.text from trials t join prompts p"
                  " on p.sha256 = t.prompt_sha256").fetchall()
assert len(rows) == 900, len(rows)
titles = {}
for qid, depth, axes, text in rows:
    value = axes.split("=")[1]
    q = qs[qid]
    first_doc = text.index("Document [1]")
    last_doc = text.rindex("Document [")
    before = text[:first_doc].count(q)
    after = text[last_doc:].count(q)
    want = {"start": (1, 0), "end": (0, 1), "both": (1, 1)}[value]
    assert (before, after) == want, (qid, depth, value, before, after)
    t = tuple(x for x in re.findall(r"Document \[\d+\] \(Title: (.*?)\) ", text) if x not in gold[qid])
    titles.setdefault((qid, depth), {})[value] = t
# the same documents in the same order for the three values: the longer question lines of a
# value may only shorten or drop the last filler chunk (in selection order), never reorder
def subseq(a, b):
    it = iter(b)
    return all(x in it for x in a)
for key, v in titles.items():
    longest = max(v.values(), key=len)
    for t in v.values():
        assert subseq(t, longest) and len(longest) - len(t) <= 1, key
PY
# resume: every trial is done, nothing is sent
expect_code 0 "$DIPMAP" run "${args[@]}" --template qa-both --question-at end,start,both --run qa
assert_contains out "requests: 0 (0 retries)"
[ "$(q t.db "select count(*) from trials")" = 900 ] || fail "the resume added trials"
"$DIPMAP" export qa --db t.db --format csv --out e.csv || fail "export failed"
head -n 1 e.csv | tr -d '\r' | tr ',' '\n' | grep -qx axes || fail "export has no axes column"
grep -q ',question-at=start,[0-9]*,[0-9]*.$' e.csv || fail "export lacks the axis values"
# the report: one row per value, the paired effects, the planted -15 pp recovered
expect_code 0 "$DIPMAP" report qa --db t.db --out rep --format md,json
assert_contains rep/summary.md "### Axis: question-at"
assert_contains rep/summary.md "question-at start vs end: "
# one U-curve per axis value, drawn when gnuplot is here
if has_tool gnuplot DIPMAP_REQUIRE_GNUPLOT; then
    for v in end start both; do
        grep -q "question-at=$v" rep/axis-question-at.svg || fail "axis plot lacks the $v curve"
    done
    [ -s rep/axis-question-at.png ] || fail "no axis-question-at.png"
fi
python3 - <<'PY' || fail "the planted effect is not recovered"
import json
ax = [a for a in json.load(open("rep/summary.json"))["axes"] if a["paired"]]
assert [a["name"] for a in ax] == ["question-at"], ax
a = ax[0]
assert [v["value"] for v in a["values"]] == ["end", "start", "both"], a["values"]
eff = {e["value"]: e for e in a["effects"]}
s = eff["start"]["difference"]
assert eff["start"]["versus"] == "end" and eff["start"]["pairs"] == 300
assert s["lo"] <= -0.15 <= s["hi"] and s["hi"] < 0, s
b = eff["both"]["difference"]
assert b["lo"] <= 0 <= b["hi"], b
PY
# refused up front: a template without a start slot, an unknown value
expect_code 2 "$DIPMAP" run "${args[@]}" --question-at end,start --run qa2
assert_contains err "--question-at start: template"
assert_contains err "has no line with {question} before {documents}"
expect_code 2 "$DIPMAP" run "${args[@]}" --template qa-both --question-at middle --run qa3
assert_contains err "--question-at: unknown value 'middle' (one of end, start, both)"
[ "$(q t.db "select count(*) from runs")" = 1 ] || fail "a refused run was recorded"
