# `dipmap run` reports the haystack's chunk hygiene per reason: exact
# duplicates dropped, and (question, chunk) pairs excluded because the chunk
# contains that question's answer. Duplicates are judged on title + text after
# whitespace and case normalisation.
. "$TESTS/cli/lib/lib.sh"
cat >golden.jsonl <<'J'
{"id":"q1","question":"what colour is the door","answers":["vermilion"],"gold":[{"id":"g1","title":"Door","text":"The door is painted vermilion."}]}
{"id":"q2","question":"how tall is the tower","answers":["312 metres"],"gold":[{"id":"g2","title":"Tower","text":"The tower is 312 metres tall."}]}
J
cat >hay.jsonl <<'J'
{"id":"h1","title":"A","text":"Gardens of the old city are large and green."}
{"id":"h2","title":"a","text":"Gardens  of the OLD city are large and green."}
{"id":"h3","title":"C","text":"A vermilion pigment was used in the hall."}
{"id":"h4","title":"D","text":"The river runs past the mill in the north."}
{"id":"h5","title":"E","text":"Both vermilion and 312 metres appear in this filler."}
J
# (the dry run then refuses 1k, as the run would: 2 filler chunks cannot fill it)
expect_code 2 "$DIPMAP" run --dry-run --model m --dataset golden.jsonl --haystack hay.jsonl --lengths 1k --depths 0,100
assert_contains err "not enough distractor material for 1024 tokens"
assert_contains err "haystack hay.jsonl: 4 chunks; 1 exact duplicates dropped; 3 (question, chunk) pairs excluded because the chunk contains the question's answer (2 of 2 questions affected)"
exit 0
