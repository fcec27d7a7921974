#!/usr/bin/env bash
# Million-token prompts (issue 45; part of `make bench`; numbers, never failures): wall,
# user+sys CPU and peak RSS (/usr/bin/time -v) of
#   one prompt  `dipmap show-prompt --length 1m` (the whole process: loading the needle set
#               and the 6 MB books haystack, selecting 1,048,576 tokens of it, counting)
#   sweep       `dipmap run --lengths 1m` over QUESTIONS needle questions x 11 depths at
#               --concurrency 16 against `serve-sim --latency-ms 0 --ctx 1049600` (the run's
#               process only; serve-sim counts every prompt too, in its own process), and
#               its CPU per prompt
# Data: datasets/needle.jsonl with datasets/books-haystack.jsonl.gz, cl100k_base.
#
#   bench/bench_million_tokens.sh DIPMAP [QUESTIONS]      (QUESTIONS: 4 by default)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: bench/bench_million_tokens.sh DIPMAP [QUESTIONS]}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
nq=${2:-4}
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-mtok.XXXXXX")
sim=
cleanup() {
    [ -z "$sim" ] || { kill "$sim" 2>/dev/null; wait "$sim" 2>/dev/null; }
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
set_args=(--dataset "$repo/datasets/needle.jsonl" --haystack "$repo/datasets/books-haystack.jsonl.gz"
    --template needle)

. "$repo/bench/lib.sh" # fig

echo "### Million-token prompts (needle.jsonl x books-haystack, cl100k_base)"
echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo
echo "| prompts | wall s | CPU s | CPU s per prompt | peak RSS MB |"
echo "|---|---:|---:|---:|---:|"
/usr/bin/time -v -o one.time "$bin" show-prompt "${set_args[@]}" --length 1m --depth 50 >one.out 2>one.err ||
    echo "one prompt: exit $? ($(tail -n 1 one.err))" >&2
grep -q 'realized 1048576,' one.out || echo "one prompt: not 1048576 tokens: $(head -n 1 one.out)" >&2
read -r w c m < <(fig one)
echo "| 1 (show-prompt, whole process) | $w | $c | $c | $m |"

"$bin" serve-sim --port 0 --dataset "$repo/datasets/needle.jsonl" --latency-ms 0 --ctx 1049600 \
    >sim.out 2>sim.err &
sim=$!
for _ in $(seq 1200); do [ -s sim.out ] && break; sleep 0.05; done
url="http://127.0.0.1:$(head -n 1 sim.out)"
/usr/bin/time -v -o sweep.time "$bin" run --endpoint "$url" --model dipmap-sim "${set_args[@]}" \
    --lengths 1m --depths 0:100:10 --questions "$nq" --concurrency 16 --progress none \
    --db sweep.db --run sweep >sweep.out 2>sweep.err || echo "sweep: exit $? ($(tail -n 1 sweep.err))" >&2
n=$(grep -o 'trials: [0-9]* of' sweep.out | grep -o '[0-9]*' | head -n 1)
exact=$(sqlite3 -batch -noheader sweep.db "select count(*) from trials where usage_prompt_tokens = 1048576" 2>/dev/null)
read -r w c m < <(fig sweep)
echo "| ${n:-0} (run, $nq questions x 11 depths, C=16; ${exact:-0} counted 1048576 by the server) | $w | $c |" \
    "$(python3 -c "import sys; print('%.3f' % (float(sys.argv[1]) / max(1, int(sys.argv[2]))))" "$c" "${n:-0}") | $m |"
