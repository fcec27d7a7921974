# the shipped datasets are exactly what the commands in datasets/README.md produce
source "$TESTS/cli/lib/lib.sh"
readme="$REPO/datasets/README.md"
for f in nq-open.jsonl.gz nq-haystack.jsonl.gz needle.jsonl kv.jsonl kv-haystack.jsonl.gz; do
    [ -f "$REPO/datasets/$f" ] || fail "datasets/$f missing"
    assert_contains "$readme" "$f"
done
assert_contains "$readme" "CC BY-SA 3.0"
# run each documented command that writes a shipped file (lines "    dipmap ... --out datasets/...")
# in the scratch directory; their inputs are in the repository (tests/data/litm/)
mkdir datasets
grep '^    dipmap .* --out datasets/' "$readme" | sed 's/^    dipmap //' >cmds
[ "$(wc -l <cmds)" -ge 3 ] || fail "README.md documents no dipmap commands"
while IFS= read -r c; do
    c=${c//tests\/data\//$TESTS/data/}
    eval "set -- $c"
    "$DIPMAP" "$@" 2>>log || fail "documented command failed: dipmap $c"
done <cmds
for f in needle.jsonl kv.jsonl; do
    cmp "datasets/$f" "$REPO/datasets/$f" || fail "datasets/$f differs from its documented command's output"
done
for f in nq-open.jsonl.gz nq-haystack.jsonl.gz kv-haystack.jsonl.gz; do
    cmp <(gzip -dc "datasets/$f") <(gzip -dc "$REPO/datasets/$f") || fail "datasets/$f differs from its documented command's output"
done
# books-haystack: its script re-run on the shipped file reproduces it byte for byte (the
# documented second line), it holds no Project Gutenberg mention or URL, and it is enough
# for a 1M-token prompt without repeating a chunk (its text counts at least 1.2M tokens)
assert_contains "$readme" "    scripts/books-haystack.py --out datasets/books-haystack.jsonl.gz datasets/books-haystack.jsonl.gz"
python3 "$REPO/scripts/books-haystack.py" --out datasets/books-haystack.jsonl.gz \
    "$REPO/datasets/books-haystack.jsonl.gz" 2>>log || fail "scripts/books-haystack.py failed"
cmp <(gzip -dc datasets/books-haystack.jsonl.gz) <(gzip -dc "$REPO/datasets/books-haystack.jsonl.gz") ||
    fail "datasets/books-haystack.jsonl.gz differs from its script's output"
gzip -dc "$REPO/datasets/books-haystack.jsonl.gz" >books.jsonl
! grep -q -i -E 'gutenberg|https?:|www\.' books.jsonl || fail "books-haystack mentions Project Gutenberg or a URL"
python3 -c 'import json, sys; print("\n\n".join(json.loads(l)["text"] for l in open(sys.argv[1])))' books.jsonl >books.txt
tokens=$("$DIPMAP" tokenize --tokenizer cl100k_base books.txt)
[ "$tokens" -ge 1200000 ] || fail "books-haystack holds $tokens cl100k tokens, fewer than 1.2M"
