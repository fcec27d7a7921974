# import litm converts the NQ-open oracle file into a golden set (gold passage per
# question) and a haystack of every record's passage; both round-trip through the loader
source "$TESTS/cli/lib/lib.sh"
nq="$TESTS/data/litm/nq-open-oracle.jsonl.gz"
expect_code 0 "$DIPMAP" import litm "$nq" --out nq.jsonl --haystack-out hay.jsonl.gz --limit 20
assert_contains err "import: 20 questions -> nq.jsonl, 2655 haystack chunks -> hay.jsonl.gz"
[ "$(wc -l <nq.jsonl)" = 20 ] || fail "expected 20 questions"
[ "$(gzip -dc hay.jsonl.gz | wc -l)" = 2655 ] || fail "expected 2655 haystack chunks"
head -1 nq.jsonl >first
assert_contains first '"id": "nq-0001", "question": "who got the first nobel prize in physics", "answers": ["Wilhelm Conrad Röntgen"], "gold": [{"id": "nq-0001-p", "title": "List of Nobel laureates in Physics", "text": "The first Nobel Prize in Physics was awarded in 1901'
# the converted set builds prompts: the question's own passage is excluded from its filler
expect_code 0 "$DIPMAP" show-prompt --dataset nq.jsonl --haystack hay.jsonl.gz --question nq-0001 --length 4k --depth 0
assert_contains out "excluded: they contain an answer"
[ "$(grep -c 'The first Nobel Prize in Physics was awarded in 1901' out)" = 1 ] || fail "gold passage must occur exactly once"
# a non-LitM file is refused with exit 2
echo '{"foo": 1}' >other.jsonl
expect_code 2 "$DIPMAP" import litm other.jsonl --out x.jsonl
assert_contains err 'other.jsonl:1: not a LitM QA record'
expect_code 2 "$DIPMAP" import litm
expect_code 2 "$DIPMAP" import litm missing.jsonl.gz --out x.jsonl
assert_contains err "missing.jsonl.gz: cannot open"
# k-document files: the retrieved non-answer passages become the question's hard negatives
expect_code 0 "$DIPMAP" import litm "$TESTS/data/datasets/litm-3docs.jsonl" --out k.jsonl --haystack-out kh.jsonl
head -1 k.jsonl >k1
assert_contains k1 '"gold": [{"id": "nq-0001-p", "title": "The River Song", "text": "The River Song was written by Ada Morn in 1961."}], "distractors": [{"id": "wiki-71445", "title": "River (film)", "text": "River is a 1998 film about a fisherman."}, {"id": "wiki-9001", "title": "Song (album)"'
[ "$(wc -l <kh.jsonl)" = 5 ] || fail "expected 5 haystack chunks"
expect_code 0 "$DIPMAP" show-prompt --dataset k.jsonl --haystack kh.jsonl --question nq-0001 --length 160 --depth 100
assert_contains out "2 hard negatives"
[ "$(grep -c 'River is a 1998 film' out)" = 1 ] || fail "a hard negative also in the haystack must appear once"
