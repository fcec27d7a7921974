#!/usr/bin/env python3
"""Scripted HTTP server for the client tests (standard library only).

usage: fake_openai.py --script FILE --port-file FILE [--log FILE]

Binds 127.0.0.1 port 0, writes the port to --port-file once listening, and
answers every request from the script: a JSON object mapping a path (or
"*") to a list of steps, served in order; the last step repeats. A step is

  {"status": 200, "headers": {"Retry-After": "1"}, "json": {...}}   JSON body
  {"status": 200, "body": "<html>..."}                              raw body
  {"body_size": 100000}                                             big body
  {"chunked": true, ...}                                            chunked, no Content-Length
  {"delay": 0.5, ...}                                               sleep first
  {"drop": true}                                                    close, no answer
  {"hang": true}                                                    never answer
  {"echo_tokens": true}                                             /tokenize, vLLM shape: count words
  {"llama_tokenize": true}                                          /tokenize, llama.cpp: {"content"} only
  {"retry_after_date": 2, ...}                                      Retry-After: HTTP-date now+2 s
  {"echo_prompt_tokens": true}                                      usage.prompt_tokens = words sent

POST /__script with a new script replaces it, resets the step counters and
empties the log (so one server process serves many tests).

Every request is appended to --log as one JSON line: monotonic time, method,
path, request headers, body (parsed when JSON), and the client's port (to
count connections).
"""
import argparse
import email.utils
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNTERS = {}
SCRIPT = {}
LOG = None


def next_step(path):
    key = path if path in SCRIPT else "*"
    steps = SCRIPT.get(key) or [{"status": 404, "json": {"error": {"message": "no script for " + path}}}]
    with LOCK:
        i = COUNTERS.get(key, 0)
        COUNTERS[key] = i + 1
    return steps[min(i, len(steps) - 1)]


def words(body):
    if not isinstance(body, dict):
        return 0
    text = body.get("prompt") or body.get("content") or ""
    if "messages" in body:
        text = " ".join(m.get("content", "") for m in body["messages"])
    return len(text.split())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?")[0]
        if path == "/__script" and self.command == "POST":
            # control: replace the script, reset the counters, empty the log
            global SCRIPT
            with LOCK:
                SCRIPT = body if isinstance(body, dict) else {}
                COUNTERS.clear()
                open(LOG, "w").close()
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        entry = {"t": time.monotonic(), "method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()},
                 "body": body, "port": self.client_address[1]}
        with LOCK:
            with open(LOG, "a") as f:
                f.write(json.dumps(entry) + "\n")
        step = next_step(path)
        if step.get("delay"):
            time.sleep(step["delay"])
        if step.get("hang"):
            time.sleep(3600)
            return
        if step.get("drop"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        status = step.get("status", 200)
        if "json" in step:
            obj = step["json"]
            if step.get("echo_prompt_tokens") and isinstance(obj, dict):
                obj = dict(obj)
                obj["usage"] = dict(obj.get("usage", {}), prompt_tokens=words(body))
            data = json.dumps(obj).encode()
        elif step.get("llama_tokenize"):
            content = body.get("content", "") if isinstance(body, dict) else ""
            data = json.dumps({"tokens": list(range(len(content.split())))}).encode()
        elif step.get("echo_tokens"):
            n = words(body)
            if isinstance(body, dict) and "prompt" in body:
                data = json.dumps({"count": n, "max_model_len": 4096, "tokens": list(range(n))}).encode()
            elif isinstance(body, dict) and "content" in body:
                data = json.dumps({"tokens": list(range(n))}).encode()
            else:
                status, data = 400, b'{"error":{"message":"bad tokenize request","code":400}}'
        elif "body_size" in step:
            data = b"x" * step["body_size"]
        else:
            data = step.get("body", "").encode()
        if step.get("chunked"):
            # no Content-Length: the client cannot know the size up front
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for i in range(0, len(data), 16384):
                    part = data[i:i + 16384]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            return
        self.send_response(status)
        headers = {"Content-Type": "application/json"}
        headers.update(step.get("headers", {}))
        if "retry_after_date" in step:
            headers["Retry-After"] = email.utils.formatdate(time.time() + step["retry_after_date"],
                                                            usegmt=True)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass

    do_GET = handle_any
    do_POST = handle_any


class Server(ThreadingHTTPServer):
    request_queue_size = 128  # listen backlog: many clients connect at once
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # clients that hang up (timeouts, size caps) are expected


def main():
    global SCRIPT, LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", default="/dev/null")
    a = ap.parse_args()
    with open(a.script) as f:
        SCRIPT = json.load(f)
    LOG = a.log
    srv = Server(("127.0.0.1", 0), Handler)
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
