# run refuses to resume a run whose earlier part was built by a dipmap that builds other bytes
# for the same trial: the run records its request probe (the prompt_sha256 of the first trial
# of the whole matrix, kv-0001|1024|0|0|layout=chat here) and a resume compares the one this
# binary builds. The inputs are tests/data/old-store's; the older binary that wrote it cut its
# chat-layout prompts elsewhere (1045 tokens for 1k), and the rewritten values below are the
# prompt hash it stored for that very key, standing in for a run that binary began:
#  - a budget-stopped run whose recorded probe is the older binary's: exit 2, the run, the key
#    and both hashes named, nothing sent, the run left as it was (before: resumed, mixing both);
#  - a run recorded without a probe (as an older binary records it) whose stored trial of the
#    probe key holds the older binary's prompt: refused the same way (the check is made on
#    what was sent);
#  - a shard recorded without a probe, which does not hold the probe key: resumes as before and
#    its probe stays unknown (nothing was checked); the same with the key's prompt equal to this
#    binary's resumes and records the probe.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
cp "$REPO"/tests/data/old-store/{old.db,golden.jsonl,hay.jsonl} .
start_sim sim --dataset golden.jsonl --tokenizer "$TK" --chat-template chatml
ARGS=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
    --template "$REPO/prompts/kv.txt" --scorer kv --progress none --tokenizer "$TK" --lengths 1k
    --depths 0,100 --layout chat --price-in 2 --price-out 4)
key='kv-0001|1024|0|0|layout=chat'
old=$(q old.db "select t.prompt_sha256 from trials t join runs r on r.id = t.run_id
    where r.name = 'online' and t.question_id || '|' || t.length || '|' || t.depth_bp || '|' ||
    t.repeat || '|' || t.axes = '$key'")
[ ${#old} = 64 ] || fail "old.db: no prompt of $key"
state() { # DB RUN: the run's status and trials, as a resume would change them
    q "$1" "select r.status || ' ' || count(t.run_id) || ' ' || ifnull(max(t.finished_at), '')
        from runs r left join trials t on t.run_id = r.id where r.name = '$2'"
}
refused() { # RUN MINE EARLIER
    assert_contains err "error: run: cannot resume run '$1': this dipmap builds other bytes for its trial $key (prompt ${2:0:12}...) than the run's earlier part did (prompt ${3:0:12}...)"
    assert_contains err "hint: start a new run with another --run NAME"
    assert_not_contains err "resuming run"
}

# a recorded probe that differs
expect_code 4 "$DIPMAP" run "${ARGS[@]}" --db a.db --run a --max-cost 0.005
new=$(q a.db "select request_probe from runs where request_probe_key = '$key'")
[ ${#new} = 64 ] && [ "$new" != "$old" ] || fail "a.db: request probe '$new' (the older binary's: $old)"
q a.db "update runs set request_probe = '$old'"
before=$(state a.db a)
expect_code 2 "$DIPMAP" run "${ARGS[@]}" --db a.db --run a
refused a "$new" "$old"
[ "$(state a.db a)" = "$before" ] || fail "a.db: a refused resume changed the run: $(state a.db a), was $before"
# the same binary resumes it once the probe is its own
q a.db "update runs set request_probe = '$new'"
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --db a.db --run a
assert_contains err "resuming run 'a'"
assert_contains out "run a: complete"

# no recorded probe; the stored trial of the probe key was sent as the older binary built it
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --db b.db --run b
q b.db "update runs set request_probe_key = null, request_probe = null;
    update trials set prompt_sha256 = '$old' where question_id || '|' || length || '|' ||
    depth_bp || '|' || repeat || '|' || axes = '$key'"
before=$(state b.db b)
expect_code 2 "$DIPMAP" run "${ARGS[@]}" --db b.db --run b
refused b "$new" "$old"
[ "$(state b.db b)" = "$before" ] || fail "b.db: a refused resume changed the run"
[ "$(q b.db "select ifnull(request_probe, 'unknown') from runs")" = unknown ] ||
    fail "b.db: a refused resume recorded a probe"

# no recorded probe, the probe key not held (shard 2/2): resumes, the probe stays unknown
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --db c.db --run c --shard 2/2
q c.db "update runs set request_probe_key = null, request_probe = null"
[ "$(n_trials c "question_id = 'kv-0001'" c.db)" = 0 ] || fail "c.db: shard 2/2 holds kv-0001"
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --db c.db --run c --shard 2/2
assert_contains err "resuming run 'c'"
[ "$(q c.db "select ifnull(request_probe, 'unknown') from runs")" = unknown ] ||
    fail "c.db: an unchecked probe was recorded"
# no recorded probe, the probe key held with this binary's prompt: resumes and records it
q b.db "update trials set prompt_sha256 = '$new' where question_id || '|' || length || '|' ||
    depth_bp || '|' || repeat || '|' || axes = '$key'"
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --db b.db --run b
[ "$(q b.db "select request_probe_key || ' ' || request_probe from runs")" = "$key $new" ] ||
    fail "b.db: the checked probe was not recorded"
echo ok
