# serve-sim's llama.cpp /props tells the truth about slots: with --slots N, total_slots N; with
# --slots 0 (the default: no slot limit, one shared cache) no total_slots at all, so dipmap run
# pins nothing to slots there.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
props() { curl -s "$SIM_URL/props"; }
start_sim three --dataset golden.jsonl --prefix-cache 1m --slots 3
[ "$(props | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_slots"])')" = 3 ] ||
    fail "--slots 3: /props $(props)"
for arg in "" "--slots 0"; do
    # shellcheck disable=SC2086
    start_sim none --dataset golden.jsonl --prefix-cache 1m $arg
    props | python3 -c 'import json,sys; p = json.load(sys.stdin); sys.exit("total_slots" in p or "default_generation_settings" not in p)' ||
        fail "'$arg': /props $(props)"
    run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db "t$arg.db" \
        --run r -c 2
    assert_contains err "schedule: cache (server llama.cpp, caches prompt prefixes)"
    assert_not_contains err "pinned to llama.cpp slots"
    grep -q '"id_slot"' none.log && fail "'$arg': id_slot sent without slots"
done
true
