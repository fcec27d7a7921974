# serve-sim serves a million-token window: `--ctx 1048576` (and `--ctx 1m`) is taken and
# advertised (/v1/models max_model_len, /props n_ctx, /tokenize max_model_len); a request of
# about a million tokens is answered correctly with the gold where it was put, counted exactly
# (usage.prompt_tokens = /tokenize's count); one token over the window is OpenAI's 400
# context_length_exceeded. The server's peak memory (VmHWM) after the 1M-token /tokenize and
# chat requests stays under 96 MB: no per-token structure of the whole window is built per
# request. Before, /tokenize built its ids as a JSON tree of a node per token: 129 MB
# (53 MB since, of which 19 MB at start; the chat request alone peaks at 40 MB). A Batch API
# input file of 70 MB (a few hundred million-token lines' worth is what run --batch writes, up
# to 200 MB a file) is taken: bodies were capped at 64 MiB (413).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 5)'
start_sim small --dataset ds.jsonl --ctx 1m
stop_sim "$SIM_PID"
start_sim sim --dataset ds.jsonl --model flat:edge=1,dip=0 --ctx 1048576
[ -r "/proc/$SIM_PID/status" ] || fail "no /proc/$SIM_PID/status"
grep VmHWM "/proc/$SIM_PID/status" >hwm.start

pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
m = sc.get(port, "/v1/models").json["data"][0]
check(m["max_model_len"] == 1048576, "models: %r" % m)
check(sc.get(port, "/props").json["default_generation_settings"]["n_ctx"] == 1048576, "props n_ctx")
p = sc.prompt_at(2, 940000, 0.5, sc.rng(7))
t = sc.post(port, "/tokenize", {"prompt": p}, timeout=600)
check(t.status == 200 and t.json["max_model_len"] == 1048576, "tokenize: %r" % t)
n = t.json["count"]
check(1000000 <= n <= 1048576 - 64 and len(t.json["tokens"]) == n, "a million-token prompt: %d tokens" % n)
r = sc.chat(port, p, model="flat", max_tokens=20, timeout=600)
check(r.status == 200 and sc.content_of(r) == "PASS-2-OK", "1M request: %r" % r)
check(r.json["usage"]["prompt_tokens"] == n, "usage %r vs /tokenize %d" % (r.json["usage"], n))
log = sc.read_log("sim.log")[-1]
check(abs(log["x"] - 0.5) < 0.01 and log["T"] == n, "gold in the middle of T=%d: %r" % (n, log))
# over the window by a token: the prompt plus a budget that reaches one past it
r = sc.chat(port, p, model="flat", max_tokens=1048576 - n + 1, timeout=600)
check(r.status == 400 and r.json["error"]["code"] == "context_length_exceeded"
      and "1048576" in r.json["error"]["message"], "over the window: %r" % r)
print("prompt: %d tokens, %d bytes" % (n, len(p)))
EOF
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$SIM_PID/status")
echo "serve-sim peak RSS after a 1M-token /tokenize and chat request: $hwm kB ($(cat hwm.start))"
# the bound is the plain build's: ASan's shadow memory and quarantine (make test-asan) or
# memcheck (VALGRIND=1) add their own
if [ -n "${VALGRIND:-}" ] || "$DIPMAP" --version | grep -q -e '-fsanitize'; then
    echo "peak RSS not bounded under a sanitizer or valgrind"
else
    [ "$hwm" -lt 96000 ] || fail "serve-sim's peak RSS is $hwm kB answering one 1M-token request"
fi
stop_sim "$SIM_PID"

start_sim big --dataset ds.jsonl
pylib - "$SIM_PORT" <<'EOF' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
data = b'{"custom_id":"c0","method":"POST","url":"/v1/completions","body":{"prompt":"' + b"x" * 70000000 + b'"}}\n'
form = (b'--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n'
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\n\r\n'
        + data + b'\r\n--B--\r\n')
r = sc.request(port, "POST", "/v1/files", raw=form, headers={"Content-Type": "multipart/form-data; boundary=B"},
               timeout=600)
check(r.status == 200 and r.json["bytes"] == len(data), "a 70 MB batch file: %r" % r)
EOF
stop_sim "$SIM_PID"
exit 0
