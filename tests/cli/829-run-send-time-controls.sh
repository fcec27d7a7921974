# The run summary's "send time by depth" line names the control trials closed-book and oracle
# (they are keyed with negative depths and were shown as "-0.01%", "-0.02%"), after the
# curve's depths; the spread is over the curve's depths alone.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 \
    --controls closed-book,oracle --db t.db --run r
line=$(grep '^send time by depth' out) || fail "no send time line: $(cat out)"
case "$line" in
*" -0.0"*) fail "a control trial shown as a negative depth: $line" ;;
esac
echo "$line" | grep -Eq '^send time by depth \(mean s after the start\): 0% [0-9.]+ 50% [0-9.]+ 100% [0-9.]+ closed-book [0-9.]+ oracle [0-9.]+; spread ' ||
    fail "unexpected send time line: $line"
