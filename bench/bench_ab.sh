#!/usr/bin/env bash
# Speed of two builds side by side (numbers, never failures): the tokenizer, the prompt
# builder, the runner (harness CPU per 1000 trials) and serve-sim (its CPU per 1000 trials),
# each measured for build A then build B, ROUNDS times in turn, so that a busy machine slows
# both alike; prints the median of each figure and the ratio B/A. For "speed unchanged"
# claims across a refactoring (BENCHMARKS.md "Speed across the architecture step").
#
#   bench/bench_ab.sh TREE_A TREE_B [ROUNDS]
#
# Each TREE is a built checkout: TREE/dipmap, TREE/build/bench/bench_tokenizer and
# TREE/build/bench/bench_prompt (make dipmap build/bench/bench_tokenizer build/bench/bench_prompt).
# The inputs are this checkout's: tests/data/tokenizer/corpus (tokenizer), the shipped NQ-open
# set and haystack (20 questions x 3 lengths x 11 depths: prompt builder; 40 questions x 11
# depths x 5 repeats at 8k against serve-sim --latency-ms 0, concurrency 16: runner, serve-sim).
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
A=${1:?usage: bench/bench_ab.sh TREE_A TREE_B [ROUNDS]}
B=${2:?usage: bench/bench_ab.sh TREE_A TREE_B [ROUNDS]}
rounds=${3:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-ab.XXXXXX")
sim_pid=
stop_sim() {
    [ -n "$sim_pid" ] && { kill "$sim_pid" 2>/dev/null; wait "$sim_pid" 2>/dev/null; }
    sim_pid=
}
trap 'stop_sim; rm -rf "$work"' EXIT
T=$repo/tests/data/tokenizer
for f in en nonen code; do gzip -dc "$T/corpus/$f.txt.gz" >"$work/$f.txt"; done
gzip -dc "$repo/datasets/nq-open.jsonl.gz" | head -n 40 >"$work/golden.jsonl"
hz=$(getconf CLK_TCK)
res=$work/results
: >"$res"

# tok TREE LABEL: MB/s of cl100k_base and of the Qwen3 tokenizer.json over the three corpora
tok() {
    local tk line name
    for tk in cl100k_base "$T/qwen3/tokenizer.json.gz"; do
        line=$("$1/build/bench/bench_tokenizer" "$tk" "$work/en.txt" "$work/nonen.txt" \
            "$work/code.txt") || continue
        name=$(sed -n 's/^tokenizer=\([^ ]*\).*/\1/p' <<<"$line")
        for f in en nonen code; do
            echo "$2 tokenizer_${name}_${f}_MBps $(sed -n "s/.* $f.txt=\([0-9.]*\).*/\1/p" <<<"$line")"
        done
    done >>"$res"
}
# prompt TREE LABEL: prompts per CPU second building 20 questions x 8k/32k/64k x 11 depths
# (cl100k_base; the tree's own qa template: an older build may not read a newer one)
prompt() {
    local out
    out=$(cd "$1" && "$1/build/bench/bench_prompt" datasets/nq-open.jsonl.gz \
        datasets/nq-haystack.jsonl.gz qa cl100k_base 20 2>&1)
    # rows: length, prompts, prompts/s (cpu), ...
    awk -v s="$2" '$1 ~ /^[0-9]+$/ && NF >= 8 { printf "%s prompt_builder_%s_prompts_per_cpu_s %s\n", s, $1, $3 }' \
        <<<"$out" >>"$res"
}
# runner TREE LABEL: harness CPU and serve-sim CPU per 1000 trials at latency 0
runner() {
    local url u s wall user sys rss n
    rm -f "$work"/sim.out "$work"/s.db*
    "$1/dipmap" serve-sim --port 0 --dataset "$work/golden.jsonl" --latency-ms 0 \
        >"$work/sim.out" 2>"$work/sim.err" &
    sim_pid=$!
    for _ in $(seq 200); do [ -s "$work/sim.out" ] && break; sleep 0.05; done
    url="http://127.0.0.1:$(head -n1 "$work/sim.out")"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$1/dipmap" run --endpoint "$url" \
        --model dipmap-sim --dataset "$work/golden.jsonl" \
        --haystack "$repo/datasets/nq-haystack.jsonl.gz" --lengths 8k --depths 0:100:10 \
        --repeats 5 --concurrency 16 --max-tokens 32 --progress none --db "$work/s.db" \
        --run ab >"$work/run.out" 2>"$work/run.err" || { tail -n 3 "$work/run.err" >&2; }
    read -r u s < <(awk '{print $14, $15}' "/proc/$sim_pid/stat")
    stop_sim
    read -r wall user sys rss < <(tail -n 1 "$work/time.txt")
    n=$(sed -n 's/^trials: \([0-9]*\) of.*/\1/p' "$work/run.out")
    python3 -c "
n = max(${n:-0}, 1)
print('$2 runner_cpu_s_per_1000_trials %.3f' % (1000.0 * ($user + $sys) / n))
print('$2 serve_sim_cpu_s_per_1000_trials %.3f' % (1000.0 * ($u + $s) / $hz / n))" >>"$res"
}

echo "== A: $(git -C "$A" log -1 --format='%h %s' 2>/dev/null | cut -c1-72)"
echo "== B: $(git -C "$B" log -1 --format='%h %s' 2>/dev/null | cut -c1-72)"
echo "== $rounds rounds, A then B each time; $(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
    for side in A B; do
        tree=$A
        [ $side = B ] && tree=$B
        tok "$tree" $side
        prompt "$tree" $side
        runner "$tree" $side
    done
done
echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$res" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    side, key, val = line.split()
    try:
        v.setdefault(key, {}).setdefault(side, []).append(float(val))
    except ValueError:
        pass
print("| figure | A (median) | B (median) | B / A |")
print("|---|---:|---:|---:|")
for key in v:
    a, b = statistics.median(v[key].get("A", [0])), statistics.median(v[key].get("B", [0]))
    print("| %s | %.3f | %.3f | %.3f |" % (key, a, b, b / a if a else float("nan")))
PY
