#!/usr/bin/env bash
# Store benchmark: builds bench/bench_store.c against the harness objects of a
# build directory and runs it in a temporary directory (numbers, never failures).
# usage: bench/bench_store.sh [BUILD_DIR] [TRIALS]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
n=${2:-100000}
cd "$repo"
make -s BUILD="$build" "$build/bench/bench_store" >/dev/null # the Makefile's sources and flags
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-store.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "## store ($(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo sqlite), $n trials, $tmp)"
"$build/bench/bench_store" "$tmp" "$n"
