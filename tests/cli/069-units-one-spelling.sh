# Drops and tolerances are written the same way in every option: 0.05, 5pp and 5% read the
# same (compare, gate, plan), the output says the value read in pp, and a bare number above 1
# is refused naming the forms (`--tolerance 5pp` was refused while `--detect 0.1` meant 0.1 pp);
# --power says the drop it read.
# sanitizers: skip: the same option parsers over and over; 064 runs every option error
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
for t in 0.05 5pp 5%; do
    expect_code 0 "$DIPMAP" plan --questions 100 --lengths 8k --tolerance "$t" --detect 0.1 --iterations 1000
    assert_contains out "tolerance 5.0 pp"
    assert_contains out "for a drop of 10.0 pp at 80% power"
    cp out "plan-$t.txt"
done
cmp -s plan-0.05.txt plan-5pp.txt && cmp -s plan-0.05.txt plan-5%.txt || fail "plan reads 0.05, 5pp and 5% differently"
for cmd in plan compare gate; do
    expect_code 2 "$DIPMAP" $cmd a b --tolerance 5
    assert_contains err "option '--tolerance' takes a fraction or points: 0.05, 5pp or 5%, not '5'"
done
# --power says the drop it read, in pp (it echoed the argument: "for the drop 0.05")
for t in 0.05 5pp 5%; do
    expect_code 0 "$DIPMAP" plan --questions 100 --lengths 8k --depths 0,50,100 --power "$t" --iterations 1000
    assert_contains out "for the drop 5.0 pp; with no drop"
done
expect_code 0 "$DIPMAP" plan --questions 100 --lengths 8k --depths 0,50,100 --power 0,5pp,0.1 --iterations 1000
assert_contains out "for the drop 0.0, 5.0, 10.0 pp (one per depth); with no drop"
expect_code 0 "$DIPMAP" plan --questions 100 --lengths 8k --depths 0,50,100 --power 10%@25-75 --iterations 1000
assert_contains out "for the drop 10.0 pp at depths 25-75%; with no drop"
expect_code 2 "$DIPMAP" plan --questions 100 --power 10
assert_contains err "'10' is not a drop between 0 and 100 pp"

make_kv 6
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.9,dip=0.2
run_args
for r in base cand; do
    "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run "$r" >/dev/null 2>"$r.err" || fail "run $r: $(cat "$r.err")"
done
for t in 0.05 5pp 5%; do
    "$DIPMAP" compare base cand --db t.db --tolerance "$t" --out "c-$t" >"compare-$t.txt" 2>/dev/null
    echo $? >"rc-$t"
    grep -q "a worsening of at least 5.0 pp" "compare-$t.txt" || fail "compare --tolerance $t: $(cat "compare-$t.txt")"
done
cmp -s compare-0.05.txt compare-5pp.txt && cmp -s compare-0.05.txt compare-5%.txt || fail "compare reads the forms differently"
python3 - <<'PY' || fail "compare.json records different tolerances"
import json
v = {t: json.load(open("c-%s/compare.json" % t)) for t in ("0.05", "5pp", "5%")}
import re
tol = {t: float(re.search(r"\"tolerance\":\s*([0-9.e-]+)", open("c-%s/compare.json" % t).read()).group(1)) for t in v}
assert len(set(tol.values())) == 1 and abs(list(tol.values())[0] - 0.05) < 1e-12, tol
PY
