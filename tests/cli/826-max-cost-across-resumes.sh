# --max-cost caps the run, not each command (and its resume hint raises the cap): three resumes with the same --max-cost used to
# spend three budgets. A resume counts what the run's stored trials already cost (at the given
# prices: a merged store holds every shard's trials, so its spend too), and stops before the
# first request when nothing is left.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl
run_args
P=(--lengths 1k --depths 0:100:10 --price-in 10 --price-out 10 --max-tokens 64 --concurrency 1)
spent() { # USD of the run's stored trials at $10/M in and out
    q "$1" "select total(usage_prompt_tokens + completion_tokens) * 10 / 1e6 from trials t join runs r on r.id = t.run_id where r.name = '$2'"
}
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" "${P[@]}" --db t.db --run b --max-cost 0.05
n1=$(q t.db "select count(*) from trials")
# the resume hint does not repeat the cap that stopped it (that resume would stop at once): it
# gives the run's projected cost
hint=$(grep '^hint: resume with: ' err) || fail "no resume hint: $(cat err)"
case $hint in *"--max-cost 0.05"*) fail "the hint repeats the cap: $hint" ;; esac
v=$(sed -n 's/.*--max-cost \([0-9.]*\).*/\1/p' <<<"$hint")
python3 -c "import sys; sys.exit(0 if float('$v') > 0.05 else 1)" || fail "the hint's cap $v is not above 0.05"
assert_contains err "the run as planned projects to about \$"
for i in 1 2; do
    expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" "${P[@]}" --db t.db --run b --max-cost 0.05
    assert_contains err "already spent by this run"
    assert_contains err "--max-cost \$0.05 reached"
done
[ "$(q t.db "select count(*) from trials")" = "$n1" ] || fail "a resume with no budget left sent trials"
python3 -c "import sys; sys.exit(0 if $(spent t.db b) <= 0.05 else 1)" || fail "the run spent \$$(spent t.db b), over \$0.05"
[ "$(grep -c '/completions' sim.log)" = "$n1" ] || fail "requests were sent after the budget was spent"
# a bigger cap continues from the spend so far
expect_code 4 "$DIPMAP" run "${RUN_ARGS[@]}" "${P[@]}" --db t.db --run b --max-cost 0.1
n2=$(q t.db "select count(*) from trials")
[ "$n2" -gt "$n1" ] || fail "a raised cap sent nothing"
python3 -c "import sys; sys.exit(0 if $(spent t.db b) <= 0.1 else 1)" || fail "over \$0.1"
