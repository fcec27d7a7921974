# dipmap tokenize --tokenizer server counts with the endpoint's own /tokenize
# over real HTTP on 127.0.0.1: the vLLM shape ({"model","prompt"} -> {"count"}),
# the llama.cpp shape ({"content"} -> {"tokens"}), and exit 2 with a clear
# message when the server has no /tokenize endpoint.
. "$TESTS/cli/lib/lib.sh"
cat >srv.py <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
mode = sys.argv[2]  # argv[1]: the file the port is written to
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path != "/tokenize" or mode == "none":
            self.send_response(404); self.end_headers(); self.wfile.write(b"not found"); return
        if mode == "vllm" and "prompt" in body:
            # stand-in tokenizer of the server: one token per whitespace-separated word, +100
            out = {"count": len(body["prompt"].split()) + 100, "max_model_len": 4096, "tokens": []}
        elif mode == "llamacpp" and "content" in body:
            out = {"tokens": list(range(len(body["content"].split()) + 200))}
        elif mode == "llamacpp":
            out = {"tokens": []}
        else:
            self.send_response(400); self.end_headers(); self.wfile.write(b'{"error":"bad"}'); return
        data = json.dumps(out).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
srv = HTTPServer(("127.0.0.1", 0), H)  # port 0: listening before its port is written
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
PY
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT
start() { # start MODE -> sets PORT
    python3 srv.py "$1.port" "$1" & pids+=($!)
    wait_for_file "$1.port" "$!"
    PORT=$(cat "$1.port")
}
printf 'one two three four' >in.txt
start vllm
expect_code 0 "$DIPMAP" tokenize --tokenizer server --endpoint "http://127.0.0.1:$PORT/v1" --model m in.txt
[ "$(cat out)" = 104 ] || fail "vllm shape: $(cat out)"
start llamacpp
expect_code 0 "$DIPMAP" tokenize --tokenizer server --endpoint "http://127.0.0.1:$PORT" in.txt
[ "$(cat out)" = 204 ] || fail "llama.cpp shape: $(cat out)"
start none
expect_code 2 "$DIPMAP" tokenize --tokenizer server --endpoint "http://127.0.0.1:$PORT" in.txt
assert_contains err "no /tokenize endpoint"
# --ids needs a local tokenizer; server needs --endpoint
expect_code 2 "$DIPMAP" tokenize --tokenizer server --endpoint "http://127.0.0.1:$PORT" --ids in.txt
expect_code 2 "$DIPMAP" tokenize --tokenizer server in.txt
assert_contains err "needs --endpoint"
exit 0
