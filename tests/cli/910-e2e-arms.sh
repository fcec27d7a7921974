# run --arm haystack,padding,adjacent (docs/effects.md "Length, distraction and position"): the
# three arms are one axis of the trial key, crossed with every depth. The padding prompt is the
# run's length exactly, holds the gold and no haystack chunk (every other document is the
# repeated " ." padding token) and puts the gold at the trial's depth; the adjacent prompt is
# the haystack prompt whose gold is the last document, next to the question (the haystack arm's
# depth-100 prompt, byte for byte, at every depth). serve-sim sees haystack text in the
# haystack and adjacent requests only (its --log "haystack"). The report has the Length,
# distraction and position table (one row per length and penalty) and decomp.svg with the
# three penalties; summary.json its "decomposition". An unknown arm is refused (exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 6 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
start_sim sim --dataset golden.jsonl --haystack "$HAY"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --lengths 2k --depths 0,50,100 --progress none --store-prompts \
    --arm haystack,padding,adjacent --controls oracle --db t.db --run arms
[ "$(q t.db "select count(*) from trials")" = 60 ] || fail "not 6 questions x 3 depths x 3 arms + 6 oracles"
[ "$(q t.db "select count(distinct axes) from trials where length > 0")" = 3 ] || fail "not 3 arms"
[ "$(q t.db "select count(*) from trials where length > 0 and realized_length != 2048")" = 0 ] ||
    fail "a prompt is not exactly 2048 tokens"
# the adjacent arm sends the haystack arm's depth-100 prompt at every depth
[ "$(q t.db "select count(*) from trials a join trials h on h.question_id = a.question_id and
    h.axes = 'arm=haystack' and h.depth_bp = 10000 where a.axes = 'arm=adjacent' and
    a.prompt_sha256 = h.prompt_sha256")" = 18 ] || fail "an adjacent prompt is not the gold-last haystack prompt"
[ "$(q t.db "select count(distinct prompt_sha256) from trials where axes = 'arm=padding'")" = 18 ] ||
    fail "the padding prompts do not differ by depth"
# the log: haystack text in the haystack and adjacent requests, none in padding or oracle ones
python3 - <<'PY' || fail "serve-sim saw haystack text where the arm has none (or none where it has)"
import json
rows = [json.loads(l) for l in open("sim.log") if '"T"' in l]
rows = [r for r in rows if r.get("T")]
hay = sum(1 for r in rows if r.get("haystack") is True)
none = sum(1 for r in rows if r.get("haystack") is False)
assert (hay, none) == (36, 24), (hay, none)
PY
# the prompts themselves (the builder run uses): padding documents hold only " ." tokens and the
# gold; the gold at the depth, the adjacent gold the last document
python3 - <<'PY' || fail "the arms' prompts are not as documented"
import json, re, subprocess, os
dm, hay = os.environ["DIPMAP"], os.environ["REPO"] + "/datasets/nq-haystack.jsonl.gz"
q = json.loads(open("golden.jsonl").readline())
def show(depth, arm):
    p = subprocess.run([dm, "show-prompt", "--dataset", "golden.jsonl", "--haystack", hay,
                        "--length", "2k", "--depth", str(depth), "--axes", "arm=" + arm],
                       capture_output=True, text=True, check=True).stdout
    docs = re.findall(r"^Document \[\d+\] \(Title: (.*?)\) (.*)$", p, re.M)
    head = p.splitlines()[0]
    return p, docs, head
for depth in (0, 50, 100):
    p, docs, head = show(depth, "padding")
    assert "realized 2048, +0.00%" in head, head
    gold = [i for i, (t, x) in enumerate(docs) if q["gold"][0]["text"] in x]
    assert len(gold) == 1, gold
    others = [x for i, (t, x) in enumerate(docs) if i != gold[0]]
    assert others and all(t == "Padding" and set(x.replace(" .", "")) <= {" ", ""} for t, x in
                          [d for i, d in enumerate(docs) if i != gold[0]]), docs[:3]
    realized = float(re.search(r"realized ([\d.]+)%\)", head).group(1))
    assert abs(realized - depth) <= 100.0 / len(docs) + 1, (depth, realized, len(docs))
a, adocs, _ = show(30, "adjacent")
h, hdocs, _ = show(100, "haystack")
assert a.split("\n", 5)[5] == h.split("\n", 5)[5], "adjacent differs from the haystack at 100%"
assert q["gold"][0]["text"] in adocs[-1][1] and all(t != "Padding" for t, _ in adocs), adocs[-1]
PY
expect_code 0 "$DIPMAP" report arms --db t.db --out rep
assert_contains rep/summary.md "## Length, distraction and position"
for k in length distraction position; do
    assert_contains rep/summary.md "| 2048 | $k |"
done
assert_contains rep/summary.md "(decomp.svg)"
if has_tool gnuplot; then
    [ -s rep/decomp.svg ] && [ -s rep/decomp.png ] || fail "decomp.svg/.png not drawn"
    for k in length distraction position; do assert_contains rep/decomp.svg "$k"; done
    assert_contains rep/report.html "Length, distraction and position"
fi
python3 - <<'PY' || fail "summary.json has no decomposition"
import json
d = json.load(open("rep/summary.json"))["decomposition"]
assert [x["length"] for x in d] == [2048], d
for k in ("length_penalty", "distraction_penalty", "position_penalty"):
    assert d[0][k]["pairs"] == 18 and d[0][k]["questions"] == 6, (k, d[0][k])
    assert -1 <= d[0][k]["penalty"]["lo"] <= d[0][k]["penalty"]["value"] <= d[0][k]["penalty"]["hi"] <= 1
PY
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --lengths 2k --depths 0 --progress none --arm haystack,bogus --db t.db --run bad
assert_contains err "--arm: unknown value 'bogus' (one of haystack, padding, adjacent)"
