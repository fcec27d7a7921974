# Helpers for the `dipmap run` CLI tests (tests/cli/8xx-*.sh), sourced after
# tests/cli/lib/lib.sh. Servers started here are killed when the test exits.

SIM_PIDS=()
cleanup_sims() {
    local p
    for p in "${SIM_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${SIM_PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup_sims EXIT

# start_sim NAME ARGS...: start `dipmap serve-sim --port 0 ARGS` (127.0.0.1),
# wait for its port; sets SIM_URL and SIM_PID, logs to NAME.log, NAME.out, NAME.err.
start_sim() {
    local name=$1 i
    shift
    "$DIPMAP" serve-sim --port 0 --log "$name.log" "$@" >"$name.out" 2>"$name.err" &
    SIM_PID=$!
    SIM_PIDS+=("$SIM_PID")
    for i in $(seq 1200); do # 60 s: a busy machine starts it late
        [ -s "$name.out" ] && break
        kill -0 "$SIM_PID" 2>/dev/null || { cat "$name.err" >&2; fail "serve-sim did not start"; }
        sleep 0.05
    done
    [ -s "$name.out" ] || fail "serve-sim printed no port"
    SIM_URL="http://127.0.0.1:$(head -n1 "$name.out")"
}

# start_view DB: `dipmap view --db DB --port 0` (127.0.0.1), stopped when the test exits like the
# sims; sets VIEW_URL (ending in /); logs to view.out, view.err.
start_view() {
    local i
    "$DIPMAP" view --db "$1" --port 0 >view.out 2>view.err &
    SIM_PIDS+=("$!")
    for i in $(seq 200); do [ -s view.out ] && break; sleep 0.05; done
    VIEW_URL=$(head -n 1 view.out)
    case "$VIEW_URL" in http://127.0.0.1:[0-9]*/) ;; *) fail "view printed '$VIEW_URL' (stderr: $(cat view.err))" ;; esac
}

# make_kv [N]: a seeded kv golden set (golden.jsonl) and haystack (hay.jsonl)
make_kv() {
    "$DIPMAP" gen kv --n "${1:-4}" --seed 1 --out golden.jsonl --haystack-out hay.jsonl \
        --haystack-size 400 >/dev/null || fail "dipmap gen kv failed"
}

# The common run arguments against $SIM_URL with the kv set; more args may follow.
run_args() {
    RUN_ARGS=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
        --template "$REPO/prompts/kv.txt" --scorer kv --progress none)
}

# q DB SQL: run one query with the sqlite3 CLI
q() {
    sqlite3 -batch -noheader "$1" "$2"
}

# wait_requests LOG N: wait (up to 30 s) until the server logged N generation requests
wait_requests() {
    local i
    for i in $(seq 600); do
        [ "$(grep -c '/completions' "$1" 2>/dev/null)" -ge "$2" ] && return 0
        sleep 0.05
    done
    fail "the server did not see $2 requests"
}
