# Acceptance: compare's verdicts through the whole pipeline. The same model
# mapped twice -> PASS, exit 0 (160 questions: every primary anytime-valid bound below 5 pp; 60 stay INCONCLUSIVE); a
# candidate whose planted dip is deeper -> FAIL, exit 1, and the regressed cells it names are inner depths
# (10%-90%, 50% among them: the planted drop is 0.7 x (1 - |2x - 1|^1.6), 21 pp at 10% and 90%, 70 pp
# at 50%), never an edge (0%, 100%: no planted drop), in compare.json, compare.md and JUnit.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 160 21
start_sim sim --dataset golden.jsonl --model base:edge=0.95,dip=0.1,seed=4 --model deep:edge=0.95,dip=0.8,seed=4
for r in base1:base base2:base deep1:deep; do
    e2e_run "${r%%:*}" "$SIM_URL" "${r##*:}" --lengths 4k --depths 0:100:10 --concurrency 8
done
expect_code 0 "$DIPMAP" compare base1 base2 --db t.db --out same
assert_contains out "PASS"
expect_code 1 "$DIPMAP" compare base1 deep1 --db t.db --out deeper
assert_contains out "FAIL"
xmllint --noout deeper/junit.xml || fail "junit.xml is not well-formed"
python3 - <<'PY' || fail "the regressed cells are not the middle ones"
import json, re
d = json.load(open("deeper/compare.json"))
assert d["verdict"] == "FAIL", d["verdict"]
bad = sorted(t["depth"] for t in d["tests"] if t["status"] == "regression" and t["scope"] == "cell")
print("regressed depths:", bad)
assert bad, "no regressed cell named"
assert all(0.1 <= x <= 0.9 for x in bad) and 0.5 in bad, bad
# the edges were tested and did not regress
edges = [t for t in d["tests"] if t["scope"] == "cell" and t["depth"] in (0, 1)]
assert len(edges) == 2 and all(t["status"] != "regression" for t in edges), edges
md = open("deeper/compare.md").read()
named = sorted(set(int(m) for m in re.findall(r"^\| 4k @ (\d+)% \|.*\| regression \(not gated\) \|$", md, re.M)))
assert named == [round(x * 100) for x in bad], (named, bad)
PY
