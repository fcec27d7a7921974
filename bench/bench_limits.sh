#!/usr/bin/env bash
# Physical limits (part of `make bench`; numbers, never failures): what the
# stages are measured against. 1. the PCRE2 JIT pre-tokenizer split alone
# (bench/bench_split.c, cl100k_base pattern) on the shared corpus -- the
# tokenizer's ceiling; 2. TCP loopback bandwidth (1 GiB through 127.0.0.1,
# Python sockets, 1 MiB writes) -- the ceiling for sending prompts.
#
# usage: bench/bench_limits.sh [BUILD_DIR]
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cd "$repo" || exit 1
make -s BUILD="$build" "$build/bench/bench_split" >/dev/null ||
    { echo "limits: skipped (cannot build bench_split)"; exit 0; }
echo "### Limit: PCRE2 JIT split alone (cl100k_base pattern, CPU time, best of 5)"
echo
echo "| corpus | split MB/s | pieces |"
echo "|---|---:|---:|"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-limits.XXXXXX")
for f in en nonen code; do gzip -dc "tests/data/tokenizer/corpus/$f.txt.gz" >"$tmp/$f.txt"; done
"$build/bench/bench_split" "$tmp"/{en,nonen,code}.txt |
    awk '{ printf "| %s | %s | %s |\n", $1, $2, $5 }'
rm -rf "$tmp"
echo
echo "### Limit: TCP loopback (1 GiB, 1 MiB writes, wall)"
echo
echo "| path | MB/s |"
echo "|---|---:|"
python3 - <<'PY'
import socket, threading, time
N, buf = 1 << 30, b"x" * (1 << 20)
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
def sink():
    c, _ = srv.accept()
    got = 0
    while got < N:
        d = c.recv(1 << 20)
        if not d:
            break
        got += len(d)
    c.close()
t = threading.Thread(target=sink)
t.start()
s = socket.create_connection(srv.getsockname())
t0 = time.time()
for _ in range(N // len(buf)):
    s.sendall(buf)
s.close()
t.join()
print("| 127.0.0.1 | %.0f |" % (N / (time.time() - t0) / 1e6))
PY
