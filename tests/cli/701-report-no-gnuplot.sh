# Without gnuplot on PATH the report is still written (tables), the plots are
# skipped with exactly one clear warning, and the exit code stays 0.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run r1 --golden gold.jsonl
mkdir emptybin
PATH="$PWD/emptybin" expect_code 0 "$DIPMAP" report r1 --db t.db
d=reports/r1
for f in summary.md summary.json report.html; do
    [ -s "$d/$f" ] || fail "$d/$f missing"
done
for f in ucurve.svg ucurve.png heatmap.svg heatmap.png; do
    [ -e "$d/$f" ] && fail "$d/$f written without gnuplot"
done
[ "$(wc -l <err)" = 1 ] || fail "expected one line on stderr, got: $(cat err)"
assert_contains err "warning: gnuplot not found on PATH: plots skipped"
assert_contains $d/summary.md "Plots skipped: gnuplot was not found"
assert_contains $d/summary.md "| 32k (32768) | 50% | 45.0% |"
assert_not_contains $d/summary.md "](ucurve.svg)"
assert_contains $d/report.html "Plots skipped: gnuplot was not found"
grep -q '<svg' $d/report.html && fail "report.html has an SVG without gnuplot"

# `dipmap plot` exists only to draw: there a missing gnuplot is an error (exit 3)
PATH="$PWD/emptybin" expect_code 3 "$DIPMAP" plot r1 --db t.db
assert_contains err "error: plot: gnuplot not found on PATH"
exit 0
