# run --absent: serve-sim plants a hallucination rate (halluc=H: with the gold absent it answers
# instead of abstaining) and a false-absence rate (deny=D: with the gold present it says "not in
# the documents"); the report's summary.json recovers both inside their intervals, overall and
# at each length, and the end-of-run, progress and rescore accuracy lines count the depth curve's
# trials as the report's totals do (the twins' abstentions are not correct answers to a
# question: before, the run printed 75.5% where the report said 78.9%). With both knobs off the same run measures ~0 for each (no event at all), so
# neither the planting nor the measurement can be missing without this test failing.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
args=(--model m --dataset "$REPO/datasets/needle.jsonl" --template qa-absent
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k,2k --depths 0:100:25
    --repeats 2 --absent 0.5 --progress none --run ab)
start_sim planted --dataset "$REPO/datasets/needle.jsonl" --model m:halluc=0.3,deny=0.15
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db t.db --progress lines
cp out run.out
cp err run.err
expect_code 0 "$DIPMAP" report ab --db t.db --out rep --format json
expect_code 0 "$DIPMAP" rescore ab --scorer contains --as ab2 --db t.db
cp out rescore.out
start_sim off --dataset "$REPO/datasets/needle.jsonl" --model m
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db off.db
expect_code 0 "$DIPMAP" report ab --db off.db --out off --format json
python3 - <<'PY' || fail "the planted hallucination and false-absence rates are not recovered"
import json
def rows(path):
    a = json.load(open(path))["absent"]
    return a["hallucination"], a["false_absence"]
hal, den = rows("rep/summary.json")
for want, v in ((0.3, hal), (0.15, den)):
    for r in v:
        if r["depth"] is not None:
            continue  # per length and overall: enough trials for a 95% interval to hold it
        lo, hi = r["interval"]
        assert lo <= want <= hi, (want, r)
        assert r["n"] >= 100, r
    assert abs(v[-1]["rate"] - want) < 0.08, (want, v[-1])
# every (length, depth) has a row of each kind
cells = {(r["length"], r["depth"]) for r in hal if r["depth"] is not None}
assert cells == {(l, d) for l in (1024, 2048) for d in (0, 25, 50, 75, 100)}, cells
hal, den = rows("off/summary.json")
assert hal[-1]["events"] == 0 and hal[-1]["n"] >= 300, hal[-1]
assert den[-1]["events"] == 0 and den[-1]["n"] >= 700, den[-1]
PY
# the absent twins are outside the depth curve: its cells count the present trials only
python3 - <<'PY' || fail "absent twins entered the depth curve"
import json
cells = json.load(open("rep/summary.json"))["cells"]
present = 36 * 2  # questions x repeats per (length, depth)
assert all(c["trials"] == present for c in cells), [(c["length"], c["depth"], c["trials"]) for c in cells]
PY
# every accuracy a run and rescore print is the report's: the depth curve's trials only
python3 - <<'PY' || fail "an accuracy line counts the absent twins (the report does not)"
import json, re
t = json.load(open("rep/summary.json"))["totals"]
want = "%.1f%% (%d of %d" % (100.0 * t["correct"] / t["valid"], t["correct"], t["valid"])
run = open("run.out").read()
assert "accuracy: " + want + " scored trials)" in run, (want, run)
progress = [l for l in open("run.err") if l.startswith("progress: ")]
assert progress and ", accuracy %.1f%%," % (100.0 * t["correct"] / t["valid"]) in progress[-1], progress[-1:]
rescore = open("rescore.out").read()
assert "accuracy: %s) -> %s)" % (want, want) in rescore, (want, rescore)
assert re.search(r"\d+ control and needle-absent trial\(s\) are reported apart", rescore), rescore
PY
