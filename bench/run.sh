#!/usr/bin/env bash
# `make bench`: runs every per-stage benchmark BENCH_REPEATS times (default 3)
# on 127.0.0.1, keeps their raw output, and collects every figure with its
# min/median/max into bench/results.json (git-ignored; commit, machine, date)
# via bench/aggregate.py, then prints one table. Numbers, never failures: a
# stage that fails or cannot run (no node, offline npm) is noted and skipped.
#
# usage: bench/run.sh DIPMAP_BINARY [STAGE...]
#   stages (default all): limits tokenizer prompt million-tokens store runner scale peer cache cache-llama
#   (cache-llama needs LLAMA_SERVER, else it reports itself skipped)
#   BENCH_REPEATS=N   repeats per stage (default 3)
#   BENCH_CACHE_REPEATS=N  repeats of the cache stage (default 1: 30 minutes on 2 cores; its
#                     computed tokens are the same every time)
#   BENCH_QUICK=1     small sizes (a smoke run of the whole suite in a few minutes)
#   BENCH_OUT=FILE    results file (default bench/results.json)
# See BENCHMARKS.md for what each stage measures and the figures of record.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: bench/run.sh DIPMAP_BINARY [STAGE...]}
shift
# the build directory the binary came from (./dipmap is the default "build")
case "$bin" in
"$repo/dipmap" | ./dipmap | dipmap) build=build bin=$repo/dipmap ;;
*) build=$(basename "$(dirname "$bin")") ;;
esac
repeats=${BENCH_REPEATS:-3}
quick=${BENCH_QUICK:-0}
out=${BENCH_OUT:-$repo/bench/results.json}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(limits tokenizer prompt million-tokens store runner scale peer cache cache-llama)
cd "$repo" || exit 1

if [ "$quick" = 1 ]; then
    prompt_q=10 mtok_q=1 store_n=20000 runner_lat=500 runner_rounds=2 scale_q=20 peer_len=1k
    cache_len=8k cache_c=8
    export BENCH_CACHE_QUESTIONS=${BENCH_CACHE_QUESTIONS:-100}
else
    prompt_q=100 mtok_q=4 store_n=100000 runner_lat=2000 runner_rounds=5 scale_q=182 peer_len=8k
    cache_len=8k,32k cache_c=8,64
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$repo/bench/results.log
: >"$log"

stage_cmd() { # STAGE -> the per-stage benchmark's command line
    case $1 in
    limits) echo "bench/bench_limits.sh $build" ;;
    tokenizer) echo "bench/bench_tokenizer.sh $build/bench/bench_tokenizer" ;;
    prompt) echo "bench/bench_prompt.sh $build/bench/bench_prompt $prompt_q" ;;
    million-tokens) echo "bench/bench_million_tokens.sh $bin $mtok_q" ;;
    store) echo "bench/bench_store.sh $build $store_n" ;;
    runner) echo "bench/bench_runner.sh $bin $runner_lat $runner_rounds" ;;
    scale) echo "bench/bench_scale.sh $bin $scale_q 8k 16" ;;
    peer) echo "bench/peer_promptfoo.sh $bin $peer_len 16" ;;
    cache) echo "bench/bench_cache.sh $bin $cache_len $cache_c" ;;
    cache-llama) echo "bench/bench_cache_llama.sh $bin" ;;
    *) return 1 ;;
    esac
}

for s in "${stages[@]}"; do
    stage_cmd "$s" >/dev/null || { echo "bench: unknown stage '$s'" >&2; exit 2; }
done
case " ${stages[*]} " in
*" tokenizer "* | *" prompt "*)
    make -s BUILD="$build" "$build/bench/bench_tokenizer" "$build/bench/bench_prompt" ||
        { echo "bench: cannot build the benchmark programs" >&2; exit 2; } ;;
esac

load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "dipmap bench: stages ${stages[*]}, $repeats repeats$([ "$quick" = 1 ] && echo ", quick sizes")," \
    "$(nproc) cores, load average $load0; raw output in bench/results.log"
all_stages=("${stages[@]}")
drop_stage() { # STAGE: not run again
    local keep=() x
    for x in "${stages[@]}"; do [ "$x" = "$1" ] || keep+=("$x"); done
    stages=("${keep[@]}")
}
for r in $(seq 1 "$repeats"); do
    for s in "${stages[@]}"; do
        cmd=$(stage_cmd "$s")
        t0=$(date +%s)
        echo "==== $s, repeat $r/$repeats: $cmd" >>"$log"
        # shellcheck disable=SC2086
        $cmd >"$work/$s.$r.txt" 2>&1 || echo "bench: $s exited with $? (figures kept)" >>"$work/$s.$r.txt"
        cat "$work/$s.$r.txt" >>"$log"
        echo "bench: $s repeat $r/$repeats done in $(($(date +%s) - t0)) s"
        # a stage that skipped itself (no node, offline) is not repeated
        if grep -q "^[a-z-]*: skipped" "$work/$s.$r.txt"; then
            drop_stage "$s"
        fi
        if [ "$s" = cache ] && [ "$r" -ge "${BENCH_CACHE_REPEATS:-1}" ]; then
            drop_stage cache
        fi
    done
done

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit-dirty"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
mem=$(awk '/^MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
python3 - "$work/meta.json" <<EOF
import json, sys
json.dump({"commit": "$commit", "date": "$start", "finished": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
           "machine": {"uname": "$(uname -srm)", "cpu": "$cpu", "cores": $(nproc),
                       "memory_gb": $mem, "load_average_start": "$load0",
                       "load_average_end": "$(cut -d' ' -f1-3 /proc/loadavg)"},
           "quick": $([ "$quick" = 1 ] && echo True || echo False),
           "stages": "${all_stages[*]}".split()},
          open(sys.argv[1], "w"))
EOF
echo
python3 bench/aggregate.py "$work" "$out" "$repeats" "$work/meta.json" ||
    echo "bench: cannot aggregate the figures (raw output in bench/results.log)"
echo
echo "results: ${out#"$repo"/} (commit $commit, $(nproc) cores, $cpu, load average $load0 at start)"
