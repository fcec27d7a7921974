# report of a --hops 2 run draws, per length, the depth A x depth B heatmap hops-LENGTH.svg/png
# with real gnuplot (README "Two-hop chains"): one cell per (depth A, depth B), rows depth A,
# columns depth B, each labelled with the accuracy of that pair's trials and its n, read back
# from the SVG and checked against the stored trials; serve-sim's planted reversed=0.6 (B read
# before A) shows as the cells below the diagonal (depth B < depth A) lower than those above;
# summary.md links each length's figure, report.html inlines them.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
need_tool gnuplot DIPMAP_REQUIRE_GNUPLOT "gnuplot not installed"
expect_code 0 "$DIPMAP" gen hops --n 20 --seed 5 --out hops.jsonl
start_sim sim --dataset hops.jsonl --model m:edge=0.95,dip=0,seed=7,reversed=0.6
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset hops.jsonl \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k,2k --depths 0,50,100 --hops 2 \
    --progress none --db t.db --run h
expect_code 0 "$DIPMAP" report h --db t.db --out rep
assert_contains out "hops-1024.svg"
for l in 1024 2048; do
    [ -s rep/hops-$l.png ] || fail "no hops-$l.png"
    assert_contains rep/summary.md "](hops-$l.svg)"
done
[ "$(grep -c "<figcaption>Two-hop chains: accuracy by depth A and depth B</figcaption>" rep/report.html)" = 2 ] ||
    fail "report.html does not inline both lengths' heatmaps"
q t.db "select length, depth_bp, axes, count(*), sum(outcome = 'correct') from trials group by length, depth_bp, axes" >cells.txt
pylib - <<'PY' || fail "the heatmaps' cells do not match the trials (above)"
import gnuplot_svg
want = {}
for line in open("cells.txt"):
    length, a, axes, n, k = line.strip().split("|")
    b = dict(p.split("=") for p in axes.split(";"))["depth-b"]
    want.setdefault(int(length), {})[(int(a) // 100, int(b))] = (int(k) / int(n), int(n))
assert sorted(want) == [1024, 2048] and all(len(w) == 9 for w in want.values()), want
for length, cells_want in want.items():
    svg = open("rep/hops-%d.svg" % length).read()
    assert "two-hop chains at %d tokens" % length in svg, length
    for t in ("depth A (needle A)", "depth B (needle B)"):
        assert "<text>%s</text>" % t in svg, t
    cells = gnuplot_svg.heatmap_cells("rep/hops-%d.svg" % length)
    assert len(cells) == 9, cells
    xs = sorted({c[0] for c in cells})
    ys = sorted({c[1] for c in cells})
    assert len(xs) == 3 and len(ys) == 3, (xs, ys)
    depths = [0, 50, 100]
    # rows: depth A from the top (0 % first), columns: depth B from the left
    got = {(depths[ys.index(c[1])], depths[xs.index(c[0])]): (c[2], c[3])
           for c in cells}
    for key, (acc, n) in cells_want.items():
        assert got[key] == ("%.2f" % acc, n), (length, key, got[key], acc, n)
    below = [acc for (a, b), (acc, n) in cells_want.items() if b < a]
    above = [acc for (a, b), (acc, n) in cells_want.items() if b >= a]
    assert max(below) < min(above), (length, below, above)
PY
exit 0
