#!/usr/bin/env bash
# Scale benchmark (part of `make bench`; numbers, never failures): the same
# `dipmap run` against `dipmap serve-sim --latency-ms 0` at 8k tokens with a
# matrix of ~2,000 and of ~20,000 trials (Q questions x 11 depths x 1 and x 10
# repeats), printing the harness's peak RSS (must stay flat: nothing per trial
# is kept in memory), wall, harness CPU and, separately, the simulator's CPU.
# A `--dry-run` of the 20,000-trial matrix shows the plan alone.
#
# usage: bench/bench_scale.sh DIPMAP [QUESTIONS] [LENGTH] [CONCURRENCY]
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: bench/bench_scale.sh DIPMAP [QUESTIONS] [LENGTH] [CONCURRENCY]}
nq=${2:-182}
len=${3:-8k}
conc=${4:-16}
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-scale.XXXXXX")
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

gzip -dc "$repo/datasets/nq-open.jsonl.gz" | head -n "$nq" >golden.jsonl
hay=$repo/datasets/nq-haystack.jsonl.gz
hz=$(getconf CLK_TCK)

echo "### Scale: $nq questions x 11 depths at $len, concurrency $conc, serve-sim latency 0"
echo
echo "| trials | peak RSS MB | wall s | harness CPU s | harness CPU s per 1000 trials | simulator CPU s |"
echo "|---:|---:|---:|---:|---:|---:|"
for reps in 1 10; do
    rm -f sim.out s.db s.db-wal s.db-shm
    "$bin" serve-sim --port 0 --dataset golden.jsonl --latency-ms 0 >sim.out 2>sim.err &
    sim_pid=$!
    for _ in $(seq 200); do [ -s sim.out ] && break; sleep 0.05; done
    url="http://127.0.0.1:$(head -n1 sim.out)"
    /usr/bin/time -f "%e %U %S %M" -o time.txt "$bin" run --endpoint "$url" --model dipmap-sim \
        --dataset golden.jsonl --haystack "$hay" --lengths "$len" --depths 0:100:10 \
        --repeats "$reps" --concurrency "$conc" --max-tokens 32 --progress none --db s.db \
        --run scale >run.out 2>run.err || { echo "scale: run failed" >&2; tail -n 3 run.err >&2; }
    read -r u s < <(awk '{print $14, $15}' "/proc/$sim_pid/stat")
    stop_sim
    read -r wall user sys rss < <(tail -n 1 time.txt)
    n=$(sed -n 's/^trials: \([0-9]*\) of.*/\1/p' run.out)
    python3 -c "
n, cpu = ${n:-0}, $user + $sys
print('| %d | %.1f | %.1f | %.2f | %.2f | %.2f |' % (n, $rss / 1024.0, $wall, cpu, 1000.0 * cpu / max(n, 1), ($u + $s) / $hz))"
done
/usr/bin/time -f "%e %U %S %M" -o time.txt "$bin" run --dry-run --model dipmap-sim \
    --dataset golden.jsonl --haystack "$hay" --lengths "$len" --depths 0:100:10 --repeats 10 \
    --db d.db --run dry >dry.out 2>dry.err
read -r wall _ _ rss < <(tail -n 1 time.txt)
echo
echo "| dry-run trials | peak RSS MB | wall s |"
echo "|---:|---:|---:|"
python3 -c "print('| %d | %.1f | %.2f |' % ($nq * 110, $rss / 1024.0, $wall))"
