# tests/cli holds only numbered tests (NNN-name.sh and their .out/.err/.code files); the helper
# scripts they share live in tests/cli/lib/, and every reference to a helper names that folder.
. "$TESTS/cli/lib/lib.sh"
cd "$REPO/tests/cli" || fail "no tests/cli"
stray=$(find . -maxdepth 1 -type f ! -regex '\./[0-9]+-[A-Za-z0-9_.-]+\.\(sh\|out\|err\|code\)' | sort)
[ -z "$stray" ] || fail "helper files outside tests/cli/lib: $stray"
[ -f lib/lib.sh ] && [ -f lib/sim-lib.sh ] && [ -f lib/simclient.py ] || fail "tests/cli/lib is incomplete"
# A helper named at its old place (tests/cli/NAME for a NAME that is in lib/) anywhere in the tree.
for f in lib/*; do
    name=$(basename "$f")
    old=$(grep -rlF --exclude-dir=.git --exclude-dir=build "cli/$name" "$REPO" | sort)
    [ -z "$old" ] || fail "tests/cli/$name named outside lib/ in: $old"
done
echo ok
