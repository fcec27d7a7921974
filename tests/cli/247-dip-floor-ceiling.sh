# A run at the accuracy floor (every answer wrong, as a random-weight model gives) or the
# ceiling has no dip to measure (issue 43 item 3): it reported "dip +0.0 pp [+0.0, +0.0]" and
# the ordering advice "best order: source" from a tie of 0% everywhere. Now the end-of-run lines,
# summary.md, report.html and summary.json say the dip cannot be measured there (summary.json:
# "dip": null, "dip_bound": "floor"), and the advice names no order. A run off the bounds is
# unchanged.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 6
start_sim sim --dataset golden.jsonl --model floor:edge=0,dip=0,flat=1 \
    --model top:edge=1,dip=0,flat=1 --model mid:edge=0.9,dip=0.5,flat=1
run_args
for m in floor top mid; do
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model "$m" --lengths 1000 --depths 0:100:25 \
        --db t.db --run "$m"
    cp out "$m.out"
    expect_code 0 "$DIPMAP" report "$m" --db t.db --out "rep-$m"
done
assert_contains floor.out "accuracy: 0.0%"
assert_contains floor.out "dip: cannot be measured: every scored trial is wrong (the accuracy floor)"
assert_contains top.out "dip: cannot be measured: every scored trial is correct (the accuracy ceiling)"
assert_not_contains mid.out "dip: cannot be measured"
for f in rep-floor/summary.md rep-floor/report.html; do
    assert_contains "$f" "cannot be measured: every scored trial is wrong (the accuracy floor)"
    assert_contains "$f" "not measurable (floor)"
    assert_not_contains "$f" "+0.0 pp [+0.0, +0.0]"
    assert_contains "$f" "none (every order ties)"
done
assert_contains rep-top/summary.md "cannot be measured: every scored trial is correct (the accuracy ceiling)"
assert_not_contains rep-mid/summary.md "cannot be measured"
assert_not_contains rep-mid/summary.md "not measurable"
python3 - <<'PY' || fail "summary.json (above)"
import json
for run, bound in (("floor", "floor"), ("top", "ceiling"), ("mid", None)):
    d = json.load(open("rep-%s/summary.json" % run))
    (l,) = d["lengths"]
    assert l["dip_bound"] == bound, (run, l["dip_bound"])
    if bound:
        assert l["dip"] is None and l["dip_worst"] is None, (run, l["dip"])
    else:
        assert l["dip"]["value"] > 0.1, l["dip"]
PY
exit 0
