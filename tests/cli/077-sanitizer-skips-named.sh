# make test-asan skips a few CLI tests, each saying why in a "# sanitizers: skip: REASON" line:
# tests/run.sh with DIPMAP_SANITIZED=1 lists such a test as "skip - cli/NAME (under the
# sanitizers: REASON)" and runs the others; without it, it runs them all. The set stays small
# (at most 16 tests, each naming another test or unit that runs its code) so the sanitizer
# suite still runs nearly every test.
. "$TESTS/cli/lib/lib.sh"
mkdir -p fake/tests/cli
cp "$REPO/tests/run.sh" fake/tests/run.sh
printf '# runs\necho ran-a >"$REPO/../a.mark"\n' >fake/tests/cli/001-a.sh
printf '# skipped under the sanitizers\n# sanitizers: skip: a reason given here\necho ran-b >"$REPO/../b.mark"\n' \
    >fake/tests/cli/002-b.sh
mkdir -p fake/build/tests/unit
env -u TESTS DIPMAP_SANITIZED=1 bash fake/tests/run.sh fake/build "$DIPMAP" >san.out 2>&1 || true
assert_contains san.out "ok - cli/001-a"
assert_contains san.out "skip - cli/002-b (under the sanitizers: a reason given here)"
assert_contains san.out "1 passed, 0 failed, 1 skipped"
[ -f a.mark ] && [ ! -f b.mark ] || fail "the sanitizer skip ran the wrong test"
rm -f a.mark
env -u TESTS -u DIPMAP_SANITIZED bash fake/tests/run.sh fake/build "$DIPMAP" >plain.out 2>&1 || true
assert_contains plain.out "2 passed, 0 failed, 0 skipped"
[ -f a.mark ] && [ -f b.mark ] || fail "without the sanitizers a marked test was not run"
# the repository's own marks: few, each with a reason that names what runs its code instead
n=0
for t in "$REPO"/tests/cli/[0-9]*.sh; do
    r=$(sed -n 's/^# sanitizers: skip: //p' "$t")
    [ -n "$r" ] || continue
    n=$((n + 1))
    grep -Eq '(^|[ ;,])([0-9]{3}|unit test_[a-z_]+)([ ,;.]|$)' <<<"$r" ||
        fail "$(basename "$t"): the reason names no test that runs its code: $r"
done
[ "$n" -ge 1 ] && [ "$n" -le 16 ] || fail "$n CLI tests skip under the sanitizers (at most 16)"
grep -q 'DIPMAP_SANITIZED=1 $(MAKE) BUILD=$(BUILD)-asan SAN=1 test' "$REPO/Makefile" ||
    fail "make test-asan does not set DIPMAP_SANITIZED"
