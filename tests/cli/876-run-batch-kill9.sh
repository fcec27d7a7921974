# run --batch killed (SIGKILL) at each point of a submission: after the batch and its trials
# are recorded, after the upload, after the create answer before its id is stored, after the
# id is stored, and when the final batch is about to be downloaded. The same command then
# re-attaches: every trial is stored once, the provider holds exactly one batch (nothing
# created twice: a create whose answer was lost is found by its input file) and answered
# each line once (nothing paid twice).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
for point in prepared uploaded created submitted final; do
    start_sim "sim-$point" --dataset golden.jsonl
    run_args
    ARGS=("${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db "$point.db" --run k --batch --batch-poll 0.05)
    DIPMAP_TEST_BATCH_KILL=$point "$DIPMAP" run "${ARGS[@]}" >"k-$point.out" 2>"k-$point.err"
    rc=$?
    [ "$rc" = 137 ] || fail "$point: the killed run exited $rc (stderr: $(cat "k-$point.err"))"
    [ "$(q "$point.db" "pragma integrity_check")" = ok ] || fail "$point: store corrupted"
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
