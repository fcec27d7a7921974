#!/usr/bin/env bash
# `dipmap demo` (and `make demo`, which calls it): the whole pipeline offline. Starts `dipmap
# serve-sim` with three simulated models (a baseline, a candidate whose middle-of-context dip is
# deeper, and demo-rag), maps the first two at 8k and 32k tokens x 11 depths, compares them,
# writes a report, measures which order to pass retrieved chunks in (run --experiment order on
# demo-rag, with the depth curve it is checked against), stops the server (also on failure or
# Ctrl-C) and says where everything is. Each invocation uses fresh run names
# (demo-<time>-base and demo-<time>-cand) in OUT/demo.db, so it can run any number of times.
# Bold "demo:" prefixes only on a terminal, and never with NO_COLOR set (no-color.org).
# Installed as share/dipmap/scripts/demo.sh; the datasets are named, so the binary finds them
# in its data search order (README "Where dipmap finds its data") from any folder.
# usage: demo.sh DIPMAP_BINARY   (DEMO_OUT: output folder, default ./reports; DEMO_LENGTHS,
#        DEMO_DATASET, DEMO_HAYSTACK, DEMO_DB)
set -euo pipefail
bin=${1:?usage: demo.sh DIPMAP_BINARY}

dataset=${DEMO_DATASET:-needle}
haystack=${DEMO_HAYSTACK:-nq-haystack}
lengths=${DEMO_LENGTHS:-8k,32k}
out=${DEMO_OUT:-reports}
db=${DEMO_DB:-$out/demo.db}
stamp=$(date -u +%Y%m%d-%H%M%S)
base_run="demo-$stamp-base"
cand_run="demo-$stamp-cand"
order_run="demo-$stamp-order"
mkdir -p "$out"
start=$(date +%s)

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
    say() { printf '\033[1mdemo:\033[0m %s\n' "$*"; }
else
    say() { printf 'demo: %s\n' "$*"; }
fi

portfile=$(mktemp)
sim_pid=
cleanup() {
    if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2>/dev/null; then
        kill -TERM "$sim_pid" 2>/dev/null || true
        wait "$sim_pid" 2>/dev/null || true
    fi
    rm -f "$portfile"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# step WHAT CMD...: run one step; a Ctrl-C inside it (dipmap exits 130 after
# draining, and bash then does not run the INT trap) or a failure ends the demo
# with that code and says so; the EXIT trap stops the server.
step() {
    local what=$1 rc=0
    shift
    "$@" || rc=$?
    case $rc in
    0) ;;
    130) say "interrupted while $what (finished trials are kept in $db)"; exit 130 ;;
    *) say "$what failed with exit code $rc"; exit "$rc" ;;
    esac
}

say "starting the simulated model server (models demo-base, demo-cand and demo-rag)"
"$bin" serve-sim --port 0 --dataset "$dataset" \
    --model demo-base:edge=0.95,dip=0.15,shape=1.6,seed=7 \
    --model demo-cand:edge=0.95,dip=0.50,shape=1.6,seed=7 \
    --model demo-rag:edge=0.92,dip=0.37,shape=1.6,seed=7,flat=1 >"$portfile" &
sim_pid=$!
for _ in $(seq 1 100); do
    [ -s "$portfile" ] && break
    kill -0 "$sim_pid" 2>/dev/null || { say "serve-sim failed to start"; exit 3; }
    sleep 0.1
done
port=$(head -n 1 "$portfile")
endpoint="http://127.0.0.1:$port"
say "serve-sim listening on $endpoint"

common=(--endpoint "$endpoint" --dataset "$dataset" --haystack "$haystack" --lengths "$lengths"
    --depths 0:100:10 --concurrency 16 --db "$db" --progress lines --progress-interval 5)

t0=$(date +%s)
say "mapping demo-base ($lengths x 11 depths) as run $base_run"
step "mapping demo-base" "$bin" run "${common[@]}" --model demo-base --run "$base_run" --tag demo
t1=$(date +%s)
say "mapping demo-cand ($lengths x 11 depths) as run $cand_run"
step "mapping demo-cand" "$bin" run "${common[@]}" --model demo-cand --run "$cand_run" --tag demo
t2=$(date +%s)
say "choosing an ordering for demo-rag: 5 policies x k = 3, 5, 10 retrieved chunks as run $order_run"
step "the ordering experiment" "$bin" run --endpoint "$endpoint" --model demo-rag \
    --dataset "$dataset" --haystack "$haystack" --experiment order --k 3,5,10 --rank-p 0.3 \
    --concurrency 16 --db "$db" --progress none --run "$order_run" --tag demo >/dev/null
step "mapping demo-rag's depth curve" "$bin" run --endpoint "$endpoint" --model demo-rag \
    --dataset "$dataset" --haystack "$haystack" --lengths 256,1k --depths 0:100:25 \
    --concurrency 16 --db "$db" --progress none --run "$order_run-depth" --tag demo >/dev/null
t3=$(date +%s)

kill -TERM "$sim_pid" 2>/dev/null || true
wait "$sim_pid" 2>/dev/null || true
sim_pid=

say "comparing $cand_run against $base_run"
set +e
# (its stdout is compare.md, which --out writes too)
"$bin" compare "$base_run" "$cand_run" --db "$db" --out "$out/$cand_run-vs-base" >/dev/null
verdict_code=$?
set -e
case $verdict_code in
0 | 1 | 4) ;;
*) say "compare failed with exit code $verdict_code"; exit "$verdict_code" ;;
esac
# the verdict line says where the regression is: compare.json's "headline" (one JSON string
# on its own line: unescape \" and \\ only; the headline holds no other escapes)
verdict=$(sed -n 's/^[[:space:]]*"headline":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' \
    "$out/$cand_run-vs-base/compare.json" | sed 's/\\"/"/g; s/\\\\/\\/g')
[ -n "$verdict" ] || { say "compare wrote no headline in $out/$cand_run-vs-base/compare.json"; exit 3; }

say "writing reports"
step "writing the baseline report" "$bin" report "$base_run" --db "$db" --dataset "$dataset" --out "$out/$base_run"
step "writing the candidate report" "$bin" report "$cand_run" --db "$db" --dataset "$dataset" --out "$out/$cand_run"
step "writing the ordering report" "$bin" report "$order_run" --db "$db" --out "$out/$order_run" >/dev/null

end=$(date +%s)
echo
say "done in $((end - start)) s (baseline run $((t1 - t0)) s, candidate run $((t2 - t1)) s, ordering $((t3 - t2)) s, compare and reports $((end - t3)) s)"
echo "  verdict (candidate vs baseline): $verdict   [compare exit code $verdict_code]"
echo "  baseline report:  $out/$base_run/report.html"
echo "  candidate report: $out/$cand_run/report.html"
echo "  U-curves:         $out/$base_run/ucurve.svg  $out/$cand_run/ucurve.svg"
echo "  heatmaps:         $out/$base_run/heatmap.svg $out/$cand_run/heatmap.svg"
echo "  comparison:       $out/$cand_run-vs-base/"
echo "  ordering report:  $out/$order_run/report.html"
echo "  store:            $db  (dipmap runs --db $db)"
echo
say "which order to pass demo-rag's retrieved chunks in (measured; expected = from its depth curve):"
sed -n 's/^Recommendation: \(.*\)\. The cheapest.*/  \1/p' "$out/$order_run/summary.md" | sed 's/\\//g'
sed -n '/^| policy | k |/,/^$/p' "$out/$order_run/summary.md" | grep '^| ' | cut -d'|' -f2-9 |
    sed 's/ $//; s/\\//g; s/^/  /'
