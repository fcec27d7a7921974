# run --ordinal N places the question's N similar notes (gen ordinal: gold chunk i is occurrence
# i + 1) in gold order, the named occurrence k at the depth: the stored prompt holds each of the N
# notes once and no other, k - 1 before the named one and N - k after it, the realized depth the
# planned one, and between the depths of one (question, N, repeat) only the notes move (the same
# distractors in the same order). The trial is scored exactly on the named value. gen ordinal's
# notes share one template about one entity with distinct values; its options and run's refusals
# are checked: --needles 1, --max-occurrence above --needles, --ordinal with --needles, a set
# whose questions have too few notes or an answer no note gives (file:line, exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
expect_code 0 "$DIPMAP" gen ordinal --n 6 --seed 8 --needles 6 --max-occurrence 4 --out ord.jsonl
python3 - <<'PY' || fail "gen ordinal wrote other sets (above)"
import json, re
qs = [json.loads(l) for l in open("ord.jsonl")]
assert len(qs) == 6
ks = set()
for q in qs:
    g = q["gold"]
    assert len(g) == 6 and q["scorer"] == "exact", q
    vals = [c["value"] for c in g]
    assert len(set(vals)) == 6 and all(c["text"].replace(c["value"], "V") == g[0]["text"].replace(vals[0], "V") for c in g), g
    k = vals.index(q["answers"][0]) + 1
    word = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}[k]
    assert f"the {word} note" in q["question"] and 1 <= k <= 4, (k, q["question"])
    ks.add(k)
assert len(ks) >= 3, ks
PY
start_sim sim --dataset ord.jsonl --model m:edge=0.95,dip=0,flat=1
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset ord.jsonl \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 2k --depths 0,25,50,75,100 \
    --ordinal 4,6 --repeats 2 --progress none --store-prompts --db t.db --run r
python3 - <<'PY' || fail "the notes are not placed as claimed (above)"
import json, re, sqlite3, sys
qs = {json.loads(l)["id"]: json.loads(l) for l in open("ord.jsonl")}
rows = sqlite3.connect("t.db").execute(
    "select t.question_id, t.depth_bp, t.repeat, t.axes, t.realized_depth, t.outcome, t.answer, p.text"
    " from trials t join prompts p on p.sha256 = t.prompt_sha256").fetchall()
assert len(rows) == 6 * 5 * 2 * 2, len(rows)
bad, rest = [], {}
for qid, depth, rep, axes, rdepth, outcome, answer, text in rows:
    q, n = qs[qid], int(axes.split("=")[1])
    g = q["gold"]
    k = [c["value"] for c in g].index(q["answers"][0])
    at = [text.find(c["text"]) for c in g]
    if any(text.count(c["text"]) != (1 if i < n else 0) for i, c in enumerate(g)):
        bad.append(f"{qid} {axes} depth {depth}: not the first {n} notes once each")
    if at[:n] != sorted(at[:n]):
        bad.append(f"{qid} {axes} depth {depth}: the notes are out of gold order")
    if abs(rdepth - depth / 10000) > 0.1:
        bad.append(f"{qid} {axes} depth {depth}: the named note sits at {rdepth:.2f}")
    if (outcome == "correct") != (answer == q["answers"][0]):
        bad.append(f"{qid} {axes}: {answer!r} scored {outcome}")
    other = text
    for c in g[:n]:
        other = other.replace(c["text"], "")
    # the distractors in their order: their titles (each depth cuts the last one to the length)
    rest.setdefault((qid, n, rep), set()).add(tuple(re.findall(r"\(Title: ([^)]+)\)", other)))
moved = [k for k, v in rest.items() if len(v) != 1 or len(next(iter(v))) < 3]
if moved:
    bad.append(f"{len(moved)} of {len(rest)} (question, N, repeat) groups changed more than the notes: {moved[:3]}")
print("\n".join(bad[:10]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
expect_code 2 "$DIPMAP" gen ordinal --needles 1
assert_contains err "--needles must be 2 to 64 (got 1)"
expect_code 2 "$DIPMAP" gen ordinal --needles 4 --max-occurrence 5
assert_contains err "--max-occurrence must be 1 to --needles (got 5)"
hay="$REPO/datasets/nq-haystack.jsonl.gz"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset ord.jsonl --haystack "$hay" \
    --lengths 2k --ordinal 4 --needles 2 --progress none --db t.db --run bad
assert_contains err "--ordinal places its own needles: not with --needles"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset ord.jsonl --haystack "$hay" \
    --lengths 2k --ordinal 8 --progress none --db t.db --run bad
assert_contains err 'ord.jsonl:1: "gold": question ordinal-0001 has 6 gold chunks'
"$DIPMAP" gen ordinal --n 4 --seed 1 --needles 4 --max-occurrence 4 --out late.jsonl
python3 - <<'PY'
import json
qs = [json.loads(l) for l in open("late.jsonl")]
k = max(range(4), key=lambda i: [c["value"] for c in qs[i]["gold"]].index(qs[i]["answers"][0]))
print(k + 1, file=open("late.line", "w"))
PY
line=$(cat late.line)
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset late.jsonl --haystack "$hay" \
    --lengths 2k --ordinal 2 --progress none --db t.db --run bad
assert_contains err "late.jsonl:$line:"
assert_contains err "--ordinal 2 needs 2 gold chunks and the answer's occurrence within them"
[ "$(n_trials bad)" = 0 ] || fail "a refused run stored trials"
echo ok
