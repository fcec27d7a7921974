# the shipped datasets are exactly what the commands in datasets/README.md produce
source "$TESTS/cli/lib.sh"
readme="$REPO/datasets/README.md"
for f in nq-open.jsonl.gz nq-haystack.jsonl.gz needle.jsonl kv.jsonl kv-haystack.jsonl.gz; do
    [ -f "$REPO/datasets/$f" ] || fail "datasets/$f missing"
    assert_contains "$readme" "$f"
done
assert_contains "$readme" "CC BY-SA 3.0"
# run each documented command (lines starting with "    dipmap ") from a scratch copy
mkdir datasets
grep '^    dipmap ' "$readme" | sed 's/^    dipmap //' >cmds
[ "$(wc -l <cmds)" -ge 3 ] || fail "README.md documents no dipmap commands"
while IFS= read -r c; do
    c=${c//..\/shared/$SHARED}
    eval "set -- $c"
    "$DIPMAP" "$@" 2>>log || fail "documented command failed: dipmap $c"
done <cmds
for f in needle.jsonl kv.jsonl; do
    cmp "datasets/$f" "$REPO/datasets/$f" || fail "datasets/$f differs from its documented command's output"
done
for f in nq-open.jsonl.gz nq-haystack.jsonl.gz kv-haystack.jsonl.gz; do
    cmp <(gzip -dc "datasets/$f") <(gzip -dc "$REPO/datasets/$f") || fail "datasets/$f differs from its documented command's output"
done
