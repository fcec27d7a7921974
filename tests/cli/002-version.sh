# `dipmap --version` and `dipmap version` print the version and the commit.
. "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" --version
grep -Eq '^dipmap [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}|unknown)(-dirty)?\)$' out || { cat out >&2; fail "bad version line"; }
commit=$(git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null)
if [ -n "$commit" ]; then assert_contains out "$commit"; fi
expect_code 0 "$DIPMAP" version
expect_code 2 "$DIPMAP" version extra
assert_contains err "error: version: takes no arguments"
exit 0
