# report shows the prompt cache's accounting from the stored trials: summary.json "prompt_cache"
# (sent, cached, computed, hit rate) equals the sums over `dipmap export` of the same run
# (cached_tokens, else llama.cpp timings cache_n; sent = usage_prompt_tokens), the estimate is
# plan_cache_estimate over the run's groups (each group's depths but the deepest reuse their
# depth's share of the length); summary.md and report.html carry a "Prompt cache" section; a
# store whose trials carry only timings (as llama.cpp's) counts cache_n; a run whose server
# reports no cache data has neither the key nor the section.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim cache --dataset golden.jsonl --prefix-cache 1m --timings
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db t.db \
    --run rc --schedule cache -c 2
start_sim plain --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db t.db --run rp

check() { # RUN DIR: summary.json's prompt_cache against the export's sums
    expect_code 0 "$DIPMAP" export "$1" --db "$3" --format jsonl --out "$1.jsonl"
    python3 - "$1.jsonl" "$2/summary.json" <<'PY' || fail "prompt_cache of $1 disagrees with export"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pc = json.load(open(sys.argv[2]))["prompt_cache"]
rep = [r for r in rows if r["cached_tokens"] is not None or r["cache_n"] is not None]
assert rep, "no trial reports cache data"
sent = sum(r["usage_prompt_tokens"] for r in rep)
cached = sum(r["cached_tokens"] if r["cached_tokens"] is not None else r["cache_n"] for r in rep)
want = {"trials": len(rep), "sent": sent, "cached": cached, "computed": sent - cached,
        "from_timings": sum(r["cached_tokens"] is None for r in rep)}
for k, v in want.items():
    assert pc[k] == v, (k, pc[k], v)
assert abs(pc["hit_rate"] - cached / sent) < 1e-9, pc
assert 0 < cached < sent, (cached, sent)
groups = {}
for r in rows:
    groups.setdefault((r["question_id"], r["length"], r["repeat"], r["axes"]), []).append(r)
es = sum(r["length"] for r in rows)
ec = sum(sum(r["depth"] * r["length"] for r in g) - max(r["depth"] for r in g) * g[0]["length"]
         for g in groups.values())
assert abs(pc["estimate"]["sent"] - es) < 1e-6 and abs(pc["estimate"]["cached"] - ec) < 1e-6, (pc, es, ec)
print(pc["from_timings"], pc["cached"], pc["sent"])
PY
}
expect_code 0 "$DIPMAP" report rc --db t.db --out r --no-plots --format md,html,json
check rc r t.db
for f in r/summary.md r/report.html; do
    grep -q "Prompt cache" "$f" || fail "$f has no Prompt cache section"
    grep -q "Estimate, not a measurement" "$f" || fail "$f does not label the estimate"
done
grep -q "| from the server's cache | $(python3 -c "import json; print(json.load(open('r/summary.json'))['prompt_cache']['cached'])") |" r/summary.md ||
    fail "summary.md does not show the cached tokens"

# timings only (llama.cpp reports no cached_tokens): cache_n counts
cp t.db tl.db
q tl.db "update trials set cached_tokens = null"
expect_code 0 "$DIPMAP" report rc --db tl.db --out rl --no-plots --format json
check rc rl tl.db
python3 -c "import json,sys; pc = json.load(open('rl/summary.json'))['prompt_cache']; sys.exit(pc['from_timings'] != pc['trials'])" ||
    fail "timings-only trials not counted as from_timings"

# no cache data: no key, no section
expect_code 0 "$DIPMAP" report rp --db t.db --out p --no-plots --format md,html,json
python3 -c "import json,sys; sys.exit('prompt_cache' in json.load(open('p/summary.json')))" ||
    fail "a run without cache data has prompt_cache"
! grep -q "Prompt cache" p/summary.md p/report.html || fail "a run without cache data has the section"
