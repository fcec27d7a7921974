# run --batch (issue 33), the parts 875-877 leave out: --max-cost is checked before each
# submission counting the batches already submitted and not yet answered (it used to compare
# each file alone with the budget, so files of $0.012 each all went out under a $0.02 cap),
# and the batches the budget let through are collected before the run stops; a resume counts
# what the batches cost at batch prices (not online ones); lines that fail
# for the server's reasons (the error file) go into a new batch; files over
# --batch-max-bytes are split, and within a file each group's depths go deepest first (the
# prefix-cache schedule); kill -9 while a batch is in progress, then the same command
# re-attaches to it (one batch at the provider, each line answered once).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
n_batches() { # at the provider ($SIM_URL)
    curl -s "$SIM_URL/v1/batches?limit=100" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]))'
}

# --max-cost: a 1k line costs up to ~$0.0011 at batch prices, a file of 10 about $0.011; $0.02
# buys one file, not two
start_sim sim --dataset golden.jsonl
run_args
A=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --batch --batch-poll 0.05 --price-in 2
    --price-out 4 --max-tokens 64 --batch-max-requests 10)
expect_code 4 "$DIPMAP" run "${A[@]}" --db c.db --run c --max-cost 0.02
assert_contains err "a batch of 10 requests would cost up to"
assert_contains err "30 trial(s) not sent"
[ "$(n_batches)" = 1 ] || fail "--max-cost \$0.02 let $(n_batches) batches of ~\$0.011 through"
[ "$(n_trials c "1" c.db)" = 10 ] || fail "the batch within the budget was not collected"
[ "$(q c.db "select status from runs")" = budget ] || fail "status not budget"
spent=$(sed -n 's/.*reached (\$\([0-9.]*\) spent by the run.*/\1/p' err)
expect_code 0 "$DIPMAP" run "${A[@]}" --db c.db --run c --max-cost 1
[ "$(n_trials c "1" c.db)" = 40 ] || fail "the resume did not complete the run"
# the resume counts what the batch cost at batch prices (it counted online prices: twice)
assert_contains err "budget: \$$spent of --max-cost \$1.00 already spent by this run"

# the server's errors: their lines go into a new batch, never stored as errors
start_sim sim-e --dataset golden.jsonl --batch-errors 0.3
run_args
A=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --batch --batch-poll 0.05)
expect_code 0 "$DIPMAP" run "${A[@]}" --db e.db --run e
assert_contains err "to send again"
[ "$(n_batches)" -ge 2 ] || fail "the failed lines were not sent in a new batch"
[ "$(n_trials e "1" e.db)" = 40 ] || fail "expected 40 trials"
[ "$(n_trials e "t.outcome = 'error'" e.db)" = 0 ] || fail "a server error was stored"

# --batch-max-bytes: every file under the limit; deepest first within each group of a file
start_sim sim-b --dataset golden.jsonl
run_args
A=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --batch --batch-poll 0.05)
expect_code 0 "$DIPMAP" run "${A[@]}" --db b.db --run b --batch-max-bytes 20000
[ "$(q b.db "select count(*) from batches")" -ge 6 ] || fail "120 kB of requests not split at 20 kB"
[ "$(q b.db "select max(bytes) from batches")" -le 20000 ] || fail "a file over --batch-max-bytes"
[ "$(q b.db "select sum(requests) from batches")" = 40 ] || fail "requests lost or doubled"
python3 - sim-b.log <<'PY' || fail "a file's lines are not deepest first per group"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
lines = [l for l in lines if l["route"] == "batch"]
assert len(lines) == 40, len(lines)
for a, b in zip(lines, lines[1:]):
    if (a["question_id"], a["T"]) == (b["question_id"], b["T"]):
        assert a["x"] > b["x"], (a["question_id"], a["T"], a["x"], b["x"])
PY

# kill -9 while the batch is in progress at the provider (its second poll held by a proxy, the
# first one's status stored), then the same command
start_sim sim-k --dataset golden.jsonl --batch-delay-ms 1500 # 4.5 s before it completes
start_hold h-k "$SIM_PORT" "GET /v1/batches/" --nth 2
SIM_URL=$HOLD_URL
run_args
A=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --batch --batch-poll 0.05 --db k.db --run k)
"$DIPMAP" run "${A[@]}" >k.out 2>k.err &
pid=$!
kill_when_held h-k "$pid" || fail "the run ended before its second poll: $(cat k.err)"
wait "$pid"
[ $? = 137 ] || fail "the killed run: $(cat k.err)"
[ "$(q k.db "select state from batches")" = submitted ] || fail "store: $(q k.db 'select * from batches')"
expect_code 0 "$DIPMAP" run "${A[@]}"
assert_contains out "run k: complete"
assert_contains err "elapsed"
[ "$(n_batches)" = 1 ] || fail "the resume submitted again"
[ "$(grep -c '"route":"batch"' sim-k.log)" = 40 ] || fail "lines answered more than once"
[ "$(n_trials k "1" k.db)" = 40 ] || fail "expected 40 trials"
echo ok
