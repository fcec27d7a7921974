#!/usr/bin/env bash
# `make bench`: every benchmark in bench/, one after the other. Numbers, never
# failures (a benchmark that cannot run prints why and the next one runs);
# BENCHMARKS.md says what each measures and records the figures.
#
# usage: bench/run.sh DIPMAP_BINARY
set -u
bin=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
# the build directory the binary came from (./dipmap is the default "build")
case "$bin" in
"$repo/dipmap") build=build ;;
*) build=$(basename "$(dirname "$bin")") ;;
esac
cd "$repo" || exit 1
for target in bench-tokenizer bench-prompt; do
    echo "== make $target"
    make --no-print-directory BUILD="$build" "$target" || echo "($target failed)"
done
for script in bench/bench_store.sh bench/bench_runner.sh; do
    [ -x "$script" ] || continue
    echo "== $script"
    case "$script" in
    *store*) "$script" "$build" || echo "($script failed)" ;;
    *) "$script" "$bin" || echo "($script failed)" ;;
    esac
done
exit 0
