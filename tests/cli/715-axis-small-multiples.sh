# The axis plots are small multiples: axis-NAME.svg has one panel per axis value (gnuplot
# multiplot), each titled "NAME=VALUE (n=TRIALS)" and drawn from that value's own trials (one
# line per length; the plot script's data blocks are checked against the stored trials), and
# summary.md / report.html / dipmap view link or inline it in the Axes section. The bands are
# clustered by question with the rule of the run's own cells: with --haystack-order coherent
# the repeats of a trial get the same prompt, so serve-sim answers them alike, and each
# per-depth interval in summary.json is Wilson at the effective size n / design effect
# (computed here from the trials), wider than plain Wilson over the trials; a one-valued
# axis's curve equals the run's own cells.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
need_tool gnuplot DIPMAP_REQUIRE_GNUPLOT "gnuplot not installed"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model dipmap-sim:hard=0.3,dip=0.6,flat=1
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim \
    --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --template needle --lengths 1k,2k --depths 0,50,100 --repeats 3 --distractors hard,random \
    --haystack-order coherent --progress none --db t.db --run p
# the premise: the repeats of a trial agree (same prompt, same draw)
[ "$(q t.db "select count(*) from (select 1 from trials group by question_id, length, depth_bp,
    axes having count(distinct outcome) > 1)")" = 0 ] || fail "repeats disagree: no clustering case"
# capture the plot scripts on their way to the real gnuplot
cat >gp <<EOF
#!/bin/sh
f=\$(mktemp "$PWD/script.XXXXXX")
cat >"\$f"
exec gnuplot <"\$f"
EOF
chmod +x gp
DIPMAP_GNUPLOT="$PWD/gp" expect_code 0 "$DIPMAP" report p --db t.db --out rep
assert_contains out "axis-distractors.svg"
svg=rep/axis-distractors.svg
[ "$(grep -c '<text>distractors=' $svg)" = 2 ] || fail "not one panel title per value"
for v in hard random; do
    n=$(q t.db "select count(*) from trials where axes like 'distractors=$v;%'")
    [ "$(grep -c "<text>distractors=$v (n=$n)</text>" $svg)" = 1 ] || fail "no panel titled $v (n=$n)"
done
[ "$(grep -c '<text>100%</text>' $svg)" = 2 ] || fail "the panels do not share the 0-100 % axis"
[ -s rep/axis-distractors.png ] || fail "no png"
# the Axes section shows the figure: a link in summary.md, the SVG inline in report.html
assert_contains rep/summary.md "](axis-distractors.svg)"
assert_contains rep/summary.md "](axis-haystack-order.svg)"
python3 - <<'PY' || fail "report.html does not inline the axis figures"
import re
h = open("rep/report.html").read()
axes = h[h.index('id="axes"'):]
figs = re.findall(r"<figure><svg.*?</svg><figcaption>(.*?)</figcaption>", axes, re.S)
assert figs.count("Accuracy vs depth, one panel per axis value") == 2, figs
assert "distractors=hard (n=" in axes
PY
# dipmap view's run page inlines the same figures
start_view t.db
curl -sf -o view.html "${VIEW_URL}run?name=p" || fail "GET /run failed"
[ "$(grep -o '<figcaption>Accuracy vs depth, one panel per axis value</figcaption>' view.html | wc -l)" = 2 ] ||
    fail "view does not inline the axis figures"
assert_contains view.html "distractors=random (n="
python3 - <<'PY' || fail "panels or bands do not match the trials"
import glob, json, math, re, sqlite3
db = sqlite3.connect("t.db")
rows = db.execute("select question_id, length, depth_bp, axes, outcome from trials").fetchall()
def cells(value):
    out = {}
    for q, L, d, axes, o in rows:
        if ("distractors=%s;" % value) not in axes:
            continue
        out.setdefault((L, d), {}).setdefault(q, []).append(o == "correct")
    return out
def wilson(p, n, z=1.959963984540054):
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, c - h) if p > 0 else 0.0, min(1.0, c + h) if p < 1 else 1.0
def clustered(byq):
    m = [len(v) for v in byq.values()]
    y = [sum(v) for v in byq.values()]
    tot, q = sum(m), len(m)
    p = sum(y) / tot
    if 0 < p < 1:
        ss = sum((yi - p * mi) ** 2 for mi, yi in zip(m, y))
        deff = max(1.0, (q / (q - 1) * ss / tot ** 2) / (p * (1 - p) / tot))
    else:
        deff = tot / q
    return p, tot, deff
s = json.load(open("rep/summary.json"))
ax = {a["name"]: a for a in s["axes"]}
wider = 0
for v in ax["distractors"]["values"]:
    c = cells(v["value"])
    for bl in v["by_length"]:
        for bd in bl["by_depth"]:
            byq = c[(bl["length"], round(bd["depth"] * 10000))]
            p, n, deff = clustered(byq)
            assert bd["valid"] == n and abs(bd["accuracy"] - p) < 1e-12, (bd, p, n)
            lo, hi = wilson(p, n / deff)
            assert abs(bd["interval95"][0] - lo) < 1e-9 and abs(bd["interval95"][1] - hi) < 1e-9, (bd, lo, hi, deff)
            wlo, whi = wilson(p, n)
            assert lo <= wlo + 1e-12 and hi >= whi - 1e-12
            if 0 < p < 1:
                assert deff > 2.5, deff  # three agreeing repeats per question
                assert (hi - lo) > 1.4 * (whi - wlo), (lo, hi, wlo, whi)
                wider += 1
assert wider >= 6, wider
# a one-valued axis (haystack-order coherent) is the whole run: its cells are the run's cells
one = ax["haystack-order"]["values"]
assert len(one) == 1
run_cells = {(c["length"], c["depth"]): c for c in s["cells"]}
for bl in one[0]["by_length"]:
    for bd in bl["by_depth"]:
        rc = run_cells[(bl["length"], bd["depth"])]
        assert bd["valid"] == rc["valid"] and bd["interval95"] == rc["interval95"], (bd, rc)
# the SVG run of the distractors plot: panel k is titled with value k and holds its data
scripts = [open(f).read() for f in sorted(glob.glob("script.*"))]
sc = [t for t in scripts if "axis distractors" in t and "set terminal svg" in t]
assert len(sc) == 1, len(sc)
sc = sc[0]
assert "set multiplot layout 1,2" in sc
titles = re.findall(r"^set title '(.*?)' noenhanced$", sc, re.M)
assert [t.split(" ")[0] for t in titles] == ["distractors=hard", "distractors=random"], titles
for k, v in enumerate(ax["distractors"]["values"]):
    for li, bl in enumerate(v["by_length"]):
        blk = re.search(r"^\$p%ds%d << EOD\n(.*?)^EOD$" % (k, li), sc, re.M | re.S).group(1)
        pts = [list(map(float, l.split())) for l in blk.strip().splitlines()]
        want = [[bd["depth"] * 100, bd["accuracy"], bd["interval95"][0], bd["interval95"][1]]
                for bd in bl["by_depth"]]
        assert len(pts) == len(want), (pts, want)
        for a, b in zip(pts, want):
            assert all(abs(x - y) < 1e-8 for x, y in zip(a, b)), (k, li, a, b)
PY
