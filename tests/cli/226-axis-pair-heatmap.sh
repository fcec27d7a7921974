# report --axis-pair A,B: the heatmap of two crossed axes, one cell per (A value, B value) with
# the accuracy of the trials having both, over every length and depth (checked against the
# stored trials); a pair the run does not have, or a malformed pair, is refused (exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model dipmap-sim:hard=0.2
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim \
    --dataset "$REPO/datasets/needle.jsonl" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --template needle --lengths 1k --depths 0,50,100 --distractors hard,random \
    --haystack-order coherent,shuffled --progress none --db t.db --run p
expect_code 0 "$DIPMAP" report p --db t.db --out rep --format md --axis-pair distractors,haystack-order
assert_contains rep/summary.md "### Axes distractors x haystack-order"
for d in hard random; do
    for h in coherent shuffled; do
        n=$(q t.db "select count(*) from trials where axes = 'distractors=$d;haystack-order=$h'")
        k=$(q t.db "select count(*) from trials where axes = 'distractors=$d;haystack-order=$h' and outcome = 'correct'")
        cell=$(python3 -c "print('%.1f%% (%d)' % (100.0 * $k / $n, $n))")
        grep -F "| $d |" rep/summary.md | tail -n 1 >row
        [ "$h" = coherent ] && col=2 || col=3
        got=$(awk -F' \\| ' -v c=$col '{print $c}' row | sed 's/ *|$//')
        [ "$got" = "$cell" ] || fail "cell $d x $h: '$got', want '$cell'"
    done
done
expect_code 2 "$DIPMAP" report p --db t.db --out rep2 --axis-pair distractors,question-at
assert_contains err "--axis-pair: run 'p' has no axis 'question-at' (its axes: distractors, haystack-order)"
expect_code 2 "$DIPMAP" report p --db t.db --out rep3 --axis-pair distractors
assert_contains err "--axis-pair needs two different axis names"
[ ! -e rep2 ] || fail "a refused report wrote files"
