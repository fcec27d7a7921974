# --format picks the documents, --out the folder (created with parents).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run r1
expect_code 0 "$DIPMAP" report r1 --db t.db --format json --out a/b/c
[ "$(ls a/b/c)" = "summary.json" ] || fail "json only: $(ls a/b/c)"
assert_contains out "wrote a/b/c/summary.json"
expect_code 0 "$DIPMAP" report r1 --db t.db --format md --no-plots --out md
[ "$(ls md)" = "summary.md" ] || fail "md only: $(ls md)"
assert_contains md/summary.md "Plots not drawn (--no-plots)."
expect_code 0 "$DIPMAP" report r1 --db t.db --format html --out html
[ "$(ls html | tr '\n' ' ')" = "heatmap.png heatmap.svg report.html ucurve.png ucurve.svg " ] ||
    fail "html: $(ls html)"
# DIPMAP_DB is the default store
DIPMAP_DB=t.db expect_code 0 "$DIPMAP" report r1 --format json --out env
[ -s env/summary.json ] || fail "DIPMAP_DB not used"
exit 0
