# serve-sim's planted ordinal slip (--model NAME:ordinal=E; docs/effects.md "Ordinal needles").
# An ordinal question (scored exact, its answer the value of one of its gold chunks) is answered
# with that one value, never the list of the notes present; with ordinal=1 (E log2 N >= 1 at every
# N >= 2) every answer that would be correct names a neighbouring occurrence instead: the value of
# the note just before or just after the named one in the prompt, both sides taken. The request's
# draws (p, u) are those of the same server without the knob, whose answers are the named value
# at every such request. Bad values (ordinal=2, ordinal=x) are refused at start, naming the key.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
expect_code 0 "$DIPMAP" gen ordinal --n 12 --seed 4 --max-occurrence 2 --out ord.jsonl
args=(--model m --dataset ord.jsonl --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k
    --depths 0,50,100 --ordinal 2,4,8 --progress none --store-prompts --db t.db)
start_sim slip --dataset ord.jsonl --model m:edge=0.95,dip=0,flat=1,seed=3,ordinal=1
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run slip
start_sim exact --dataset ord.jsonl --model m:edge=0.95,dip=0,flat=1,seed=3
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --run exact
python3 - <<'PY' || fail "serve-sim's ordinal slip is not the planted one (above)"
import json, sqlite3, sys
qs = {json.loads(l)["id"]: json.loads(l) for l in open("ord.jsonl")}
db = sqlite3.connect("t.db")
def trials(run):
    return {(q, d, a): (ans, text) for q, d, a, ans, text in db.execute(
        "select t.question_id, t.depth_bp, t.axes, t.answer, p.text from trials t join runs r"
        " on r.id = t.run_id join prompts p on p.sha256 = t.prompt_sha256 where r.name = ?", (run,))}
def draws(log):
    return [(l["p"], l["u"], l["outcome"]) for l in map(json.loads, open(log)) if "u" in l]
slip, exact = trials("slip"), trials("exact")
bad, sides = [], set()
assert len(slip) == len(exact) == 12 * 3 * 3, (len(slip), len(exact))
for key, (ans, text) in slip.items():
    q = qs[key[0]]
    n = int(key[2].split("=")[1])
    notes = sorted((text.index(g["text"]), g["value"]) for g in q["gold"][:n])
    values = [v for _, v in notes]
    k = values.index(q["answers"][0])
    if values != [g["value"] for g in q["gold"][:n]]:
        bad.append(f"{key}: the notes are not in gold order")
    right = exact[key][0]
    if right not in (q["answers"][0], "I don't know"):
        bad.append(f"{key}: without the knob the answer is {right!r}, not the named value")
    if right == "I don't know":
        if ans != right:
            bad.append(f"{key}: a wrong draw answered {ans!r} with the knob")
        continue
    near = [values[i] for i in (k - 1, k + 1) if 0 <= i < n]
    if ans not in near:
        bad.append(f"{key}: answered {ans!r}, not a neighbour of occurrence {k + 1} ({near})")
    else:
        sides.add(values.index(ans) - k)
a, b = draws("slip.log"), draws("exact.log")
if [x[:2] for x in a] and sorted(x[:2] for x in a) != sorted(x[:2] for x in b):
    bad.append("the knob changed the draws p and u")
if {x[2] for x in a} - {"neighbour", "idk"} or {x[2] for x in b} - {"correct", "idk"}:
    bad.append(f"outcomes {sorted({x[2] for x in a})} with the knob, {sorted({x[2] for x in b})} without")
if sides != {-1, 1}:
    bad.append(f"neighbour sides taken: {sorted(sides)}")
print("\n".join(bad[:10]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
for v in 2 x; do
    expect_code 2 "$DIPMAP" serve-sim --port 0 --dataset ord.jsonl --model "m:ordinal=$v"
    grep -q "ordinal must be a number in \[0,1\]" err || fail "ordinal=$v: no message naming the key"
done
echo ok
