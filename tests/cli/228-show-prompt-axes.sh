# show-prompt --axes prints one trial of run's named axes: question-at=start puts the question
# only before the documents, distractors=none fills with the neutral sentences and no haystack
# chunk, needles=2 places two gold chunks; a malformed --axes is exit 2 naming it.
. "$TESTS/cli/lib/lib.sh"
set_=$REPO/datasets/needle.jsonl hay=$REPO/datasets/nq-haystack.jsonl.gz
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --length 1k \
    --template qa-both --axes 'question-at=start;distractors=none' --json
python3 - <<'PY' || fail "the prompt is not what --axes claims"
import json
d = json.load(open("out"))
user = d["messages"][-1]["content"]
q = "What is the vault code of the Velaefell observatory?"
docs = user.index("Document [1]")
assert user.count(q) == 1 and user.index(q) < docs, user[:300]
assert "The grass is green. The sky is blue." in user
# the filler chunks are titled "Filler"; the needle has no title ([document_untitled])
assert "(Title: Filler)" in user and user.count("(Title: ") == user.count("(Title: Filler)")
assert "] The vault code of the Velaefell observatory is " in user
PY
expect_code 2 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --axes 'question-at'
assert_contains err "show-prompt: --axes: axis 'question-at' has no '=value'"
expect_code 2 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --axes 'needles=2'
assert_contains err "question needle-0001 has 1 gold chunk; --needles 2 needs as many"
