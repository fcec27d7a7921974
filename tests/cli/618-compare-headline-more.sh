# The FAIL headline names the first four primary regressions and says how many more there are
# (it used to stop silently): a candidate whose dip grew from 10 to 60 pp regresses on all six
# primary endpoints (8k and 32k: all depths, middle, dip), so the headline names four and ends
# "; and 2 more", the count compare.json's primary regressions give. (Moved here from 622,
# whose 150-question doubled dip regresses on four endpoints, too few to need "more".)
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run t.db --run base --model m --time 1764000000 --dip 0.1 --questions 60
make_run t.db --run cand --model m --time 1764003600 --dip 0.6 --questions 60
expect_code 1 "$DIPMAP" compare base cand --db t.db --json v.json
grep '^FAIL: regression in ' out >head.txt || fail "no FAIL headline: $(head -3 out)"
python3 - head.txt v.json <<'PY' || fail "the headline hides regressions: $(cat head.txt)"
import json, re, sys
line = open(sys.argv[1], encoding='utf-8').read().strip()
tests = json.load(open(sys.argv[2]))['tests']
reg = [t for t in tests if t['primary'] and t['status'] == 'regression']
assert len(reg) == 6, len(reg)
m = re.fullmatch(r'FAIL: regression in (.*); and (\d+) more', line)
assert m, line
named = re.findall(r'(?:all depths|the middle \(25-75%\)|the dip) at \d+k [-+][\d.]+ pp', m.group(1))
assert len(named) == 4 and m.group(1).count('Holm p') == 4, named
assert int(m.group(2)) == len(reg) - 4, (m.group(2), len(reg))
PY
exit 0
