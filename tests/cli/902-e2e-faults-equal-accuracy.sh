# Acceptance: faults are infrastructure, not model behaviour. With every fault
# kind of serve-sim switched on, the run completes, every trial ends in a final
# state, and each trial's correct/wrong (hence every cell's accuracy) equals
# that of a fault-free run against an identical, fault-free server.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 30 31
faults=429=0.04,500=0.04,503=0.04,drop=0.03,truncate=0.03,garbage=0.03,slow=0.03,error200=0.03
start_sim faulty --dataset golden.jsonl --model m:seed=9 --faults "$faults" --fault-seed 3 \
    --slow-ms 300 --retry-after-ms 50
FAULTY=$SIM_URL
start_sim clean --dataset golden.jsonl --model m:seed=9
CLEAN=$SIM_URL
common=(--lengths 2k,4k --depths 0:100:25 --concurrency 8 --retry-base-ms 20 --max-attempts 12)
e2e_run faulty "$FAULTY" m "${common[@]}"
e2e_run clean "$CLEAN" m "${common[@]}"
# every fault kind really happened
for k in 429 500 503 drop truncate garbage slow error200; do
    grep -q "\"fault\":\"$k\"" faulty.log || fail "fault $k never drawn"
done
grep completions clean.log | grep -qv '"fault":"none"' && fail "the clean server faulted"
[ "$(n_trials faulty)" = 300 ] ||
    fail "faulty run: not 300 trials"
[ "$(n_trials faulty "attempts > 1")" -gt 0 ] ||
    fail "no trial was retried"
[ "$(n_trials faulty "outcome not in ('correct','wrong')")" = 0 ] ||
    fail "faults leaked into outcomes: $(q t.db "select outcome, error from trials where outcome not in ('correct','wrong')")"
e2e_check same-scores t.db faulty clean || fail "fault-free and faulty runs differ"
# per cell, from the reports
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
