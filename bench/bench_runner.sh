#!/usr/bin/env bash
# Runner benchmarks (numbers, never pass/fail; see BENCHMARKS.md "## Runner").
#
#   bench/bench_runner.sh [DIPMAP] [LATENCY_MS]
#
# 1. Efficiency: against `dipmap serve-sim --latency-ms L` at concurrency C in {1,16,64} with
#    8k and 32k prompts, C questions x 11 depths (0:100:10) = 11 x C trials, i.e. 11 full
#    windows, as a real matrix is laid out; ideal wall = trials x L / C = 11 L. Efficiency = ideal / measured wall of the whole `dipmap run` process
#    (startup, preflight and store included). "mean in flight" is the runner's time-weighted
#    mean of requests in flight (printed by `dipmap run`): near C means the harness kept the
#    window full and the server set the pace.
# 2. Harness CPU (user+sys of the `dipmap run` process alone) per 1000 trials at 8k/32k/64k,
#    at latency 0 (the simulator's CPU is not counted).
# 3. Peak RSS of `dipmap run` at ~2,000 and ~11,000 trials (must not grow with the matrix).
# The simulator runs on the same machine and tokenizes every prompt; on a small shared VM it
# competes with the harness for CPU, so low efficiency at 32k and C=64 can be the server's.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/dipmap}
lat=${2:-1000}
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-runner.XXXXXX")
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

start_sim() { # ARGS... (golden.jsonl = the largest set; smaller sets are its prefixes)
    stop_sim
    rm -f sim.out
    "$bin" serve-sim --port 0 --dataset g_all.jsonl "$@" >sim.out 2>sim.err &
    sim_pid=$!
    for _ in $(seq 200); do [ -s sim.out ] && break; sleep 0.05; done
    url="http://127.0.0.1:$(head -n1 sim.out)"
}

# run_timed GOLDEN ARGS...: prints "wall user sys maxrss_kb" of the run process
run_timed() {
    local golden=$1
    shift
    rm -f b.db b.db-wal b.db-shm
    /usr/bin/time -f "%e %U %S %M" -o time.txt "$bin" run --endpoint "$url" --model dipmap-sim \
        --dataset "$golden" --haystack hay.jsonl --template "$repo/prompts/kv.txt" --scorer kv \
        --progress none --db b.db --run bench --max-tokens 32 "$@" >run.out 2>run.err ||
        { echo "run failed:" >&2; tail -5 run.err >&2; }
    cat time.txt
}

gen() { # N OUT
    "$bin" gen kv --n "$1" --seed 1 --out "$2" >/dev/null || exit 1
}

"$bin" gen kv --n 1000 --seed 1 --out g_all.jsonl --haystack-out hay.jsonl --haystack-size 3500 \
    >/dev/null || exit 1
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start," \
    "$(date -u +%Y-%m-%dT%H:%MZ)"

echo
echo "### Efficiency (serve-sim --latency-ms $lat, C questions x 11 depths)"
echo
echo "| C | length | trials | ideal s | wall s | efficiency | mean in flight | harness CPU s |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
start_sim --latency-ms "$lat"
for len in 8k 32k; do
    for c in 1 16 64; do
        n=$((11 * c))
        gen "$c" g.jsonl
        read -r wall user sys _ < <(run_timed g.jsonl --lengths "$len" --depths 0:100:10 --concurrency "$c")
        ideal=$(python3 -c "print('%.1f' % ($n * $lat / 1000.0 / $c))")
        mif=$(sed -n 's/^in flight: mean \([0-9.]*\) .*/\1/p' run.out)
        python3 -c "print('| %d | %s | %d | %s | %.1f | %.1f%% | %s | %.2f |' % ($c, '$len', $n, '$ideal', $wall, 100.0 * $ideal / $wall, '${mif:-?}', $user + $sys))"
    done
done

echo
echo "### Harness CPU per 1000 trials (latency 0, C=16)"
echo
echo "| length | trials | harness CPU s | CPU ms per trial | CPU s per 1000 trials | wall s |"
echo "|---:|---:|---:|---:|---:|---:|"
start_sim --latency-ms 0
for len in 8k 32k 64k; do
    case $len in 8k) q=40 ;; 32k) q=20 ;; *) q=10 ;; esac
    gen "$q" g.jsonl
    n=$((q * 11))
    read -r wall user sys _ < <(run_timed g.jsonl --lengths "$len" --depths 0:100:10 --concurrency 16)
    python3 -c "c=$user+$sys; print('| %s | %d | %.2f | %.2f | %.1f | %.1f |' % ('$len', $n, c, 1000.0*c/$n, 1000.0*c/$n, $wall))"
done

echo
echo "### Peak RSS vs matrix size (1k prompts, latency 0, C=64)"
echo
echo "| trials | peak RSS MB | wall s |"
echo "|---:|---:|---:|"
gen 200 g.jsonl
for reps in 1 5; do
    n=$((200 * 11 * reps))
    read -r wall _ _ rss < <(run_timed g.jsonl --lengths 1k --depths 0:100:10 --repeats "$reps" --concurrency 64)
    python3 -c "print('| %d | %.1f | %.1f |' % ($n, $rss / 1024.0, $wall))"
done
