#!/usr/bin/env bash
# Instructions, not seconds: the same work done by two builds, each counted by valgrind's
# callgrind (instructions executed in user space, the program and its libraries). A count
# does not move with the machine's load, so "within 5 %" can be shown on a busy 2-core VM
# where CPU times scatter by +-15 % (BENCHMARKS.md "Speed across wave 4"). Numbers, never
# failures.
#
#   bench/bench_instr.sh TREE_A TREE_B
#
# Each TREE is a built checkout (TREE/dipmap). The work, this checkout's inputs:
#   tokenize   dipmap tokenize of 1 MB of English, 300 kB of other scripts and 300 kB of code
#              (tests/data/tokenizer/corpus) with cl100k_base and with Qwen3's tokenizer.json
#              (the tokenizer.json figures include loading the 7 MB file)
#   prompt     dipmap show-prompt of one NQ-open question at 8k and 32k (loading the haystack,
#              building, fitting and counting the prompt)
#   runner     dipmap run of 20 NQ-open questions x 11 depths at 8k (220 trials, concurrency 4)
#              against one serve-sim (this checkout's ./dipmap, not counted), new store each
# Prints one line per figure: name, A's and B's instructions and B/A. The runner's count
# moves by a few hundred thousand instructions between identical runs (the event loop's
# wake-ups); everything else repeats to the instruction or nearly.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
A=${1:?usage: bench/bench_instr.sh TREE_A TREE_B}
B=${2:?usage: bench/bench_instr.sh TREE_A TREE_B}
command -v valgrind >/dev/null || {
    echo "bench_instr: needs valgrind (apt-get install valgrind)" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-instr.XXXXXX")
sim_pid=
trap '[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null; rm -rf "$work"' EXIT
T=$repo/tests/data/tokenizer
gzip -dc "$T/corpus/en.txt.gz" | head -c 1000000 >"$work/en.txt"
gzip -dc "$T/corpus/nonen.txt.gz" | head -c 300000 >"$work/nonen.txt"
gzip -dc "$T/corpus/code.txt.gz" | head -c 300000 >"$work/code.txt"
gzip -dc "$repo/datasets/nq-open.jsonl.gz" | head -n 20 >"$work/golden.jsonl"
hay=$repo/datasets/nq-haystack.jsonl.gz

"$repo/dipmap" serve-sim --port 0 --dataset "$work/golden.jsonl" >"$work/sim.port" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 200); do [ -s "$work/sim.port" ] && break; sleep 0.05; done
port=$(head -n 1 "$work/sim.port")
[ -n "$port" ] || { echo "bench_instr: serve-sim did not start" >&2; exit 2; }

# ir TREE ARGS...: instructions of TREE/dipmap ARGS (stdout dropped)
ir() {
    local tree=$1
    shift
    rm -f "$work/cg.out" "$work/r.db"
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" -q "$tree/dipmap" "$@" \
        >/dev/null 2>"$work/err" || { echo "bench_instr: $tree/dipmap $*: $(tail -n 3 "$work/err")" >&2; echo 0; return; }
    sed -n 's/^totals: \([0-9]*\).*/\1/p' "$work/cg.out"
}

figure() {
    local name=$1 a b
    shift
    a=$(ir "$A" "$@")
    b=$(ir "$B" "$@")
    awk -v n="$name" -v a="$a" -v b="$b" \
        'BEGIN { printf "%-34s %14.0f %14.0f %7.4f\n", n, a, b, (a > 0 ? b / a : 0) }'
}

printf '%-34s %14s %14s %7s\n' figure "A instructions" "B instructions" "B/A"
for tk in cl100k_base "$T/qwen3/tokenizer.json.gz"; do
    name=$(basename "$tk" .gz)
    for f in en nonen code; do
        figure "tokenize $name $f" tokenize --tokenizer "$tk" "$work/$f.txt"
    done
done
for len in 8k 32k; do
    figure "prompt $len" show-prompt --dataset "$work/golden.jsonl" --haystack "$hay" \
        --template "$repo/prompts/qa.txt" --length "$len" --depth 50
done
figure "runner 220 trials 8k" run --endpoint "http://127.0.0.1:$port" --model dipmap-sim \
    --dataset "$work/golden.jsonl" --haystack "$hay" --template "$repo/prompts/qa.txt" \
    --lengths 8k --depths 0:100:10 --concurrency 4 --progress none --db "$work/r.db" --run x
