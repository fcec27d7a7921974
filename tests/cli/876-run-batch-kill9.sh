# run --batch killed (SIGKILL, from the test) at each point of a submission: after the batch
# and its trials are recorded (the upload held), after the upload (the create held before it
# reaches the provider), after the create before its answer arrives (the create's answer held),
# after the batch id is stored (its first poll held), and when the final batch is about to be
# downloaded (the download held). A proxy in front of serve-sim holds the request
# (tests/servers/hold_proxy.py); nothing in dipmap knows it is tested. The same command then
# re-attaches: every trial is stored once, the provider holds exactly one batch (nothing created
# twice: a create whose answer was lost is found by its input file) and answered each line once
# (nothing paid twice).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
for point in prepared uploaded created submitted final; do
    start_sim "sim-$point" --dataset golden.jsonl
    case $point in
    prepared) start_hold "h-$point" "$SIM_PORT" "POST /v1/files" ;;
    uploaded) start_hold "h-$point" "$SIM_PORT" "POST /v1/batches" ;;
    created) start_hold "h-$point" "$SIM_PORT" "POST /v1/batches" --after ;;
    submitted) start_hold "h-$point" "$SIM_PORT" "GET /v1/batches/" ;;
    final) start_hold "h-$point" "$SIM_PORT" "GET /v1/files/" ;;
    esac
    SIM_URL=$HOLD_URL
    run_args
    ARGS=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db "$point.db" --run k --batch --batch-poll 0.05)
    "$DIPMAP" run "${ARGS[@]}" >"k-$point.out" 2>"k-$point.err" &
    pid=$!
    kill_when_held "h-$point" "$pid" || fail "$point: the run ended before the held request: $(cat "k-$point.err")"
    wait "$pid"
    rc=$?
    [ "$rc" = 137 ] || fail "$point: the killed run exited $rc (stderr: $(cat "k-$point.err"))"
    [ "$(q "$point.db" "pragma integrity_check")" = ok ] || fail "$point: store corrupted"
    case $point in
    prepared) want=prepared ;; uploaded) want=creating ;; created) want=creating ;; *) want=submitted ;;
    esac
    [ "$(q "$point.db" "select state from batches")" = "$want" ] ||
        fail "$point: the store says $(q "$point.db" "select state from batches"), want $want"
    expect_code 0 "$DIPMAP" run "${ARGS[@]}"
    assert_contains out "run k: complete"
    [ "$(q "$point.db" "select count(*) from trials")" = 40 ] || fail "$point: expected 40 trials"
    curl -s "$SIM_URL/v1/batches?limit=100" >list.json
    n=$(python3 -c 'import json; print(len(json.load(open("list.json"))["data"]))')
    [ "$n" = 1 ] || fail "$point: the provider holds $n batches (want 1): $(cat list.json)"
    lines=$(grep -c '"route":"batch"' "sim-$point.log")
    [ "$lines" = 40 ] || fail "$point: the provider answered $lines lines for 40 trials"
    case $point in
    created) assert_contains err "found batch_sim" ;;
    uploaded) assert_contains err "uploaded before" ;;
    esac
done
echo ok
