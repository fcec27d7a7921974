# Helpers for the serve-sim CLI tests (tests/cli/3xx-*.sh); source after lib.sh.
# Servers are started on 127.0.0.1 with --port 0 and killed on exit.

SIM_TOKENIZER=${SIM_TOKENIZER:-$REPO/datasets/tokenizers/cl100k_base.tiktoken.gz}
SIM_PIDS=""
trap 'for p in $SIM_PIDS; do kill -TERM "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT

# start_sim NAME ARGS...: start `dipmap serve-sim --port 0 ARGS...` in the
# background (stdout NAME.out, stderr NAME.err); sets SIM_PID and SIM_PORT.
start_sim() {
    local name=$1 i
    shift
    "$DIPMAP" serve-sim --port 0 --tokenizer "$SIM_TOKENIZER" "$@" >"$name.out" 2>"$name.err" &
    SIM_PID=$!
    SIM_PIDS="$SIM_PIDS $SIM_PID"
    for i in $(seq 200); do
        [ -s "$name.out" ] && break
        kill -0 "$SIM_PID" 2>/dev/null || { cat "$name.err" >&2; fail "serve-sim $name exited at start"; }
        sleep 0.05
    done
    SIM_PORT=$(head -n 1 "$name.out")
    case "$SIM_PORT" in '' | *[!0-9]*) fail "serve-sim $name printed no port: '$SIM_PORT'" ;; esac
}

# stop_sim PID: SIGTERM, wait, and require exit status 0.
stop_sim() {
    local rc
    kill -TERM "$1"
    wait "$1"
    rc=$?
    [ "$rc" = 0 ] || fail "serve-sim (pid $1) exited $rc after SIGTERM"
}

# simpy: run python3 with tests/cli/lib on the module path (for simclient.py).
simpy() {
    PYTHONPATH="$TESTS/cli/lib${PYTHONPATH:+:$PYTHONPATH}" python3 "$@"
}
