# --shard 1/2 + 2/2 into two stores, merged with `dipmap merge`, equals the unsharded run.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 5
start_sim sim --dataset golden.jsonl
run_args
M=(--lengths 1k,2k --depths 0:100:25 --repeats 2 --run nightly)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${M[@]}" --db whole.db
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${M[@]}" --db s1.db --shard 1/2
assert_contains err "shard 1/2"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" "${M[@]}" --db s2.db --shard 2/2
n1=$(q s1.db "select count(*) from trials")
n2=$(q s2.db "select count(*) from trials")
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] && [ $((n1 + n2)) = 100 ] || fail "shards hold $n1 + $n2 trials"
[ "$(q s1.db "select shard, trials_planned from runs")" = "1/2|$n1" ] || fail "shard 1 run row: $(q s1.db "select * from runs")"
# disjoint
q s1.db "select question_id||'/'||length||'/'||depth_bp||'/'||repeat from trials" | sort >k1
q s2.db "select question_id||'/'||length||'/'||depth_bp||'/'||repeat from trials" | sort >k2
[ -z "$(comm -12 k1 k2)" ] || fail "shards overlap"
expect_code 0 "$DIPMAP" merge merged.db s1.db s2.db
sel="select question_id, length, depth_bp, repeat, outcome, answer, realized_length, prompt_sha256 from trials order by 1,2,3,4"
q whole.db "$sel" >whole.txt
q merged.db "$sel" >merged.txt
[ "$(wc -l <whole.txt)" = 100 ] || fail "unsharded run has $(wc -l <whole.txt) trials"
diff -u whole.txt merged.txt >&2 || fail "merged shards differ from the unsharded run"
[ "$(q merged.db "select status, trials_planned from runs where name='nightly'")" = "complete|100" ] ||
    fail "merged run row: $(q merged.db "select status, trials_planned from runs")"
# every part records the same request probe (the whole matrix's first trial), kept by the merge
probe=$(q whole.db "select request_probe_key || ' ' || request_probe from runs")
case $probe in "kv-"*"|1024|0|0| "????????????????????????????????????????????????????????????????) ;;
*) fail "whole.db: request probe '$probe'" ;; esac
for db in s1.db s2.db merged.db; do
    [ "$(q $db "select request_probe_key || ' ' || request_probe from runs")" = "$probe" ] ||
        fail "$db: request probe $(q $db "select request_probe_key, request_probe from runs") is not the whole run's $probe"
done
# bad shard specs
# shards must share one run name, or merge could not join them
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --db x.db --shard 1/2
assert_contains err "run: --shard needs --run NAME"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" "${M[@]}" --db x.db --shard 3/2
assert_contains err "--shard '3/2'"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" "${M[@]}" --db x.db --shard 0/2
