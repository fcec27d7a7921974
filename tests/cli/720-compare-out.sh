# `dipmap compare BASE CAND --out DIR` also writes compare.html and the
# overlay plot (baseline dashed, candidate solid, regressions circled), and
# links the plot from compare.md.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run base --model m-1 --dip 0.1 --questions 40
make_run t.db --run cand --model m-2 --dip 0.6 --questions 40
expect_code 1 "$DIPMAP" compare base cand --db t.db --out cmp
for f in compare.md compare.html compare.svg compare.png; do
    [ -s cmp/$f ] || fail "cmp/$f missing"
done
xmllint --noout cmp/compare.svg || fail "compare.svg not XML"
[ "$(png_size cmp/compare.png)" = "900 560" ] || fail "compare.png size"
svg_curves cmp/compare.svg "e" >curves
for l in "8k_baseline 5" "32k_baseline 5" "8k_candidate 5" "32k_candidate 5"; do
    grep -qx "$l" curves || fail "overlay lacks '$l': $(cat curves)"
done
grep -q '<text>significant regression</text>' cmp/compare.svg || fail "no regression marks"
assert_contains cmp/compare.md "](compare.svg)"
assert_contains cmp/compare.html '<p class="verdict fail">FAIL:'
assert_contains cmp/compare.html '<tr class="regression">'
[ "$(grep -o '<svg' cmp/compare.html | wc -l)" = 1 ] || fail "compare.html should inline the plot"
assert_not_contains cmp/compare.html "<script"

# without gnuplot: compare.html still written, one warning, verdict unchanged
mkdir emptybin
PATH="$PWD/emptybin" expect_code 1 "$DIPMAP" compare base cand --db t.db --out cmp2
[ -s cmp2/compare.html ] || fail "compare.html missing without gnuplot"
[ -e cmp2/compare.svg ] && fail "compare.svg without gnuplot"
[ "$(grep -c 'gnuplot' err)" = 1 ] || fail "expected one gnuplot warning: $(cat err)"
assert_contains cmp2/compare.html "Plot not drawn"
exit 0
