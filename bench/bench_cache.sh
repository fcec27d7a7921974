#!/usr/bin/env bash
# Prefix-cache schedule benchmark (numbers, never pass/fail; BENCHMARKS.md "Prefix-cache
# schedule").
#
#   bench/bench_cache.sh [DIPMAP] [LENGTHS] [CONCURRENCIES]
#
# Against `dipmap serve-sim` with a prefix cache and one shared prefill engine
# (--prefill-throughput R tokens/s, R = BENCH_CACHE_THROUGHPUT, default 400000: the
# requests' uncached tokens are prefilled one after another, as a GPU's compute is shared;
# --latency-ms 20 and --decode-ms-per-token 1 per request), per length L (default 8k, 32k)
# and concurrency C (default 8, 64): Q questions (BENCH_CACHE_QUESTIONS, default 400: a
# golden set of the size users run, 4,400 trials per schedule) x 11 depths (0:100:10),
# once with --schedule cache and once with --schedule shuffle, each on a fresh server (its
# cache empty) whose cache holds F x C prompts (--prefix-cache F*C*L, F =
# BENCH_CACHE_FACTOR, default 1: the KV pool a server needs to run C requests at once) or
# BENCH_CACHE_TOKENS tokens.
# Reported: prompt tokens the server computed (usage.prompt_tokens - cached_tokens, from
# the store), the wall time of the whole `dipmap run` process and its mean requests in
# flight, for both schedules and their ratio (cache / shuffle) from the same invocation.
# The ideal computed share for 11 depths is 6.5 / 11 = 0.59 of the prompt tokens sent.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/dipmap}
lengths=${2:-8k,32k}
concs=${3:-8,64}
cache_factor=${BENCH_CACHE_FACTOR:-1} # the cache holds this many prompts per request in flight
throughput=${BENCH_CACHE_THROUGHPUT:-400000}
questions=${BENCH_CACHE_QUESTIONS:-400}
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-cache.XXXXXX")
sim_pid=
stop_sim() {
    if [ -n "$sim_pid" ]; then
        kill "$sim_pid" 2>/dev/null
        wait "$sim_pid" 2>/dev/null
        sim_pid=
    fi
}
trap 'stop_sim; rm -rf "$work"' EXIT
cd "$work" || exit 1

tokens() { # 8k -> 8192
    case $1 in *k) echo $((${1%k} * 1024)) ;; *) echo "$1" ;; esac
}

start_sim() { # ARGS...
    stop_sim
    rm -f sim.out
    "$bin" serve-sim --port 0 --dataset golden.jsonl --latency-ms 20 \
        --prefill-throughput "$throughput" --decode-ms-per-token 1 "$@" >sim.out 2>sim.err &
    sim_pid=$!
    for _ in $(seq 200); do [ -s sim.out ] && break; sleep 0.05; done
    url="http://127.0.0.1:$(head -n1 sim.out)"
}

# run_one L C Q SCHEDULE: prints "wall computed sent inflight"
run_one() {
    local len=$1 c=$2 q=$3 sched=$4 t0 t1
    rm -f b.db b.db-wal b.db-shm
    head -n "$q" g_all.jsonl >golden.jsonl
    start_sim --prefix-cache "${BENCH_CACHE_TOKENS:-$((cache_factor * c * $(tokens "$len")))}"
    t0=$(date +%s.%N)
    "$bin" run --endpoint "$url" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl \
        --template "$repo/prompts/kv.txt" --scorer kv --progress none --db b.db --run bench \
        --max-tokens 32 --lengths "$len" --depths 0:100:10 --concurrency "$c" \
        --schedule "$sched" >run.out 2>run.err || { echo "run failed:" >&2; tail -5 run.err >&2; }
    t1=$(date +%s.%N)
    stop_sim
    echo "$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1")" \
        "$(sqlite3 b.db "select sum(usage_prompt_tokens - ifnull(cached_tokens, 0)) from trials")" \
        "$(sqlite3 b.db "select sum(usage_prompt_tokens) from trials")" \
        "$(sed -n 's/^in flight: mean \([0-9.]*\) .*/\1/p' run.out)"
}

"$bin" gen kv --n $((questions > 400 ? questions : 400)) --seed 1 --out g_all.jsonl --haystack-out hay.jsonl --haystack-size 3500 \
    >/dev/null || exit 1
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo
echo "### Prefix-cache schedule (serve-sim)"
echo
if [ -n "${BENCH_CACHE_TOKENS:-}" ]; then cache_desc="$BENCH_CACHE_TOKENS tokens"; else cache_desc="$cache_factor x C prompts of L tokens"; fi
echo "prefill throughput $throughput tokens/s; cache: $cache_desc"
echo
echo "| length | c | trials | prompt tokens | computed cache | computed shuffle | cache of sent | shuffle of sent | computed ratio | wall cache s | wall shuffle s | wall ratio | in flight cache | in flight shuffle |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for len in ${lengths//,/ }; do
    for c in ${concs//,/ }; do
        q=$questions
        read -r wc cc sc fc < <(run_one "$len" "$c" "$q" cache)
        read -r ws cs ss fs < <(run_one "$len" "$c" "$q" shuffle)
        python3 - "$len" "$c" "$((q * 11))" "$sc" "$wc" "$cc" "$ws" "$cs" "${fc:-0}" "${fs:-0}" <<'EOF'
import sys
l, c, n, sent, wc, cc, ws, cs, fc, fs = sys.argv[1:]
sent, wc, cc, ws, cs = float(sent), float(wc), float(cc), float(ws), float(cs)
print("| %s | %s | %s | %d | %d | %d | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %s | %s |"
      % (l, c, n, sent, cc, cs, cc / sent, cs / sent, cc / cs if cs else 0, wc, ws,
         wc / ws if ws else 0, fc, fs))
EOF
    done
done
