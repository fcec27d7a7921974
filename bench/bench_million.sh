#!/usr/bin/env bash
# A sweep of TRIALS trials (issue 33 "Scale"; numbers, never failures): wall, user+sys CPU
# and peak RSS (/usr/bin/time -v's maximum resident set) of every command a user runs on it:
#   run      the whole sweep in one process against `serve-sim --latency-ms 0`
#   shards   the same sweep as 8 shards (`--shard I/8`, one after another, each on its own
#            store; the largest RSS and the summed times)
#   merge    the 8 shard stores into one
#   report   md, json and html (no plots), of the single run; the report.html size
#   compare  the single run against the merged one (--baseline-db)
#   export   csv of the single run
#   Chromium headless Chromium opening report.html (when installed)
#   view     `dipmap view` serving its run page (the page fetched once; RSS read from
#            /proc/PID/status VmHWM, time to the page from the start)
# The sweep: TRIALS / 100 generated kv questions x 10 depths (0:90:10) x 10 repeats at 512
# tokens, --concurrency 16, --max-tokens 48 (a kv answer is 36 characters).
#
#   bench/bench_million.sh DIPMAP [TRIALS]        (TRIALS: 100000 by default; 1000000 for 1M)
#
# Every command runs under `nice`; the machine's other load is printed (load average), as
# the walls depend on it; RSS and CPU do not.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: bench/bench_million.sh DIPMAP [TRIALS]}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
trials=${2:-100000}
nq=$((trials / 100))
work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-million.XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1

"$bin" gen kv --n "$nq" --seed 1 --out golden.jsonl --haystack-out hay.jsonl \
    --haystack-size 2000 >/dev/null || exit 1

start_sim() {
    rm -f sim.out
    "$bin" serve-sim --port 0 --dataset golden.jsonl --latency-ms 0 >sim.out 2>sim.err &
    sim=$!
    pids+=("$sim")
    for _ in $(seq 400); do [ -s sim.out ] && break; sleep 0.05; done
    url="http://127.0.0.1:$(head -n1 sim.out)"
}
stop_sim() {
    kill "$sim" 2>/dev/null
    wait "$sim" 2>/dev/null
}

# timed NAME CMD...: run CMD under nice and /usr/bin/time -v; NAME.time keeps the figures
timed() {
    local name=$1
    shift
    /usr/bin/time -v -o "$name.time" nice "$@" >"$name.out" 2>"$name.err" ||
        { echo "$name: exit $? ($(tail -n 2 "$name.err" | tr '\n' ' '))" >&2; }
}
. "$repo/bench/lib.sh" # fig
row() { # LABEL WALL CPU RSS [NOTE]
    printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "${5:-}"
}

run_args=(--model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
    --template "$repo/prompts/kv.txt" --scorer kv --lengths 512 --depths 0:90:10 --repeats 10
    --concurrency 16 --max-tokens 48 --progress none --run r)

echo "### $trials trials ($nq kv questions x 10 depths x 10 repeats at 512 tokens)"
echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo
echo "| command | wall s | CPU s | peak RSS MB | |"
echo "|---|---:|---:|---:|---|"
start_sim
timed run "$bin" run --endpoint "$url" "${run_args[@]}" --db whole.db
stop_sim
read -r w c m < <(fig run)
row run "$w" "$c" "$m" "$(grep -o 'trials: [0-9]* of [0-9]*' run.out | head -n1); store $(($(stat -c %s whole.db) / 1048576)) MB"

sw=0 sc=0 sm=0
for i in 1 2 3 4 5 6 7 8; do
    start_sim
    timed "shard$i" "$bin" run --endpoint "$url" "${run_args[@]}" --db "s$i.db" --shard "$i/8"
    stop_sim
    read -r w c m < <(fig "shard$i")
    read -r sw sc sm < <(python3 -c "import sys; a = list(map(float, sys.argv[1:])); print('%.1f %.1f %.1f' % (a[0] + a[3], a[1] + a[4], max(a[2], a[5])))" "$sw" "$sc" "$sm" "$w" "$c" "$m")
done
row "run --shard I/8 (8 runs)" "$sw" "$sc" "$sm" "times summed, largest RSS"
timed merge "$bin" merge m.db s1.db s2.db s3.db s4.db s5.db s6.db s7.db s8.db
read -r w c m < <(fig merge)
row merge "$w" "$c" "$m"
timed report "$bin" report r --db whole.db --out rep --format md,json,html --no-plots
read -r w c m < <(fig report)
row report "$w" "$c" "$m" "report.html $(($(stat -c %s rep/report.html 2>/dev/null || echo 0) / 1024)) KB"
# the page in a browser: headless Chromium loads report.html and runs its script (the DOM dumped)
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chrome" ] && [ -s rep/report.html ]; then
    mkdir -p profile
    /usr/bin/time -v -o chromium.time nice timeout 300 "$chrome" --headless --no-sandbox \
        --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$PWD/profile" \
        --virtual-time-budget=5000 --dump-dom "file://$PWD/rep/report.html" >dom.html 2>chromium.err
    read -r w c m < <(fig chromium)
    grep -q 'Questions by depth' dom.html && ok="the page loaded" || ok="FAILED to load"
    row "Chromium --dump-dom report.html" "$w" "$c" "$m" "$ok (the browser's figures)"
fi
timed compare "$bin" compare r r --baseline-db whole.db --db m.db --out cmp
read -r w c m < <(fig compare)
row compare "$w" "$c" "$m" "single run vs merged shards"
timed export "$bin" export r --db whole.db --format csv --out trials.csv
read -r w c m < <(fig export)
row "export csv" "$w" "$c" "$m" "$(($(stat -c %s trials.csv 2>/dev/null || echo 0) / 1048576)) MB"

# view: time until its run page is served, then its peak RSS
t0=$(date +%s.%N)
nice "$bin" view --db whole.db --port 0 >view.out 2>view.err &
vp=$!
pids+=("$vp")
for _ in $(seq 600); do [ -s view.out ] && break; sleep 0.05; done
vurl=$(head -n 1 view.out)
curl -s -o view-index.html "$vurl"
curl -s -o view.html "${vurl}run?name=r"
t1=$(date +%s.%N)
vm=$(awk '/VmHWM/ {print $2}' "/proc/$vp/status")
read -r u s < <(awk '{print $14, $15}' "/proc/$vp/stat")
kill "$vp" 2>/dev/null
wait "$vp" 2>/dev/null
python3 -c "import sys; t0, t1, u, s, hz, vm, sz = map(float, sys.argv[1:]); print('| view (start, run page) | %.1f | %.1f | %.1f | page %d KB |' % (t1 - t0, (u + s) / hz, vm / 1024, sz / 1024))" \
    "$t0" "$t1" "$u" "$s" "$(getconf CLK_TCK)" "${vm:-0}" "$(stat -c %s view.html 2>/dev/null || echo 0)"
