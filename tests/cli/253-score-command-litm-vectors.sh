# dipmap score: every published Lost-in-the-Middle scoring vector (QA and KV) passes through the
# command-line scorer exactly as run scores; a disagreement exits 1 naming file:line; bad lines
# exit 2 naming file:line and field; a <think> block never earns credit.
. "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" score --scorer litm "$TESTS/data/litm/qa_scoring_vectors.jsonl.gz"
assert_contains out "answers scored with litm"
assert_contains out "629 of 629 agree with the expected score (all)"
expect_code 0 "$DIPMAP" score --scorer kv "$TESTS/data/litm/kv_scoring_vectors.jsonl.gz"
assert_contains out "121 of 121 agree with the expected score (all)"
# the same vectors under another scorer disagree where the metrics differ: exit 1, each named
expect_code 1 "$DIPMAP" score --scorer contains "$TESTS/data/litm/qa_scoring_vectors.jsonl.gz"
assert_contains err "qa_scoring_vectors.jsonl.gz:42: edge-041: scored 0, expected 1"
# reasoning is split off before scoring (configurable tags); per-line answer_regex and scorer
cat >pairs.jsonl <<'J'
{"id": "think", "answer": "<think>is it 4887095?</think>6817932", "answers": ["4887095"], "expected": 0}
{"id": "after", "answer": "<think>hmm</think>\n4887095", "answers": ["4887095"], "expected": 1}
{"id": "tags", "answer": "[T]4887095[/T] no idea", "answers": ["4887095"], "expected": 0}
{"id": "re", "answer": "The year 1901.", "answers": ["1902"], "answer_regex": "19\\d\\d", "expected": 1}
{"id": "mc", "answer": "B. Although", "answers": ["A"], "scorer": "exact", "expected": 0}
{"id": "kv", "answer": "X-1", "value": "x-1"}
J
expect_code 1 "$DIPMAP" score --scorer litm --each pairs.jsonl
printf '1\tthink\t0\n2\tafter\t1\n3\ttags\t1\n4\tre\t1\n5\tmc\t0\n6\tkv\t1\n' >want
head -6 out | cmp - want || fail "per-line scores: $(cat out)"
assert_contains out "4 of 5 agree with the expected score"
assert_contains err "pairs.jsonl:3: tags: scored 1, expected 0"
sed -n 3p pairs.jsonl >tags.jsonl
expect_code 0 "$DIPMAP" score --scorer litm --reasoning-tags '[T],[/T]' --each tags.jsonl
assert_contains out "1	tags	0"
assert_contains out "1 of 1 agree with the expected score (all)"
# bad input: exit 2 with file:line and field
printf '{"id": "x", "answers": ["a"]}\n' >noanswer.jsonl
expect_code 2 "$DIPMAP" score --scorer litm noanswer.jsonl
assert_contains err 'noanswer.jsonl:1: needs "answer" (or "model_answer"), a string'
printf '{"answer": "x", "answers": ["x"], "expected": 2}\n' >badexp.jsonl
expect_code 2 "$DIPMAP" score --scorer litm badexp.jsonl
assert_contains err 'badexp.jsonl:1: "expected" must be 0 or 1'
printf '{"answer": "x", "answers": ["x"]}\nnot json\n' >badjson.jsonl
expect_code 2 "$DIPMAP" score --scorer litm badjson.jsonl
assert_contains err 'badjson.jsonl:2: must be a JSON object'
expect_code 2 "$DIPMAP" score --scorer bogus pairs.jsonl
assert_contains err "score: --scorer must be one of litm, kv, contains, exact, regex, all, got bogus"
expect_code 2 "$DIPMAP" score --scorer litm --reasoning-tags '<think>' pairs.jsonl
assert_contains err 'expected OPEN,CLOSE'
