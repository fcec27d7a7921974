# An order experiment's report (run --experiment order) has the lexical-overlap terciles too, in
# an Axes section after the order section (summary.md and report.html) and in summary.json: the
# terciles are the questions split by the overlap dipmap tokenize computes, and each tercile's
# accuracy is that of its questions' scored trials over every policy and k (from the store). No
# depth columns or depth curves (the order trials have none), no small multiples.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model m:edge=0.92,dip=0.37,flat=1
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m \
    --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --experiment order --k 3,5 --rank-p 0.4 --db t.db --run o1 --progress none
expect_code 0 "$DIPMAP" report o1 --db t.db --out rep
assert_contains rep/summary.md "## Axes"
assert_contains rep/summary.md "### Axis: overlap"
assert_contains rep/summary.md "| value | accuracy | 95% interval | trials |"
assert_not_contains rep/summary.md "| at 0% |"
assert_contains rep/report.html "Axis: overlap"
[ ! -e rep/axis-overlap.svg ] || fail "an order run got depth small multiples"
# the Axes section comes after the order section
python3 - <<'PY' || fail "sections out of order"
md = open("rep/summary.md").read()
assert md.index("## Ordering experiment") < md.index("## Axes") < md.index("## Run"), md
PY
q t.db "select question_id, outcome from trials where outcome in ('correct', 'wrong')" >trials.txt
python3 "$TESTS/cli/lib/overlap_terciles.py" "$DIPMAP" "$REPO/datasets/needle.jsonl" >terciles.json ||
    fail "could not recompute the overlap terciles"
python3 - <<'PY' || fail "the order run's overlap terciles are not as claimed"
import json
want = {k: set(v) for k, v in json.load(open("terciles.json")).items()}
trials = [l.strip().split("|") for l in open("trials.txt")]
s = json.load(open("rep/summary.json"))
assert "order" in s
a = [x for x in s["axes"] if x["name"] == "overlap"]
assert len(a) == 1 and not a[0]["paired"], s["axes"]
vals = a[0]["values"]
assert [v["value"] for v in vals] == ["low", "mid", "high"], vals
for v in vals:
    t = [o for q, o in trials if q in want[v["value"]]]
    assert v["questions"] == len(want[v["value"]]), v
    assert v["valid"] == len(t) and v["correct"] == t.count("correct"), (v, len(t))
    assert "by_depth" not in v and "by_length" not in v, v
PY
