# Start tests/servers/fake_openai.py from a CLI test (sourced; needs tests/cli/lib/lib.sh).
# The server is killed when the test exits (added to SIM_PIDS when tests/cli/lib/sim-lib.sh
# is sourced, otherwise by its own EXIT trap).

# start_fake NAME SCRIPT_JSON: serve SCRIPT_JSON on 127.0.0.1 (port 0); logs every request to
# NAME.log; sets FAKE_URL and FAKE_PID.
start_fake() {
    local name=$1 i
    printf '%s\n' "$2" >"$name.script.json"
    rm -f "$name.port"
    python3 "$TESTS/servers/fake_openai.py" --script "$name.script.json" --port-file "$name.port" \
        --log "$name.log" 2>"$name.err" &
    FAKE_PID=$!
    if declare -p SIM_PIDS >/dev/null 2>&1; then
        SIM_PIDS+=("$FAKE_PID")
    else
        trap 'kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null' EXIT
    fi
    for i in $(seq 400); do
        [ -s "$name.port" ] && break
        kill -0 "$FAKE_PID" 2>/dev/null || { cat "$name.err" >&2; fail "fake server did not start"; }
        sleep 0.05
    done
    [ -s "$name.port" ] || fail "fake server printed no port"
    FAKE_URL="http://127.0.0.1:$(cat "$name.port")"
}

# fake_script NAME SCRIPT_JSON: replace the running server's script, reset it, empty NAME.log
fake_script() {
    curl -sf -X POST -H 'Content-Type: application/json' --data-binary "$2" \
        "$FAKE_URL/__script" >/dev/null || fail "could not set the fake server's script"
}

# fake_count NAME PATH: requests logged for PATH
fake_count() {
    python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["path"].split("?")[0] == sys.argv[2]))' "$1.log" "$2"
}

# A /v1/models answer listing the given model ids.
models_json() {
    local ids="" m
    for m in "$@"; do ids="$ids${ids:+,}{\"id\":\"$m\",\"object\":\"model\"}"; done
    printf '{"json":{"object":"list","data":[%s]}}' "$ids"
}

# A chat answer step with the given content.
chat_ok() {
    printf '{"json":{"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"%s"},"finish_reason":"stop"}]}}' "$1"
}
