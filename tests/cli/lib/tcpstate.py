#!/usr/bin/env python3
"""Wait for a state of a local server's TCP connections, read from /proc/net/tcp{,6}.

usage: tcpstate.py read PORT   a connection to PORT is established and the server has read
                               all it received (receive queue 0)
       tcpstate.py idle PORT   no connection to PORT is open any more (only the listening
                               socket and TIME_WAIT remain): every request the server took
                               has been answered or dropped

Polls every 20 ms; exits 0 once the state holds, 1 after 60 s.
"""
import sys
import time

ESTABLISHED, TIME_WAIT, LISTEN = "01", "06", "0A"


def server_sockets(port):
    """(state, rx_queue) of every socket whose local port is PORT."""
    out = []
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(path).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) != port:
                continue
            rx = int(f[4].split(":")[1], 16)
            out.append((f[3], rx))
    return out


def holds(mode, port):
    socks = [s for s in server_sockets(port) if s[0] not in (LISTEN, TIME_WAIT)]
    if mode == "read":
        return any(state == ESTABLISHED and rx == 0 for state, rx in socks)
    return not socks


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode not in ("read", "idle"):
        sys.exit("tcpstate.py: mode is read or idle")
    for _ in range(3000):
        if holds(mode, port):
            return 0
        time.sleep(0.02)
    return 1


if __name__ == "__main__":
    sys.exit(main())
