# serve-sim shuts down cleanly: SIGTERM and SIGINT exit 0, also with a delayed request in
# flight (it is dropped, not waited for); bad options exit 2 naming the problem; a port that
# is taken exits 3; the default tokenizer name and --host work.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

start_sim idle --model m
stop_sim "$SIM_PID"
assert_contains idle.err "stopped (SIGTERM)"

start_sim int --model m
kill -INT "$SIM_PID"
wait "$SIM_PID" || fail "SIGINT: exit $?"
assert_contains int.err "stopped (SIGINT)"

# a request delayed by --latency-ms 30000 does not hold up shutdown
start_sim busy --model m --latency-ms 30000
port=$SIM_PORT
pylib - "$port" >busy.client 2>&1 <<'EOF' &
import sys, json, http.client
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=60)
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hello"}]})
conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
open("sent", "w").write("sent\n")
try:
    print("status=%s" % conn.getresponse().status)
except (http.client.RemoteDisconnected, ConnectionResetError):
    print("error=drop")
EOF
client=$!
wait_for_file sent "$client"
wait_port_read "$port" # the server has read the request: it is in flight
stop_sim "$SIM_PID"
wait "$client"
# dropped, not answered: the shutdown did not wait the 30 s for it
assert_contains busy.client "error=drop"

# the port is taken -> exit 3
start_sim holder --model m
expect_code 3 "$DIPMAP" serve-sim --port "$SIM_PORT" --tokenizer "$SIM_TOKENIZER"
assert_contains err "cannot listen on 127.0.0.1:$SIM_PORT"
stop_sim "$SIM_PID"

# usage errors -> exit 2, nothing on stdout (no port line)
expect_code 2 "$DIPMAP" serve-sim --port 0 --faults 404=0.1
assert_contains err "unknown kind '404'"
[ -s out ] && fail "a port was printed for a failed start"
expect_code 2 "$DIPMAP" serve-sim --port 0 --faults 429=0.6,500=0.6
assert_contains err "add up to"
expect_code 2 "$DIPMAP" serve-sim --port 0 --model a:edge=2
assert_contains err "edge must be a number in [0,1]"
expect_code 2 "$DIPMAP" serve-sim --port 0 --model a --model a:dip=0.1
assert_contains err "model 'a' given twice"
expect_code 2 "$DIPMAP" serve-sim --port 70000
expect_code 2 "$DIPMAP" serve-sim --port 0 --reasoning 1.5
expect_code 2 "$DIPMAP" serve-sim --port 0 --ctx 12x
expect_code 2 "$DIPMAP" serve-sim --port 0 --tokenizer no-such-tokenizer
expect_code 2 "$DIPMAP" serve-sim --port 0 --tokenizer "$SIM_TOKENIZER" --dataset missing.jsonl
assert_contains err "missing.jsonl"
expect_code 2 "$DIPMAP" serve-sim extra-arg
expect_code 0 "$DIPMAP" serve-sim --help
assert_contains out "--faults"

# --host: bind to an explicit address
start_sim host --model m --host 127.0.0.1
pylib -c "import simclient as sc; sc.check(sc.get($SIM_PORT, '/health').status == 200, 'health')" || exit 1
stop_sim "$SIM_PID"
exit 0
