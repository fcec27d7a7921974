# `dipmap plot RUN...` draws each run's U-curve and heatmap into
# reports/<run>/ (or --out DIR for one run), in the formats asked for.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run a --dip 0.2
make_run t.db --run b --dip 0.5
expect_code 0 "$DIPMAP" plot a b --db t.db --format svg
for r in a b; do
    xmllint --noout reports/$r/ucurve.svg reports/$r/heatmap.svg || fail "$r: bad SVG"
    [ -e reports/$r/ucurve.png ] && fail "png written with --format svg"
    assert_contains out "wrote reports/$r/ucurve.svg"
done
svg_curves reports/b/ucurve.svg " tokens" >curves
[ "$(cat curves)" = "$(printf '8k_tokens 5\n32k_tokens 5')" ] || fail "curves: $(cat curves)"
# a's 8k middle is 0.75, b's 0.45: different data, different pictures
grep -q '<text>0.75</text>' reports/a/heatmap.svg || fail "a heatmap lacks 0.75"
grep -q '<text>0.45</text>' reports/b/heatmap.svg || fail "b heatmap lacks 0.45"
expect_code 0 "$DIPMAP" plot a --db t.db --format png --out pics
[ "$(png_size pics/ucurve.png)" = "900 560" ] || fail "pics/ucurve.png"
[ "$(png_size pics/heatmap.png)" = "900 560" ] || fail "pics/heatmap.png"
expect_code 2 "$DIPMAP" plot nope --db t.db
assert_contains err "error: plot: no run named 'nope'"
expect_code 2 "$DIPMAP" plot --db t.db
assert_contains err "error: plot: which runs?"
expect_code 2 "$DIPMAP" plot a --tag x --db t.db
assert_contains err "error: plot: give run names or --model/--tag, not both"
expect_code 2 "$DIPMAP" plot a --db t.db --format gif
assert_contains err "error: plot: unknown format 'gif'"
exit 0
