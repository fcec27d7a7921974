#!/usr/bin/env bash
# Peer benchmark (part of `make bench`; numbers, never failures): the same
# prompts sent by dipmap and by promptfoo (npm `promptfoo`, `npx promptfoo eval`)
# to the same `dipmap serve-sim`, at the same concurrency. dipmap runs first
# with --store-prompts; its rendered prompts (system + user messages) are read
# back from the store and become promptfoo's test cases, so both tools send
# byte-identical chat requests. Prints one markdown table: wall seconds and
# CPU seconds (user+sys of the client process tree, the simulator excluded)
# per tool and the ratio dipmap/promptfoo. Skips with a note when node/npm or
# the package is missing and cannot be installed into bench/node (git-ignored).
#
# usage: bench/peer_promptfoo.sh DIPMAP [LENGTH] [CONCURRENCY] [LATENCY_MS]
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: bench/peer_promptfoo.sh DIPMAP [LENGTH] [CONCURRENCY] [LATENCY_MS]}
len=${2:-8k}
conc=${3:-16}
lat=${4:-0}
node_dir=$repo/bench/node

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "peer: skipped (node/npm not installed)"
    exit 0
fi
if [ ! -x "$node_dir/node_modules/.bin/promptfoo" ]; then
    echo "peer: installing promptfoo into bench/node (not committed)"
    npm install --silent --no-audit --no-fund --prefix "$node_dir" promptfoo >/dev/null 2>&1 ||
        { echo "peer: skipped (npm install promptfoo failed: offline?)"; exit 0; }
fi
pf=$node_dir/node_modules/.bin/promptfoo
pf_ver=$(node -p "require('$node_dir/node_modules/promptfoo/package.json').version" 2>/dev/null)

work=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-bench-peer.XXXXXX")
sim_pid=
cleanup() {
    if [ -n "$sim_pid" ]; then
        kill "$sim_pid" 2>/dev/null
        wait "$sim_pid" 2>/dev/null
    fi
    [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1

dataset=$repo/datasets/needle.jsonl
"$bin" serve-sim --port 0 --dataset "$dataset" --latency-ms "$lat" \
    --model peer:edge=0.95,dip=0.15,shape=1.6,seed=7 >sim.out 2>sim.err &
sim_pid=$!
for _ in $(seq 200); do [ -s sim.out ] && break; sleep 0.05; done
[ -s sim.out ] || { echo "peer: skipped (serve-sim did not start)"; exit 0; }
url="http://127.0.0.1:$(head -n1 sim.out)"

# 1. dipmap: the whole `dipmap run` (start-up, prompt building, sending, scoring, store)
/usr/bin/time -f "%e %U %S %M" -o dm.time "$bin" run --endpoint "$url" --model peer \
    --dataset "$dataset" --haystack "$repo/datasets/nq-haystack.jsonl.gz" --lengths "$len" \
    --depths 0:100:10 --concurrency "$conc" --max-tokens 32 --store-prompts --progress none \
    --db p.db --run peer >dm.out 2>dm.err || { echo "peer: dipmap run failed"; tail -n 3 dm.err; exit 0; }
read -r dm_wall dm_user dm_sys dm_rss < <(tail -n 1 dm.time)

# 2. the same rendered prompts as promptfoo test cases (system \0 user in the store)
python3 - p.db <<'EOF' || { echo "peer: cannot export the prompts"; exit 0; }
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT CAST(p.text AS BLOB) FROM trials t JOIN prompts p ON p.sha256 = t.prompt_sha256").fetchall()
tests = []
for (blob,) in rows:
    system, _, user = bytes(blob).partition(b"\0")
    tests.append({"vars": {"system": system.decode(), "user": user.decode()}})
json.dump(tests, open("tests.json", "w"))
print(len(tests), file=open("ntests", "w"))
EOF
n=$(cat ntests)
cat >promptfooconfig.yaml <<EOF
description: dipmap peer benchmark
prompts:
  - file://prompt.json
providers:
  - id: openai:chat:peer
    config:
      apiBaseUrl: $url/v1
      apiKey: none
      max_tokens: 32
      temperature: 0
tests: file://tests.json
EOF
# nunjucks' dump filter JSON-encodes each message, so the text arrives byte-identical
cat >prompt.json <<'EOF'
[{"role": "system", "content": {{ system | dump | safe }}}, {"role": "user", "content": {{ user | dump | safe }}}]
EOF
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CACHE_ENABLED=false \
    PROMPTFOO_DISABLE_SHARING=1 PROMPTFOO_CONFIG_DIR=$work/pfhome NODE_NO_WARNINGS=1
/usr/bin/time -f "%e %U %S %M" -o pf.time "$pf" eval -c promptfooconfig.yaml --no-cache \
    --max-concurrency "$conc" --no-progress-bar --no-table --no-write -o pf.json \
    >pf.out 2>pf.err || true
if [ ! -s pf.json ]; then
    echo "peer: promptfoo@$pf_ver eval failed (skipped):"
    tail -n 5 pf.err pf.out
    exit 0
fi
read -r pf_wall pf_user pf_sys pf_rss < <(tail -n 1 pf.time)
pf_ok=$(python3 -c "
import json
r = json.load(open('pf.json'))['results']
rs = r.get('results', r) if isinstance(r, dict) else r
print(sum(1 for x in rs if (x.get('response') or {}).get('output')))
" 2>/dev/null || echo "?")

echo "### Peer: promptfoo@$pf_ver vs dipmap, $n prompts at $len, concurrency $conc, serve-sim latency ${lat} ms"
echo
echo "| tool | prompts | answered | wall s | CPU s | peak RSS MB | CPU ms per prompt |"
echo "|---|---:|---:|---:|---:|---:|---:|"
python3 - <<EOF
n = $n
for name, wall, cpu, rss, ok in (("dipmap", $dm_wall, $dm_user + $dm_sys, $dm_rss, n),
                                  ("promptfoo", $pf_wall, $pf_user + $pf_sys, $pf_rss, "$pf_ok")):
    print("| %s | %d | %s | %.2f | %.2f | %.1f | %.2f |" % (name, n, ok, wall, cpu, rss / 1024.0, 1000.0 * cpu / n))
print()
print("| ratio dipmap/promptfoo | wall | CPU |")
print("|---|---:|---:|")
print("| ratio | %.3f | %.3f |" % ($dm_wall / $pf_wall, ($dm_user + $dm_sys) / ($pf_user + $pf_sys)))
EOF
