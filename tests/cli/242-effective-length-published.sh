# Effective length by the published definitions beside dipmap's own: summary.json's
# effective_length.ruler (the longest length whose accuracy over all depths is above 85.6 %, or
# --ruler-threshold) and effective_length.nolima (the longest length keeping 85 % of the base
# score, the mean accuracy of the lengths up to 1k tokens, or --nolima-base) agree with the
# definitions recomputed from the report's own per-length accuracies; summary.md and
# report.html state both; bad values are refused (exit 2). The planted dip deepens with length.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/compare-lib.sh"
cmp_gen g 30 1
cmp_sim g.jsonl
cmp_run d deep g 512,1k,4k,8k 0:100:25

check() { # check DIR RULER_THRESHOLD NOLIMA_BASE_MAX
    python3 - "$@" <<'PY' || fail "effective lengths in $1 (above)"
import json, sys
d = json.load(open(sys.argv[1] + "/summary.json"))
thr, base_max = float(sys.argv[2]), int(sys.argv[3])
L = [(l["length"], l["accuracy"]) for l in d["lengths"] if l["valid"] > 0]
assert len(L) == 4, L
e = d["effective_length"]
r = e["ruler"]
assert abs(r["threshold"] - thr) < 1e-12, r
want = max([n for n, a in L if a > thr], default=None)
assert r["length"] == want and r["defined"] is True, (r, L)
n = e["nolima"]
base = [a for l, a in L if l <= base_max] or [L[0][1]]
b = sum(base) / len(base)
assert abs(n["base_score"] - b) < 1e-12 and n["base_lengths"] == len(base), (n, L)
assert abs(n["threshold"] - 0.85 * b) < 1e-12 and n["fraction"] == 0.85, n
want = max([l for l, a in L if a >= 0.85 * b], default=None)
assert n["length"] == want, (n, L)
print("ruler", r["length"], "nolima", n["length"], "lengths", L)
PY
}
expect_code 0 "$DIPMAP" report d --db t.db --out r1 --no-plots
check r1 0.856 1024
assert_contains r1/summary.md "effective length, RULER"
assert_contains r1/summary.md "Llama-2-7B's score at 4K"
assert_contains r1/summary.md "effective length, NoLiMa"
assert_contains r1/summary.md "85% of the base score"
assert_contains r1/report.html "effective length, NoLiMa"
# settable: a lower RULER threshold and a base over the lengths up to 2k
expect_code 0 "$DIPMAP" report d --db t.db --out r2 --no-plots --ruler-threshold 50 --nolima-base 2k
check r2 0.5 2048
assert_contains r2/summary.md "set by --ruler-threshold"
# the planted dip (deeper with length) puts both published lengths below the longest measured
# one, and dipmap's own (every depth must hold) below them: the middle fails first
python3 - <<'PY' || fail "the planted dip should order the three effective lengths (above)"
import json
e = json.load(open("r1/summary.json"))["effective_length"]
assert e["ruler"]["length"] < 8192 and e["nolima"]["length"] < 8192, e
assert e["length"] < e["ruler"]["length"], e
PY
expect_code 2 "$DIPMAP" report d --db t.db --out r3 --ruler-threshold 150
assert_contains err "--ruler-threshold must be a percentage in 0..100, got 150"
expect_code 2 "$DIPMAP" report d --db t.db --out r3 --nolima-base lots
assert_contains err "--nolima-base: 'lots' is not a token count"
[ ! -e r3 ] || fail "a refused report wrote r3"
