#!/usr/bin/env bash
# Store benchmark: builds bench/bench_store.c against the harness objects of a
# build directory and runs it in a temporary directory (numbers, never failures).
# usage: bench/bench_store.sh [BUILD_DIR] [TRIALS]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
n=${2:-100000}
cd "$repo"
make -s BUILD="$build" build >/dev/null
objs=$(ls "$build"/harness/*.o "$build"/harness/*/*.o | grep -v -e '/main\.o$' -e '/cmd/[^/]*\.o$')
cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -Iharness"
${CC:-gcc} $cflags -o "$build/bench_store" bench/bench_store.c $objs \
    $(pkg-config --libs libcurl sqlite3 libpcre2-8 libcjson libmicrohttpd zlib libcrypto) -lm -lpthread
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-store.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "## store ($(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo sqlite), $n trials, $tmp)"
"$build/bench_store" "$tmp" "$n"
