# run --experiment order on a golden set: each question gets a synthetic retrieved list (the
# gold's rank drawn from --rank-p, hard negatives then haystack filler); per question, k and
# policy one trial, keyed by the named axes k and policy (export shows them); for one
# (question, k) every policy holds the same chunks (same gold presence, lengths within a few
# tokens) and only the order moves the gold (edges-first puts rank 2 last: its depth 1.0);
# resume sends nothing again; the report has the (policy, k) table, recall@k rising with k, the
# paired differences, the plain-words recommendation and summary.json "order".
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model m:edge=0.92,dip=0.37,flat=1
run=("$DIPMAP" run --endpoint "$SIM_URL" --model m
     --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz"
     --experiment order --k 3,5,10 --rank-p 0.4 --db t.db --run o1 --progress none)
expect_code 0 "${run[@]}"
assert_contains out "run o1: complete"
assert_contains out "trials: 540 of 540 done"
assert_contains err "order experiment: 36 of 36 questions get a synthetic list of 10 chunks"
expect_code 0 "${run[@]}"
assert_contains out "trials: 540 of 540 done (0 this time, 540 kept from before)"

expect_code 0 "$DIPMAP" export o1 --db t.db --format jsonl --out trials.jsonl
python3 - <<'PY' || fail "order trials (above)"
import json, collections
rows = [json.loads(l) for l in open("trials.jsonl")]
assert len(rows) == 540, len(rows)
by = collections.defaultdict(dict)
for r in rows:
    ax = dict(kv.split("=") for kv in r["axes"].split(";"))
    assert set(ax) == {"k", "policy"}, r["axes"]
    assert r["length"] == 0 and r["depth_bp"] == 0, r
    by[(r["question_id"], int(ax["k"]))][ax["policy"]] = r
assert len(by) == 36 * 3
moved = 0
for (q, k), pol in by.items():
    assert set(pol) == {"source", "best-first", "edges-first", "second-last", "ascending"}, pol
    present = {p: r["gold_offset"] >= 0 for p, r in pol.items()}
    assert len(set(present.values())) == 1, (q, k, present)   # same chunks: same gold presence
    lens = [r["realized_length"] for r in pol.values()]
    assert max(lens) - min(lens) <= 8, (q, k, lens)            # only the order differs
    depths = {p: round(r["realized_depth"], 6) for p, r in pol.items()}
    if present["best-first"]:
        # ascending mirrors best-first
        assert abs(depths["ascending"] - (1 - depths["best-first"])) < 0.25, (q, k, depths)
        moved += depths["edges-first"] != depths["best-first"]
    else:
        assert all(d < 0 for d in depths.values()), depths
assert moved > 20, moved
PY

expect_code 0 "$DIPMAP" report o1 --db t.db --out rep --no-plots --price-in 2 --price-out 10
assert_contains rep/summary.md "## Ordering experiment"
assert_contains rep/summary.md "Recommendation: "
assert_contains rep/summary.md "prompt tokens per question, \$0.00"
expect_code 2 "$DIPMAP" report o1 --db t.db --out rep2 --price-in 2
assert_contains err "--price-in and --price-out go together"
assert_contains rep/summary.md "| policy | k | accuracy | 95% interval | expected |"
assert_contains rep/summary.md "Each policy against best-first (rank order) at the same k"
assert_contains rep/summary.md "no depth run of this model, template and tokenizer in the store"
assert_not_contains rep/summary.md "## Dip"
assert_contains rep/report.html 'id="order"'
python3 - <<'PY' || fail "summary.json order (above)"
import json
o = json.load(open("rep/summary.json"))["order"]
assert o["k"] == [3, 5, 10] and o["reference"] == "best-first", o["k"]
assert o["policies"] == ["source", "best-first", "edges-first", "second-last", "ascending"]
cells = {(c["policy"], c["k"]): c for c in o["cells"]}
assert len(cells) == 15
for p in o["policies"]:
    r = [cells[(p, k)]["recall"] for k in o["k"]]
    assert r == sorted(r) and r[-1] == 1.0, r   # geometric ranks: every gold within 10
    t = [cells[(p, k)]["prompt_tokens"] for k in o["k"]]
    assert t == sorted(t), t
    assert cells[(p, 3)]["valid"] == 36 and cells[(p, 3)]["interval95"][0] <= cells[(p, 3)]["accuracy"]
    assert cells[(p, 3)]["expected"] is None
    c = cells[(p, 10)]
    want = (c["prompt_tokens"] * 2 + c["completion_tokens"] * 10) / 1e6
    assert abs(c["cost_per_question"] - want) < 1e-12, c
assert cells[("edges-first", 5)]["recall"] == cells[("source", 5)]["recall"]
assert len(o["differences"]) == 4 * 3
assert all(0 <= d["p"] <= d["p_holm"] <= 1 for d in o["differences"])
rec = o["recommendation"]
assert rec["text"].startswith(f'{rec["policy"]} at k={rec["k"]}: '), rec
PY

# dipmap view shows the same order report (its section and the accuracy-vs-k plot)
"$DIPMAP" view --db t.db --port 0 >view.out 2>view.err &
view_pid=$!
wait_for_file view.out $view_pid
url=$(head -n 1 view.out)
python3 - "${url}run?name=o1" <<'PY' || { kill "$view_pid"; fail "view of an order run (above)"; }
import sys, urllib.request
page = urllib.request.urlopen(sys.argv[1], timeout=30).read().decode()
assert "Ordering experiment" in page and "Recommendation: " in page, page[:2000]
if "<svg" in page:   # with gnuplot: the accuracy-vs-k plot, not a U-curve
    assert "ordering policies: accuracy vs k" in page and "U-curve" not in page, "wrong plot"
assert "Dip per length" not in page
PY
kill "$view_pid"
wait "$view_pid" 2>/dev/null
exit 0
