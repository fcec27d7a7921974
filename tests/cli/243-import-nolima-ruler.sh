# dipmap import nolima and import ruler (README "Importing NoLiMa and RULER sets"), on small files
# in the published shapes (tests/data/import/SOURCE.md). NoLiMa: one golden-set question per
# entry x question type x test, the needle with the test's input_args and a character of
# character_set (seeded) as the gold chunk, the question with the same args, the answer the
# character (gold_answers only for a needle without {CHAR}), the type's distractor as a hard
# negative. RULER: the needle
# sentences whose value is in outputs are the gold chunks, the others hard negatives, the question
# the input's query, the answers outputs. The sets load (show-prompt builds a trial of each), and
# bad records are named by file, line and field, writing nothing.
. "$TESTS/cli/lib/lib.sh"
data=$TESTS/data/import
hay=$REPO/datasets/nq-haystack.jsonl.gz
expect_code 0 "$DIPMAP" import nolima "$data/nolima-needle-set.jsonl" --out n.jsonl
assert_contains err "import: 5 questions -> n.jsonl"
expect_code 0 "$DIPMAP" import nolima "$data/nolima-needle-set.jsonl" --out n2.jsonl --seed 2
python3 - "$data/nolima-needle-set.jsonl" <<'PY' || fail "nolima import (above)"
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1])]
got = {q["id"]: q for q in map(json.loads, open("n.jsonl"))}
got2 = {q["id"]: q for q in map(json.loads, open("n2.jsonl"))}
want = 0
for e in entries:
    for qt, qtpl in e["questions"].items():
        for tid, t in e["tests"].items():
            want += 1
            q = got["nolima-%s-%s-%s" % (e["id"], tid, qt)]
            args = t["input_args"]
            question = qtpl
            for i, a in enumerate(args):
                question = question.replace("{%d}" % (i + 1), a)
            assert q["question"] == question, q
            (g,) = q["gold"]
            (ch,) = [c for c in e["character_set"] if g["text"].startswith(c + " ") or " %s " % c in g["text"]]
            assert g["value"] == q["answers"][0], g
            needle = e["needle"].replace("{CHAR}", ch)
            for i, a in enumerate(args):
                needle = needle.replace("{%d}" % (i + 1), a)
            assert g["text"] == needle, (g, needle)
            # NoLiMa scores a {CHAR} needle against the character (issue 43 item 6)
            assert q["answers"] == ([ch] if "{CHAR}" in e["needle"] else t.get("gold_answers", [ch])), q
            d = e.get("distractors", {}).get(qt)
            if d:
                for i, a in enumerate(args):
                    d = d.replace("{%d}" % (i + 1), a)
                assert [x["text"] for x in q["distractors"]] == [d], q
            else:
                assert not q.get("distractors"), q
assert len(got) == want == 5, (len(got), want)
# the seed picks the characters; the same seed the same file
assert any(got[k]["gold"][0]["value"] != got2[k]["gold"][0]["value"] for k in got), "seed ignored"
PY
expect_code 0 "$DIPMAP" import nolima "$data/nolima-needle-set.jsonl" --out n3.jsonl
cmp n.jsonl n3.jsonl || fail "the same seed wrote another file"
expect_code 0 "$DIPMAP" import ruler "$data/ruler-niah.jsonl" --out r.jsonl
assert_contains err "import: 2 questions -> r.jsonl"
python3 - <<'PY' || fail "ruler import (above)"
import json
qs = [json.loads(l) for l in open("r.jsonl")]
a, b = qs
assert a["id"] == "ruler-0" and a["question"] == "What is the special magic number for tender-plant mentioned in the provided text?", a
assert a["answers"] == ["4821937"]
assert [g["text"] for g in a["gold"]] == ["One of the special magic numbers for tender-plant is: 4821937."], a
assert [d["text"] for d in a["distractors"]] == ["One of the special magic numbers for loud-river is: 1203944."], a
assert b["answers"] == ["0f2c8a1e-7b3d-4c55-9e21-6a8d4b3f1c07", "5d1e9b7a-2c44-4f0e-8a63-b19c0d2e7f58"]
assert [g["value"] for g in b["gold"]] == b["answers"] and not b.get("distractors"), b
assert b["question"].startswith("What are all the special magic uuids for calm-forest"), b
PY
# both load as golden sets: a trial of each builds (RULER's two values with --axes needles=2)
expect_code 0 "$DIPMAP" show-prompt --dataset n.jsonl --haystack "$hay" --length 1k --depth 50 \
    --question nolima-0401-T01-onehop
assert_contains out "lives next to the Kiasma museum."
expect_code 0 "$DIPMAP" show-prompt --dataset r.jsonl --haystack "$hay" --length 1k --depth 50 \
    --question ruler-1 --axes needles=2
assert_contains out "is: 5d1e9b7a-2c44-4f0e-8a63-b19c0d2e7f58."
# bad records: file, line and field; nothing written
printf '%s\n' "$(head -n1 "$data/nolima-needle-set.jsonl")" '{"id": "9", "questions": {"a": "Q?"}, "tests": {"T1": {"input_args": []}}}' >bad-n.jsonl
expect_code 2 "$DIPMAP" import nolima bad-n.jsonl --out bad.jsonl
assert_contains err 'bad-n.jsonl:2: "needle": missing or not a non-empty string'
[ ! -e bad.jsonl ] || fail "a refused import wrote its output"
printf '%s\n' '{"id": "9", "needle": "{CHAR} x {1}.", "questions": {"a": "Q {1}?"}, "tests": {"T1": {"input_args": "x"}}, "character_set": ["A"]}' >bad-t.jsonl
expect_code 2 "$DIPMAP" import nolima bad-t.jsonl --out bad.jsonl
assert_contains err 'bad-t.jsonl:1: "tests".T1.input_args: expected an array of strings'
printf '%s\n' '{"id": "9", "needle": "{CHAR} x {1}.", "questions": {"a": "Q {1}?"}, "tests": {"T1": {"input_args": ["y"]}}}' >bad-c.jsonl
expect_code 2 "$DIPMAP" import nolima bad-c.jsonl --out bad.jsonl
assert_contains err 'bad-c.jsonl:1: "character_set": the needle names {CHAR} but the entry has no character_set'
printf '%s\n' '{"index": 3, "input": "Count the words. What is the special magic number for x mentioned in the provided text?", "outputs": ["5"]}' >bad-r.jsonl
expect_code 2 "$DIPMAP" import ruler bad-r.jsonl --out bad.jsonl
assert_contains err 'bad-r.jsonl:1: "input": no needle sentence'
printf '%s\n' '{"index": 3, "input": "One of the special magic numbers for x is: 5.", "outputs": []}' >bad-o.jsonl
expect_code 2 "$DIPMAP" import ruler bad-o.jsonl --out bad.jsonl
assert_contains err 'bad-o.jsonl:1: "outputs": expected a non-empty array of answers'
expect_code 2 "$DIPMAP" import ruler "$data/ruler-niah.jsonl" --out bad.jsonl --haystack-out h.jsonl
assert_contains err "--haystack-out is for litm"
[ ! -e bad.jsonl ] || fail "a refused import wrote its output"
