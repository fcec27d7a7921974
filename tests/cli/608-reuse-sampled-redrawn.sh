# run --reuse of answers sampled at temperature > 0 does not freeze that draw (issue 42 item 4:
# 40 frozen baselines gave FAIL rates of 0-22% where fresh draws give 0-5%): the sampled run's
# requests are sent again and stderr says why; answers drawn at temperature 0 are still reused.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.5,dip=0.3
run_args
sent() { grep -c '/completions' sim.log; }
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db base.db --run hot --temperature 0.7
[ "$(sent)" = 8 ] || fail "baseline: $(sent) requests"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run again --reuse base.db --temperature 0.7
assert_contains err "reuse: base.db:hot was sampled at temperature 0.7: its answers are drawn again"
assert_contains err "conditional on that one draw"
[ "$(sent)" = 16 ] || fail "the sampled answers were reused: $(sent) requests"
[ "$(q t.db "select count(*) from trials where reused_from is not null")" = 0 ] || fail "marked reused"
# temperature 0 answers are still reused
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db base.db --run cold
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db base.db --run cold2 --reuse cold
[ "$(sent)" = 24 ] || fail "temperature-0 answers were not reused: $(sent) requests"
