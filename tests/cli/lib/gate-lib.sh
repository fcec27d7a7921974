# Helpers for the `dipmap gate` CLI tests (tests/cli/61x-gate-*.sh), sourced after lib.sh and
# tests/cli/lib/run-lib.sh: a kv golden set, serve-sim with the models a test names, and the gate's
# common arguments (one length of 1000 tokens, 11 depths).

# gate_setup N SIM_ARGS...: golden.jsonl (N questions), hay.jsonl, serve-sim "sim" (log sim.log)
gate_setup() {
    local n=$1
    shift
    make_kv "$n"
    start_sim sim --dataset golden.jsonl "$@"
    GATE_ARGS=(--endpoint "$SIM_URL" --dataset golden.jsonl --haystack hay.jsonl
        --template "$REPO/prompts/kv.txt" --scorer kv --lengths 1000 --depths 0:100:10 --seed 7
        --concurrency 8)
}

# gate_requests [MODEL]: generation requests serve-sim logged (for MODEL)
gate_requests() {
    if [ -n "${1:-}" ]; then
        grep '/chat/completions' sim.log | grep -c "\"model\":\"$1\"" || true
    else
        grep -c '/chat/completions' sim.log || true
    fi
}

# gate_json FILE EXPR: print a Python expression over compare.json d
gate_json() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
