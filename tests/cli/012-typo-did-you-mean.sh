# A mistyped command or long option is refused (exit 2) with the name meant, as fields and
# config keys are (issue 43 item 14): "dipmap compar" -> "compare", "--lenghts" -> "--lengths";
# a name far from every known one gets the plain hint. `dipmap help`'s one-line summaries of
# gen and import name every kind they take.
. "$TESTS/cli/lib/lib.sh"
expect_code 2 "$DIPMAP" compar a b
assert_contains err "error: 'compar' is not a dipmap command"
assert_contains err "hint: did you mean 'dipmap compare'? see 'dipmap help'"
expect_code 2 "$DIPMAP" zzzzzzzz
assert_contains err "hint: see 'dipmap help'"
assert_not_contains err "did you mean"
expect_code 2 "$DIPMAP" run --dry-run --lenghts 1k
assert_contains err "error: run: unknown option '--lenghts'"
assert_contains err "hint: did you mean '--lengths'? see 'dipmap help run'"
expect_code 2 "$DIPMAP" import --lmit 3
assert_contains err "hint: did you mean '--limit'? see 'dipmap help import'"
expect_code 2 "$DIPMAP" run --qqqqqqqqqq
assert_not_contains err "did you mean"
expect_code 0 "$DIPMAP" help
for kind in needle assoc hops kv; do
    grep -E "^ +gen " out | grep -qw "$kind" || fail "help's gen line omits $kind: $(grep -E '^ +gen ' out)"
done
for kind in litm nolima ruler longbench-v2; do
    grep -E "^ +import " out | grep -q -- "$kind" || fail "help's import line omits $kind: $(grep -E '^ +import ' out)"
done
exit 0
