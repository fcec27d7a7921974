# A transient HTTP 200 with an HTML page mid-run (a proxy's or gateway's glitch: serve-sim's
# html200 fault) is retried like a 502, among 429/500/503/drop/truncate at a few % each: the
# run completes, no trial ends in error, and every cell's accuracy equals the fault-free run's
# (issue 43 item 17: the preflight's HTML stop was applied to every answer and aborted the run,
# exit 2 "the endpoint refused the run: bad-body: HTTP 200 with an HTML page"). A server that
# keeps answering pages still stops the run: test 972.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 12 43
faults=html200=0.05,429=0.03,500=0.03,503=0.03,drop=0.02,truncate=0.02
start_sim faulty --dataset golden.jsonl --model m:seed=9 --faults "$faults" --fault-seed 5 \
    --retry-after-ms 20
FAULTY=$SIM_URL
start_sim clean --dataset golden.jsonl --model m:seed=9
CLEAN=$SIM_URL
common=(--lengths 1k,2k --depths 0:100:25 --concurrency 4 --retry-base-ms 10 --max-attempts 12)
e2e_run faulty "$FAULTY" m "${common[@]}"
e2e_run clean "$CLEAN" m "${common[@]}"
# the pages were really sent mid-run, and more than one trial got one
pages=$(grep -c '"fault":"html200"' faulty.log)
[ "$pages" -ge 3 ] || fail "only $pages html200 faults drawn"
[ "$(n_trials faulty)" = 120 ] || fail "faulty run: $(n_trials faulty) trials, not 120"
[ "$(n_trials faulty "outcome not in ('correct','wrong')")" = 0 ] ||
    fail "faults leaked into outcomes: $(q t.db "select outcome, error from trials where outcome not in ('correct','wrong')")"
e2e_check same-scores t.db faulty clean || fail "fault-free and faulty runs differ"
expect_code 0 "$DIPMAP" report faulty --db t.db --out rf --format json --no-plots
expect_code 0 "$DIPMAP" report clean --db t.db --out rc --format json --no-plots
python3 - <<'PY' || fail "per-cell accuracies differ"
import json
a = json.load(open("rf/summary.json"))["cells"]
b = json.load(open("rc/summary.json"))["cells"]
ka = [(c["length"], c["depth_bp"], c["valid"], c["correct"]) for c in a]
kb = [(c["length"], c["depth_bp"], c["valid"], c["correct"]) for c in b]
assert ka == kb, (ka, kb)
PY
