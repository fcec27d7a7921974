# import nolima follows NoLiMa's own scoring rule (evaluation/async_evaluate.py): a needle that
# names {CHAR} is scored against the character chosen for it, even when the test lists
# gold_answers (issue 43 item 6: the gold said "Gary cannot drink milk." and the answers were
# ["Diana"], so the gold was scored wrong at every depth); a needle without {CHAR} keeps the
# test's gold_answers.
. "$TESTS/cli/lib/lib.sh"
printf '%s\n' \
    '{"id": "0501", "needle": "{CHAR} cannot drink milk.", "questions": {"onehop": "Which character cannot have {1}?"}, "tests": {"T01": {"input_args": ["a cheese sandwich"], "gold_answers": ["Diana"]}}, "character_set": ["Gary"]}' \
    '{"id": "0601", "needle": "The vault code KX-77 opens the {1}.", "questions": {"onehop": "What opens the {1}?"}, "tests": {"T01": {"input_args": ["north door"], "gold_answers": ["KX-77", "the code KX-77"]}}}' \
    >needles.jsonl
expect_code 0 "$DIPMAP" import nolima needles.jsonl --out n.jsonl
python3 - <<'PY' || fail "answers (above)"
import json
q = {x["id"]: x for x in map(json.loads, open("n.jsonl"))}
a = q["nolima-0501-T01-onehop"]
assert a["gold"][0]["text"] == "Gary cannot drink milk.", a
assert a["answers"] == ["Gary"], a["answers"]
assert a["gold"][0]["value"] == "Gary", a
b = q["nolima-0601-T01-onehop"]
assert b["answers"] == ["KX-77", "the code KX-77"], b["answers"]
assert not b.get("answer_outside_gold"), b
PY
expect_code 0 "$DIPMAP" run --dry-run --dataset n.jsonl --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --lengths 1k --depths 0
exit 0
