# make demo's "demo:" lines are bold only on a terminal and never with NO_COLOR set; its output
# through a pipe or a file used to carry ANSI escape codes. (Small demo: 1k tokens, scratch dir.)
. "$TESTS/cli/lib/lib.sh"
esc=$(printf '\033')
export DEMO_LENGTHS=1k
DEMO_OUT=$PWD/a bash "$REPO/tests/demo.sh" "$DIPMAP" >demo.out 2>demo.err || fail "demo failed: $(tail -5 demo.out demo.err)"
assert_contains demo.out "demo: done in"
grep -q "$esc" demo.out && fail "escape codes in demo output to a file"
[ -s a/demo.db ] && [ -d a ] || fail "DEMO_OUT not used"
ls a | grep -q -- '-vs-base$' || fail "no comparison folder in DEMO_OUT: $(ls a)"
# on a terminal (script gives it a pty): bold, unless NO_COLOR is set
command -v script >/dev/null || skip "script (util-linux) is not installed: the terminal half needs a pty"
TERM=xterm DEMO_OUT=$PWD/b script -qec "bash '$REPO/tests/demo.sh' '$DIPMAP'" /dev/null >tty.out 2>&1 ||
    fail "demo on a pty failed: $(tail -5 tty.out)"
grep -q "${esc}\[1mdemo:" tty.out || fail "no bold prefix on a terminal"
TERM=xterm NO_COLOR=1 DEMO_OUT=$PWD/c script -qec "bash '$REPO/tests/demo.sh' '$DIPMAP'" /dev/null >nc.out 2>&1 ||
    fail "demo with NO_COLOR failed: $(tail -5 nc.out)"
assert_contains nc.out "demo: done in"
grep -q "${esc}\[1m" nc.out && fail "NO_COLOR=1 still printed bold"
exit 0
