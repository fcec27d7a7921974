# make demo's "demo:" lines are bold only on a terminal and never with NO_COLOR set; its output
# through a pipe or a file used to carry ANSI escape codes. (Small demo: 1k tokens, scratch dir.)
# It leaves one copy of compare.md (in the comparison folder).
. "$TESTS/cli/lib/lib.sh"
esc=$(printf '\033')
export DEMO_LENGTHS=1k
"$DIPMAP" demo --out "$PWD/a" >demo.out 2>demo.err || fail "demo failed: $(tail -5 demo.out demo.err)"
assert_contains demo.out "demo: done in"
grep -q "$esc" demo.out && fail "escape codes in demo output to a file"
[ -s a/demo.db ] && [ -d a ] || fail "--out not used"
ls a | grep -q -- '-vs-base$' || fail "no comparison folder in DEMO_OUT: $(ls a)"
# compare.md is in that folder; the demo wrote its stdout beside it as <run>-vs-base.md too
ls a | grep -q -- '-vs-base\.md$' && fail "a second copy of compare.md: $(ls a)"
# the verdict line is compare.json's headline (where the regression is), not a fixed sentence
headline=$(python3 -c 'import json,glob; print(json.load(open(glob.glob("a/*-vs-base/compare.json")[0]))["headline"])')
# (at 1k serve-sim plants no dip: the two models answer alike and 36 questions cannot bound it)
case $headline in "INCONCLUSIVE: no primary regression, but "*"a decision needs about "*) ;;
*) fail "unexpected demo verdict at 1k: $headline" ;; esac
grep -qF "  verdict (candidate vs baseline): $headline   [compare exit code 4]" demo.out ||
    fail "the demo's verdict line is not the headline: $(grep verdict demo.out)"
# on a terminal (script gives it a pty): bold, unless NO_COLOR is set
need_tool script DIPMAP_REQUIRE_SCRIPT "script (util-linux) is not installed: the terminal half needs a pty"
TERM=xterm script -qec "'$DIPMAP' demo --out '$PWD/b'" /dev/null >tty.out 2>&1 ||
    fail "demo on a pty failed: $(tail -5 tty.out)"
grep -q "${esc}\[1mdemo:" tty.out || fail "no bold prefix on a terminal"
TERM=xterm NO_COLOR=1 script -qec "'$DIPMAP' demo --out '$PWD/c'" /dev/null >nc.out 2>&1 ||
    fail "demo with NO_COLOR failed: $(tail -5 nc.out)"
assert_contains nc.out "demo: done in"
grep -q "${esc}\[1m" nc.out && fail "NO_COLOR=1 still printed bold"
exit 0
