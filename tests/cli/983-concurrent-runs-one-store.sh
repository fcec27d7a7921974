# Concurrency: two runs writing to one store at the same time both complete (WAL, busy
# timeout), and `dipmap report` / `dipmap runs` during the runs see consistent snapshots
# (outcome counts add up to the trials planned; counts only grow; every cell's trials add
# up to the total).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl --latency-ms 400 # runs of ~18 s: several snapshots even at load 8 (150 ms gave 1 there)
run_args
for r in a b; do
    "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:10 --repeats 2 --concurrency 3 \
        --db t.db --run "$r" --store-prompts >"$r.out" 2>"$r.err" &
    eval "pid_$r=\$!"
done
prev=0
snaps=0
for i in $(seq 400); do
    kill -0 "$pid_a" 2>/dev/null || kill -0 "$pid_b" 2>/dev/null || break
    [ -e t.db ] || { sleep 0.05; continue; }
    # a report of run a while both runs write
    "$DIPMAP" report a --db t.db --out rep --format json --no-plots >rep.out 2>rep.err
    rc=$?
    # before run a exists (or while the first writer creates the schema) there is nothing to see
    if [ $rc = 2 ] && [ $snaps = 0 ] && grep -q "no run named 'a'\|no dipmap schema\|no runs yet" rep.err; then continue; fi
    [ $rc = 0 ] || { cat rep.err >&2; fail "report during the runs exited $rc"; }
    python3 - rep/summary.json "$prev" >snap.txt <<'PY' || { cat rep/summary.json >&2; fail "inconsistent report snapshot"; }
import json, sys
d = json.load(open(sys.argv[1]))
t = d['totals']
planned = d['run']['trials_planned']
assert planned == 132, planned
done = t['trials']
assert sum(t['outcomes'].values()) - t['outcomes']['pending'] == done, t
assert done <= planned and d['run']['trials_done'] == done, (d['run']['trials_done'], t)
assert t['valid'] <= done and t['correct'] <= t['valid'], t
assert done >= int(sys.argv[2]), ('went back', done, sys.argv[2])
cells = sum(c.get('trials', c.get('n', 0)) for c in d['cells'])
assert cells == t['trials'] or not d['cells'], (cells, t['trials'])
print(done)
PY
    prev=$(cat snap.txt)
    snaps=$((snaps + 1))
    expect_code 0 "$DIPMAP" runs --db t.db --json
    python3 -c 'import json,sys; json.load(open("out"))' || fail "runs --json during the runs is not JSON"
done
wait "$pid_a" || { cat a.err >&2; fail "run a failed"; }
wait "$pid_b" || { cat b.err >&2; fail "run b failed"; }
assert_contains a.out "run a: complete"
assert_contains b.out "run b: complete"
[ $snaps -ge 2 ] || fail "only $snaps report snapshots were taken during the runs"
[ "$(q t.db "select r.name, count(*) from trials t join runs r on r.id = t.run_id group by r.name order by r.name" | tr '\n' ' ')" = "a|132 b|132 " ] ||
    fail "trial counts: $(q t.db "select run_id, count(*) from trials group by run_id")"
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "integrity_check failed"
[ "$(q t.db "select count(*) from locks")" = 0 ] || fail "locks left behind"
echo "snapshots: $snaps"
