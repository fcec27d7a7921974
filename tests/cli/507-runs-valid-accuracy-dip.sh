# dipmap runs shows valid trials, accuracy and the dip: an all-starved run reads "complete
# 100%" in PROGRESS but 0/N valid with no accuracy; --json carries the same figures, and they
# agree with summary.json from `dipmap report` (accuracy, per-length dip point estimates).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.95,dip=0.7,seed=2
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,4k --depths 0:100:25 --repeats 2 --db t.db --run good
# a reasoning model whose budget always goes to thinking: every trial starved, never scored
# (an answer cut at the budget is scored since issue 20, so that no longer makes such a run)
GOOD_URL=$SIM_URL
start_sim starve --dataset golden.jsonl --reasoning 1
RUN_ARGS[1]=$SIM_URL
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db t.db --run cut >/dev/null 2>&1
[ "$(n_trials cut "outcome = 'starved'")" = 12 ] ||
    fail "fixture: 'cut' is not all starved: $(q t.db "select outcome, count(*) from trials group by 1")"
RUN_ARGS[1]=$GOOD_URL
expect_code 0 "$DIPMAP" runs --db t.db
head -n 1 out | grep -q '^NAME  *MODEL  *STATUS  *PROGRESS  *VALID  *ACCURACY  *DIP  *CREATED  *TAGS$' ||
    fail "header: $(head -n 1 out)"
line=$(grep '^cut ' out | tr -s ' ')
case "$line" in *" 12/12 100% 0/12 - - "*) ;; *) fail "all-starved run shows: $line" ;; esac
good=$(q t.db "select count(*), sum(outcome = 'correct') from trials t join runs r on r.id = t.run_id
               where r.name = 'good' and outcome in ('correct', 'wrong')")
nvalid=${good%|*}
ncorrect=${good#*|}
line=$(grep '^good ' out | tr -s ' ')
pct=$(python3 -c "print('%.1f%%' % (100.0 * $ncorrect / $nvalid))")
case "$line" in *" $nvalid/80 $pct "*" pp @"*) ;; *) fail "good run shows: $line (want $nvalid/80 $pct)" ;; esac

expect_code 0 "$DIPMAP" runs --db t.db --json
cp out runs.json
expect_code 0 "$DIPMAP" report good --db t.db --format json --out rep
python3 - runs.json rep/summary.json <<'PY' || fail "runs --json disagrees with summary.json"
import json, sys
runs = {r['name']: r for r in json.load(open(sys.argv[1]))}
s = json.load(open(sys.argv[2]))
g, c = runs['good'], runs['cut']
assert c['trials_valid'] == 0 and c['accuracy'] is None, c
assert c['dip']['max'] is None and c['trials_done'] == 12, c
assert g['trials_valid'] == s['totals']['valid'], (g['trials_valid'], s['totals'])
assert abs(g['accuracy'] - s['totals']['accuracy']) < 1e-12
dips = {d['length']: d['dip'] for d in g['dip']['lengths']}
for L in s['lengths']:
    assert abs(dips[L['length']] - L['dip']['value']) < 1e-12, (L['length'], dips, L['dip'])
best = max(s['lengths'], key=lambda L: L['dip']['value'])
assert g['dip']['length'] == best['length'] and abs(g['dip']['max'] - best['dip']['value']) < 1e-12
PY
exit 0
