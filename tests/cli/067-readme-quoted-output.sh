# The quoted output of README and docs/ is the program's: scripts/readme-quotes.sh (make readme)
# runs the demo and compares the marked blocks (README: the demo's last lines, the candidate's dip
# lines; docs/ordering.md: the ordering table) and reports/examples/*.md with what it prints and writes, masking only durations, run
# stamps, ports and dates. Run on a copy of README with one figure changed, the check must fail
# naming that line and nothing else (so everything else agrees with the program, and a stale
# quote is caught).
# sanitizers: skip: replays the demo to compare quoted text; 009 and 010 run the demo
. "$TESTS/cli/lib/lib.sh"
mkdir -p copy/scripts copy/reports copy/docs
cp "$REPO"/docs/*.md copy/docs/
cp "$REPO/scripts/readme-quotes.sh" copy/scripts/
cp -r "$REPO/reports/examples" copy/reports/
grep -q '^<!-- readme-quotes: demo-dip -->$' "$REPO/README.md" || fail "README has no demo-dip marker"
# change the first dip figure quoted from summary.md
awk '/^<!-- readme-quotes: demo-dip -->$/ { m = 1 } m && /^- \*\*dip at/ && !done { sub(/\*\* \+/, "** +9"); done = 1 } { print }' \
    "$REPO/README.md" >copy/README.md
cmp -s "$REPO/README.md" copy/README.md && fail "could not change the quoted dip line"
expect_code 1 copy/scripts/readme-quotes.sh "$DIPMAP" --check
assert_contains err "README.md's quoted output is not what the program prints now"
# exactly one changed line each way: the one this test changed
minus=$(grep -c '^-' err | awk '{ print $1 - 1 }')  # less the "--- file" header
plus=$(grep -c '^+' err | awk '{ print $1 - 1 }')
[ "$minus" = 1 ] && [ "$plus" = 1 ] || fail "README differs from the demo beyond the changed line: $(cat err)"
grep -q '^-- \*\*dip at 8k:\*\* +9' err || fail "the diff does not show the changed line: $(cat err)"
assert_not_contains err "reports/examples/"
exit 0
