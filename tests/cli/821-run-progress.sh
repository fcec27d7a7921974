# Progress on stderr: plain lines every --progress-interval seconds off a terminal (CI logs: done,
# requests in flight, rate, ETA, ...),
# a live one-line bar (\r-redrawn: done/total, rate, ETA, retries, errors, accuracy) on a terminal.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --latency-ms 100
run_args
A=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
    --template "$REPO/prompts/kv.txt" --scorer kv --lengths 1k --depths 0:100:10 --concurrency 2)
expect_code 0 "$DIPMAP" run "${A[@]}" --db l.db --progress-interval 0.3
[ "$(grep -c '^progress: [0-9]*/33 trials ([0-9]*%), [0-9]* in flight, [0-9.]*/s, ETA [0-9hms?]*, [0-9]* retries, [0-9]* errors' err)" -ge 3 ] ||
    fail "expected several progress lines: $(cat err)"
grep -q '^progress: 33/33 trials (100%).*accuracy [0-9.]*%' err || fail "no final progress line"
if grep -q $'\r' err; then fail "carriage returns in a non-terminal log"; fi
# on a terminal: a redrawn bar (script(1) gives the run a pseudo-terminal)
cmd=$(printf '%q ' "$DIPMAP" run "${A[@]}" --db b.db)
script -qec "$cmd" /dev/null >tty.out 2>&1 </dev/null || fail "run on a terminal failed: $(cat tty.out)"
grep -q $'\r\\[' tty.out || fail "no live bar: $(head -c 500 tty.out)"
grep -q '\] 33/33 .*/s ETA .* retries 0 errors 0 acc [0-9.]*% c=2' tty.out || fail "bar fields: $(tr '\r' '\n' <tty.out | tail -3)"
assert_contains tty.out "run "
