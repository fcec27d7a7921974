#!/usr/bin/env python3
"""TLS front for a local plain-HTTP server (standard library only), for the
bad-input test of an invalid certificate (tests/cli/97x).

usage: tls_proxy.py --cert CERT --key KEY --backend PORT --port-file FILE

Binds 127.0.0.1 port 0, writes the port to --port-file once listening,
terminates TLS with the given (e.g. self-signed) certificate and copies
bytes both ways to 127.0.0.1:BACKEND. Handshake failures (a client that
rejects the certificate) are counted in the port file's sibling FILE.fail.
"""
import argparse
import socket
import ssl
import threading


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--backend", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    a = ap.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    fails = 0
    while True:
        c, _ = ls.accept()
        try:
            t = ctx.wrap_socket(c, server_side=True)
        except (ssl.SSLError, OSError):
            fails += 1
            with open(a.port_file + ".fail", "w") as f:
                f.write("%d\n" % fails)
            c.close()
            continue
        b = socket.create_connection(("127.0.0.1", a.backend))
        threading.Thread(target=pipe, args=(t, b), daemon=True).start()
        threading.Thread(target=pipe, args=(b, t), daemon=True).start()


if __name__ == "__main__":
    main()
