# The client writes its request bodies with the one JSON string escaper (escape.c
# escape_json_n, as export): bytes that are not UTF-8 go out as U+FFFD, so the body is
# JSON a strict server parser accepts. client.c had its own escaper that copied such bytes
# raw, and serve-sim now refuses a body that is not UTF-8 as llama.cpp's and Python's
# parsers do. Here: serve-sim's 400 names the byte; `tokenize --tokenizer server` of a file
# with invalid bytes is counted, as the same text with U+FFFD in their place.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
printf 'caf\xe9 au lait \xff\xfe and more\n' >bad.txt
printf 'caf\xef\xbf\xbd au lait \xef\xbf\xbd\xef\xbf\xbd and more\n' >replaced.txt
start_sim sim
pylib - "$SIM_PORT" <<'PY' || fail "serve-sim accepted or misreported a body that is not UTF-8"
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
c.request("POST", "/tokenize", body=b'{"prompt":"a\xff"}', headers={"Content-Type": "application/json"})
r = c.getresponse()
body = json.loads(r.read())
assert r.status == 400, r.status
assert body["error"]["message"] == "the request body is not valid UTF-8 (byte 13)", body
PY
expect_code 0 "$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" replaced.txt
want=$(cat out)
expect_code 0 "$DIPMAP" tokenize --tokenizer server --endpoint "$SIM_URL/v1" \
    --model dipmap-sim bad.txt
[ "$(cat out)" = "$want" ] || fail "server count of bad.txt: $(cat out), want $want (replaced.txt)"
stop_sim "$SIM_PID"
