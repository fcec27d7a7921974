# make demo's ordering step: demo-rag (the documents' illustrative curve, flat) measured with 5
# policies x k = 3, 5, 10 on synthetic lists, its depth curve mapped for the computed column;
# the demo prints the recommendation and the 15-row measured table, and the ordering report.
. "$TESTS/cli/lib/lib.sh"
export DEMO_LENGTHS=1k
"$DIPMAP" demo --out "$PWD/a" >demo.out 2>demo.err ||
    fail "demo failed: $(tail -5 demo.out demo.err)"
assert_contains demo.out "demo: choosing an ordering for demo-rag: 5 policies x k = 3, 5, 10"
assert_contains demo.out "demo: which order to pass demo-rag's retrieved chunks in"
assert_contains demo.out "   policy | k | accuracy | 95% interval | expected | expected interval | recall@k | answer-present"
rows=$(grep -cE '^   (source|best-first|edges-first|second-last|ascending) \| (3|5|10) \| [0-9.]+% \| \[' demo.out)
[ "$rows" = 15 ] || fail "expected 15 table rows, got $rows: $(cat demo.out)"
grep -qE '^  [a-z-]+ at k=(3|5|10): [0-9.]+% \[' demo.out || fail "no recommendation: $(cat demo.out)"
grep -q ' | –' demo.out && fail "a computed (expected) cell is empty: the depth curve was not used"
ls a/*-order/report.html a/*-order/summary.json >/dev/null || fail "no ordering report: $(ls a)"
exit 0
