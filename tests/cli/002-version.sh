# `dipmap --version` and `dipmap version` print the release and the commit, the versions of the
# libraries linked at run time (as pkg-config reports the installed ones) and the build flags.
. "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" --version
grep -Eq '^dipmap [0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)? \(commit ([0-9a-f]{7,}|unknown)(-dirty)?\)$' <(head -n 1 out) || { cat out >&2; fail "bad version line"; }
commit=$(git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null)
if [ -n "$commit" ]; then assert_contains out "$commit"; fi
for pair in "libcurl libcurl" "SQLite sqlite3" "PCRE2 libpcre2-8" "cJSON libcjson" \
    "libmicrohttpd libmicrohttpd" "zlib zlib" "libcrypto libcrypto"; do
    set -- $pair
    grep -q "^libraries: .*$1 [0-9]" out || { cat out >&2; fail "no $1 version"; }
    want=$(pkg-config --modversion "$2" 2>/dev/null) || continue
    grep -q "^libraries: .*$1 $want" out || { cat out >&2; fail "$1 is not $want"; }
done
grep -Eq '^build: (gcc|clang) [0-9].*; .*-std=c11 .*-O' out || { cat out >&2; fail "no build line"; }
# a release tarball names its release and commit in .tarball-version (make dist)
if [ -n "$commit" ]; then
    release=$(sed -n '1s/^dipmap \([^ ]*\) .*/\1/p' out)
    want=$(git -C "$REPO" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//')
    [ "$release" = "${want:-$(sed -n 's/^VERSION := //p' "$REPO/Makefile")-dev}" ] || fail "release $release"
fi
expect_code 0 "$DIPMAP" version
expect_code 2 "$DIPMAP" version extra
assert_contains err "error: version: takes no arguments"
exit 0
