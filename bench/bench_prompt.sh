#!/usr/bin/env bash
# Prompt-building benchmark: `make bench-prompt` (part of `make bench`). For the
# shipped NQ-open set and haystack (qa template), builds 100 questions x 8k/32k/64k
# x 11 depths with cl100k_base and with the Qwen3 tokenizer.json and prints
# prompts/s, MB/s and peak RSS. Numbers, never failures.
#
# usage: bench/bench_prompt.sh BENCH_BINARY [QUESTIONS]
set -u
bin=$1
nq=${2:-100}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
echo "== prompt building: $nq questions x 3 lengths x 11 depths, $(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for tk in cl100k_base tests/data/tokenizer/qwen3/tokenizer.json.gz; do
    echo "-- tokenizer $tk"
    "$bin" datasets/nq-open.jsonl.gz datasets/nq-haystack.jsonl.gz qa "$tk" "$nq" || echo "bench_prompt failed for $tk"
done
