#!/usr/bin/env python3
"""HTTP front for serve-sim that holds one request (standard library only), so a test can
kill a client at a known point of a protocol from outside (tests/cli/876, 878).

usage: hold_proxy.py --backend PORT --port-file FILE --held-file FILE
                     --hold "METHOD PATH_PREFIX" [--nth N] [--after]

Binds 127.0.0.1 port 0, writes the port to --port-file once listening and forwards every
request to 127.0.0.1:BACKEND. The Nth request (default 1) matching METHOD and PATH_PREFIX is
held: never forwarded (or, with --after, forwarded and its answer never returned), and
--held-file is written once it is held. Every other request passes through.
"""
import argparse
import http.client
import http.server
import threading

args = None
lock = threading.Lock()
seen = 0
hang = threading.Event()


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def forward(self, body):
        c = http.client.HTTPConnection("127.0.0.1", args.backend, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "expect")}
        c.request(self.command, self.path, body=body, headers=headers)
        r = c.getresponse()
        return r.status, r.getheaders(), r.read()

    def handle_any(self):
        global seen
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        method, prefix = args.hold.split(" ", 1)
        hold = False
        if self.command == method and self.path.startswith(prefix):
            with lock:
                seen += 1
                hold = seen == args.nth
        answer = self.forward(body) if not hold or args.after else None
        if hold:
            with open(args.held_file, "w") as f:
                f.write(self.command + " " + self.path + "\n")
            hang.wait()  # the client is killed meanwhile; the test ends the proxy
            return
        status, headers, data = answer
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = handle_any


def main():
    global args
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--held-file", required=True)
    ap.add_argument("--hold", required=True)
    ap.add_argument("--nth", type=int, default=1)
    ap.add_argument("--after", action="store_true")
    args = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    srv.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os

    os.rename(args.port_file + ".tmp", args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
