#!/usr/bin/env bash
# Prefix-cache schedule against a real llama-server (numbers, never pass/fail; BENCHMARKS.md
# "Prefix-cache schedule"). Skipped without LLAMA_SERVER.
#
#   LLAMA_SERVER=/path/to/llama-server bench/bench_cache_llama.sh [DIPMAP] [LENGTH] [QUESTIONS] \
#       [CONCURRENCIES] [SLOTS]
#
# The tiny generated model (tests/llama/gen_gguf.py: 2 layers, width 64, Qwen3 vocabulary),
# `-t 2`, for each -np in SLOTS (comma-separated, default 2,4; context 4096 per slot) and each
# --concurrency in CONCURRENCIES (default 1,2,8,16): QUESTIONS (default 4)
# needle questions x 11 depths (0:100:10) at LENGTH (default 2k), once with --schedule cache
# and once with --schedule shuffle, each on a fresh server (empty caches). Reported: the share
# of prompt tokens the server served from its cache (timings.cache_n / prompt tokens, from
# the store) and the wall time of the `dipmap run` process, both schedules, and the ratios.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
export DIPMAP=${1:-$repo/dipmap} REPO=$repo TESTS=$repo/tests
case $DIPMAP in /*) ;; *) DIPMAP=$PWD/$DIPMAP ;; esac # the runs go in a scratch folder
len=${2:-2k}
nq=${3:-4}
cs=${4:-1,2,8,16}
nps=${5:-2,4}
if [ -z "${LLAMA_SERVER:-}" ]; then
    echo "cache-llama: skipped (LLAMA_SERVER is not set)"
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-cache-llama.XXXXXX")
cd "$work" || exit 1
# shellcheck source=/dev/null
. "$TESTS/cli/lib/lib.sh"
# shellcheck source=/dev/null
. "$TESTS/llama/lib.sh"
trap 'llama_cleanup; rm -rf "$work"' EXIT
llama_require
llama_tokenizer
llama_golden "$nq" 3

one() { # NP C SCHEDULE -> "reuse_pct wall"
    local np=$1 c=$2 sched=$3 t0 t1
    rm -f t.db t.db-wal t.db-shm
    llama_start "srv-$np-$c-$sched" -c $((4096 * np)) -np "$np"
    t0=$(date +%s.%N)
    llama_run b --lengths "$len" --depths 0:100:10 --concurrency "$c" --max-tokens 8 --schedule "$sched"
    t1=$(date +%s.%N)
    [ "$LLAMA_RC" = 0 ] || tail -3 run-b.err >&2
    llama_stop "$LLAMA_PID"
    echo "$(q t.db "select round(100.0 * sum(cache_n) / sum(cache_n + prompt_n), 1) from trials")" \
        "$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1")"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo
echo "### Prefix-cache schedule (llama-server, $len, $nq questions x 11 depths)"
echo
echo "| np | c | cached % cache | cached % shuffle | wall cache s | wall shuffle s | wall ratio |"
echo "|---|---|---|---|---|---|---|"
for np in ${nps//,/ }; do
    for c in ${cs//,/ }; do
        read -r pc wc < <(one "$np" "$c" cache)
        read -r ps ws < <(one "$np" "$c" shuffle)
        python3 -c "import sys; np_, c, pc, ps, wc, ws = sys.argv[1:]; print('| %s | %s | %s | %s | %s | %s | %.2f |' % (np_, c, pc, ps, wc, ws, float(wc) / float(ws)))" \
            "$np" "$c" "$pc" "$ps" "$wc" "$ws"
    done
done
