# compare on two --question-at end,start runs: a cell is (length, depth, question-at), each
# tested on its own, and each value is pooled over the lengths and depths. serve-sim's
# candidate loses 30% of its answers when the question comes first (start=0.3): every failing
# cell and the pooled line "question-at=start (pooled)" are start, the end cells and
# "question-at=end (pooled)" pass, the per-length test pools both, exit 1.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 60 >golden.jsonl
start_sim sim --dataset golden.jsonl --model base --model cand:start=0.3
for m in base cand; do
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model $m --dataset golden.jsonl \
        --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 2k --depths 0,50,100 \
        --template qa-both --question-at end,start --progress none --db t.db --run $m
done
expect_code 1 "$DIPMAP" compare base cand --db t.db --json cmp.json
assert_contains out "A cell is (length, depth, axes)"
assert_contains out "| 2k @ 50%, question-at=start | 60 |"
assert_contains out "| question-at=end (pooled) | 180 |"
assert_contains out "| question | axes | repeat |"
python3 - <<'PY' || fail "compare.json (above)"
import json
c = json.load(open("cmp.json"))
cells = [t for t in c["tests"] if t["scope"] == "cell"]
assert sorted((t["depth"], t["axes"]["question-at"]) for t in cells) == sorted(
    (d, v) for d in (0, 0.5, 1) for v in ("end", "start")), cells
assert all(t["pairs"] == 60 for t in cells)
bad = [t for t in cells if t["status"] == "regression"]
assert bad and all(t["axes"]["question-at"] == "start" for t in bad), bad
assert all(t["status"] == "ok" for t in cells if t["axes"]["question-at"] == "end")
pooled = {t["axes"]["question-at"]: t for t in c["tests"] if t["scope"] == "axis"}
assert pooled["start"]["status"] == "regression" and pooled["start"]["pairs"] == 180, pooled
assert pooled["end"]["status"] == "ok", pooled["end"]
lengths = [t for t in c["tests"] if t["scope"] == "length"]
assert len(lengths) == 1 and lengths[0]["pairs"] == 360 and lengths[0]["axes"] is None, lengths
PY
