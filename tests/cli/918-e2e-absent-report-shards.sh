# A run with --absent in every report format and across shards: summary.md and report.html have
# the Needle-absent trials section (its table and absent.svg, inline in the HTML), summary.json
# its "absent" rows (per length and depth, per length, overall), and the Axes section has no
# "absent" axis; a run without --absent has none of it. Two shards merged hold exactly the
# single run's trial keys, twins included, with the same prompts.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model m:halluc=0.2,deny=0.1
args=(--endpoint "$SIM_URL" --model m --dataset "$REPO/datasets/needle.jsonl" --template qa-absent
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k --depths 0,50,100
    --progress none --run a)
expect_code 0 "$DIPMAP" run "${args[@]}" --absent 0.4 --db t.db
expect_code 0 "$DIPMAP" report a --db t.db --out rep
assert_contains rep/summary.md "## Needle-absent trials"
assert_contains rep/summary.md "| 1k | all |"
assert_contains rep/summary.md "(absent.svg)"
assert_contains rep/report.html 'id="absent"'
assert_contains rep/report.html "hallucination: absent twins answered"
[ -s rep/absent.svg ] || fail "no absent.svg"
assert_not_contains rep/summary.md "axis-absent"
python3 - <<'PY' || fail "summary.json's absent rows"
import json
a = json.load(open("rep/summary.json"))["absent"]
for rows in (a["hallucination"], a["false_absence"]):
    keys = [(r["length"], r["depth"]) for r in rows]
    assert keys == [(1024, 0), (1024, 50), (1024, 100), (1024, None), (None, None)], keys
    assert sum(r["n"] for r in rows[:3]) == rows[3]["n"] == rows[4]["n"] > 0, rows
PY
expect_code 0 "$DIPMAP" run "${args[@]}" --db plain.db
expect_code 0 "$DIPMAP" report a --db plain.db --out plain
assert_not_contains plain/summary.md "Needle-absent"
python3 -c 'import json,sys; sys.exit("absent" in json.load(open("plain/summary.json")))' ||
    fail "a run without --absent has an \"absent\" object"
[ ! -e plain/absent.svg ] || fail "a run without --absent drew absent.svg"
# shards: each holds its groups' twins; merged they are the single run
for s in 1 2; do
    expect_code 0 "$DIPMAP" run "${args[@]}" --absent 0.4 --shard "$s/2" --db "s$s.db"
done
expect_code 0 "$DIPMAP" merge m.db s1.db s2.db
keys() { q "$1" "select question_id, depth_bp, axes, prompt_sha256 from trials order by 1, 2, 3"; }
[ "$(keys m.db)" = "$(keys t.db)" ] || fail "the merged shards are not the single run's trials"
[ "$(q m.db "select count(*) from trials where axes = 'absent=yes'")" -gt 0 ] || fail "no twins"
