# Every report groups the questions into terciles of lexical overlap with their gold chunk (the
# share of the question's distinct tokens, in the run's tokenizer, found in the gold text) and
# shows each tercile's accuracy and depth curve, with no new prompts: the terciles hold equal
# numbers of questions, ordered low < mid < high by the overlap dipmap tokenize computes, and
# each tercile's trial count is its questions' trials. A run with no named axes has it too.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim \
    --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --template needle --lengths 1k --depths 0,50,100 --progress none --db t.db --run o
expect_code 0 "$DIPMAP" report o --db t.db --out rep --format md,json
assert_contains rep/summary.md "### Axis: overlap"
assert_contains rep/summary.md "Questions in terciles of lexical overlap with their gold chunk"
python3 "$TESTS/cli/lib/overlap_terciles.py" "$DIPMAP" "$REPO/datasets/needle.jsonl" >terciles.json ||
    fail "could not recompute the overlap terciles"
python3 - <<'PY' || fail "the overlap terciles are not as claimed"
import json
want = json.load(open("terciles.json"))
a = [x for x in json.load(open("rep/summary.json"))["axes"] if x["name"] == "overlap"]
assert len(a) == 1 and not a[0]["paired"] and a[0]["effects"] == [], a
vals = a[0]["values"]
assert [v["value"] for v in vals] == ["low", "mid", "high"], vals
for v in vals:
    assert v["questions"] == len(want[v["value"]]), (v, len(want[v["value"]]))
    assert v["valid"] == 3 * len(want[v["value"]]), v      # three depths per question
    assert len(v["by_depth"]) == 3
assert abs(vals[0]["questions"] - vals[2]["questions"]) <= 1
PY
