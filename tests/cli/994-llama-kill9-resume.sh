# Real llama-server: kill -9 in the middle of a run, then resume with the same command.
# Every trial is in the store exactly once, and the server's own request log
# (--log-verbose keeps every request body) shows every prompt of the run answered, none
# that is not in the run, and no prompt sent twice beyond the requests in flight at the kill.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_golden 4 17
llama_start srv -c 8192 -np 2 --log-verbose
args=(--lengths 1k,2k --depths 0,50,100 --concurrency 2 --max-tokens 8)
total=24 # 4 questions x 2 lengths x 3 depths
llama_args
"$DIPMAP" run "${LLAMA_ARGS[@]}" --run k9 "${args[@]}" >run1.out 2>run1.err &
pid=$!
target=$((3 + RANDOM % 16))
for i in $(seq 3000); do
    [ "$(q t.db "select count(*) from trials where outcome <> 'pending'" 2>/dev/null)" -ge "$target" ] 2>/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.02
done
kill -9 $pid 2>/dev/null || fail "the run ended before the kill (target $target)"
wait $pid 2>/dev/null
n1=$(q t.db "select count(*) from trials where outcome <> 'pending'")
echo "killed after $n1 trials (target $target)"
[ "$n1" -gt 0 ] && [ "$n1" -lt $total ] || fail "expected a partial run, got $n1 of $total"
# the server finishes (and logs) what was in flight: no connection to it left open
python3 "$TESTS/cli/lib/tcpstate.py" idle "${LLAMA_URL##*:}" || fail "llama-server kept connections open"
llama_run k9 "${args[@]}"
[ "$LLAMA_RC" = 0 ] || { cat run-k9.err >&2; fail "resume exited $LLAMA_RC"; }
assert_contains run-k9.out "run k9: complete"
[ "$(q t.db "select count(*) from trials")" = $total ] || fail "not $total trials"
[ "$(q t.db "select count(*) from trials where outcome not in ('correct','wrong')")" = 0 ] ||
    fail "trials not scored: $(q t.db "select outcome, error from trials where outcome not in ('correct','wrong') limit 5")"
# at most the 2 requests on the wire at the kill are sent again
llama_check sent-once "$LLAMA_LOG" t.db k9 2
