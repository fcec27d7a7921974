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
