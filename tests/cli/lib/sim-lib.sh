# Helpers for the CLI tests that start servers: serve-sim (start_sim, stop_sim), dipmap view
# (start_view), a server's request log (wait_requests), a port that refuses connections
# (closed_port) and a server's connections (wait_port_read, wait_port_idle). Source after lib.sh (run-lib.sh
# sources this file). Servers listen on 127.0.0.1 with --port 0 and are stopped when the test
# exits (tests/servers/fake.sh adds its server to SIM_PIDS too).

SIM_TOKENIZER=${SIM_TOKENIZER:-$REPO/datasets/tokenizers/cl100k_base.tiktoken.gz}
declare -p SIM_PIDS >/dev/null 2>&1 || SIM_PIDS=()
cleanup_sims() {
    local p
    for p in "${SIM_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${SIM_PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup_sims EXIT

# start_sim NAME [ARGS...]: start `dipmap serve-sim --port 0 ARGS...` in the background and
# wait for its port (stdout NAME.out, stderr NAME.err); sets SIM_PID, SIM_PORT and SIM_URL
# (http://127.0.0.1:PORT). Unless ARGS give their own, serve-sim logs every request to NAME.log
# (--log) and counts tokens with $SIM_TOKENIZER (--tokenizer; default cl100k_base).
start_sim() {
    local name=$1 i a log=1 tok=1
    shift
    for a in "$@"; do
        case "$a" in
        --log | --log=*) log= ;;
        --tokenizer | --tokenizer=* | -t) tok= ;;
        esac
    done
    # emptied here, not only by the redirection below: that happens in the background child, so
    # a name used again could still show the previous server's port to the wait loop (311 on a
    # busy machine: "serve-sim none printed no port: ''")
    : >"$name.out"
    : >"$name.err"
    "$DIPMAP" serve-sim --port 0 ${log:+--log "$name.log"} ${tok:+--tokenizer "$SIM_TOKENIZER"} \
        "$@" >"$name.out" 2>"$name.err" &
    SIM_PID=$!
    SIM_PIDS+=("$SIM_PID")
    for i in $(seq 1200); do # 60 s: a busy machine starts it late
        [ -s "$name.out" ] && break
        kill -0 "$SIM_PID" 2>/dev/null || { cat "$name.err" >&2; fail "serve-sim $name exited at start"; }
        sleep 0.05 # polls for the port line (state), as wait_for_file
    done
    SIM_PORT=$(head -n 1 "$name.out")
    case "$SIM_PORT" in '' | *[!0-9]*) fail "serve-sim $name printed no port: '$SIM_PORT'" ;; esac
    SIM_URL="http://127.0.0.1:$SIM_PORT"
}

# stop_sim PID: SIGTERM, wait, and require exit status 0.
stop_sim() {
    local rc
    kill -TERM "$1"
    wait "$1"
    rc=$?
    [ "$rc" = 0 ] || fail "serve-sim (pid $1) exited $rc after SIGTERM"
}

# start_view DB: `dipmap view --db DB --port 0` (127.0.0.1), stopped when the test exits like the
# sims; sets VIEW_URL (ending in /); logs to view.out, view.err.
start_view() {
    local i
    : >view.out # (as in start_sim: a second view must not show the first one's URL)
    "$DIPMAP" view --db "$1" --port 0 >view.out 2>view.err &
    SIM_PIDS+=("$!")
    wait_for_file view.out "$!"
    VIEW_URL=$(head -n 1 view.out)
    case "$VIEW_URL" in http://127.0.0.1:[0-9]*/) ;; *) fail "view printed '$VIEW_URL' (stderr: $(cat view.err))" ;; esac
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

# closed_port: sets CLOSED_PORT, a TCP port on 127.0.0.1 that refuses connections for the rest
# of the test: bound (port 0) by a process that never listens, so no other test can take it
# (a port found free and released could be taken by the time it is used).
closed_port() {
    rm -f closed.port closed.port.tmp
    python3 -c 'import os, signal, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()' closed.port &
    SIM_PIDS+=("$!")
    wait_for_file closed.port "$!"
    CLOSED_PORT=$(cat closed.port)
}

# wait_port_read PORT: a connection to the server on PORT whose request the server has read
# (its receive queue is empty: /proc/net/tcp); for "a request in flight" without a timer.
wait_port_read() {
    python3 "$TESTS/cli/lib/tcpstate.py" read "$1" || fail "the server on port $1 did not read a request"
}

# wait_port_idle PORT: no connection to the server on PORT is open any more (each was answered
# and closed, or closed by the server): what was in flight when a client died is finished and
# logged.
wait_port_idle() {
    python3 "$TESTS/cli/lib/tcpstate.py" idle "$1" || fail "the server on port $1 kept connections open"
}

# start_hold NAME BACKEND_PORT "METHOD PATH_PREFIX" [--after] [--nth N]: a proxy in front of
# BACKEND_PORT that holds the Nth matching request (tests/servers/hold_proxy.py), stopped when
# the test exits; sets HOLD_URL. kill_when_held NAME PID: wait until NAME holds its request,
# then SIGKILL PID (a client killed at that point of its protocol, from outside).
start_hold() {
    local name=$1 backend=$2 hold=$3 i
    shift 3
    rm -f "$name.port" "$name.held"
    python3 "$TESTS/servers/hold_proxy.py" --backend "$backend" --port-file "$name.port" \
        --held-file "$name.held" --hold "$hold" "$@" 2>"$name.err" &
    SIM_PIDS+=("$!")
    for i in $(seq 400); do [ -s "$name.port" ] && break; sleep 0.05; done
    [ -s "$name.port" ] || fail "hold proxy $name printed no port ($(cat "$name.err"))"
    HOLD_URL="http://127.0.0.1:$(cat "$name.port")"
}
kill_when_held() {
    local i
    for i in $(seq 1200); do
        [ -s "$1.held" ] && break
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.05
    done
    [ -s "$1.held" ] || return 1
    kill -KILL "$2"
}
