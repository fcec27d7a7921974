# The report says which effective length is which and what an all-first BM25 grouping means
# (issue 43 item 14): summary.md and report.html named three effective lengths without saying
# which is dipmap's own (every depth) and which the published ones (RULER, NoLiMa: the mean over
# depths); the bm25-rank figure of a run whose every gold ranks first had one panel 420 px wide
# that clipped its title lines, and the section said nothing of what rank 1 everywhere means.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
has_tool gnuplot || require_or_skip DIPMAP_REQUIRE_GNUPLOT "gnuplot is not installed"
make_kv 6
start_sim sim --dataset golden.jsonl --model mid:edge=0.9,dip=0.5,flat=1
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model mid --lengths 1000,2000 --depths 0:100:25 \
    --db t.db --run mid
expect_code 0 "$DIPMAP" report mid --db t.db --out rep
for f in rep/summary.md rep/report.html; do # (report.html writes ' as &#39;)
    assert_contains "$f" "s definition: "
    assert_contains "$f" "effective length, RULER"
    assert_contains "$f" "s own: every depth must hold the threshold"
    assert_contains "$f" "Every gold ranks first: the question"
    assert_contains "$f" "so these prompts test no lexical difficulty"
done
python3 - <<'PY' || fail "the bm25-rank figure clips its title (above)"
import re
svg = open("rep/axis-bm25-rank.svg", encoding="utf-8").read()
w = int(re.search(r'width="(\d+)"', svg).group(1))
texts = re.findall(r"<text>([^<]*)</text>", svg)
sub = [t for t in texts if t.startswith("accuracy vs depth, one panel per bm25-rank value")]
assert sub, texts[:5]
assert w >= 40 + 8 * len(sub[0]), (w, sub[0])
PY
exit 0
