# --rpm is a limit at every moment, the first minute included: requests are paced at 60/rpm s
# from the first one (a token bucket with a 10 s burst sent --rpm 60's first 10 requests at once
# and --rpm 600's first 33 in 0.04 s), and the dry run's estimate agrees with the run. Gaps are
# read from the run's own send times (sent_at, taken where the limit is applied) and only bounded
# below, so a busy machine cannot fail it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
args=("${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100,25 --db t.db --rpm 120 --concurrency 8)
expect_code 0 "$DIPMAP" run "${args[@]}" --run r --dry-run
assert_contains out "  --rpm 120: 4 s"
expect_code 0 "$DIPMAP" run "${args[@]}" --run r
python3 - t.db <<'PY' || fail "--rpm not honoured"
import sqlite3, sys
ts = sorted(r[0] for r in sqlite3.connect(sys.argv[1]).execute("select sent_at from trials"))
assert len(ts) == 8, len(ts)
gaps = [b - a for a, b in zip(ts, ts[1:])]
print("gaps %s" % ["%.2f" % g for g in gaps])
# 0.5 s apart at 120 rpm (less a margin for the moment sent_at is taken after the check)
assert all(g >= 0.4 for g in gaps), "requests closer than 60/rpm: %r" % gaps
# the dry run said 4 s for 8 requests: the sends span at least 7 gaps
assert ts[-1] - ts[0] >= 3.4, "8 requests in %.2f s" % (ts[-1] - ts[0])
PY
