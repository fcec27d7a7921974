# The send schedule is stored with the run (store schema 7, runs.schedules): summary.json's
# run.schedules, `runs --json` and the report's "Prompt cache" section name it; a resume that
# sends with another --schedule adds it ("plan", then "plan,cache": the figures mix them); a
# resume with nothing left to send adds nothing; merge carries every shard's schedule.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim cache --dataset golden.jsonl --prefix-cache 1m
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db \
    --run rs --schedule plan -c 2
[ "$(q t.db "select schedules from runs where name = 'rs'")" = plan ] || fail "schedule not stored"

sched() { # DIR: summary.json's run.schedules, comma-joined
    python3 -c "import json,sys; print(','.join(json.load(open(sys.argv[1] + '/summary.json'))['run']['schedules']))" "$1"
}
expect_code 0 "$DIPMAP" report rs --db t.db --out r1 --no-plots --format md,json
[ "$(sched r1)" = plan ] || fail "summary.json run.schedules: $(sched r1)"
grep -q "^Schedule: plan\.$" r1/summary.md || fail "summary.md does not name the schedule"

# nothing left to send: another --schedule is not recorded
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db \
    --run rs --schedule shuffle -c 2
[ "$(q t.db "select schedules from runs where name = 'rs'")" = plan ] ||
    fail "a resume that sent nothing recorded its schedule"

# an interrupted run (trials missing) resumed with --schedule cache: both are named
q t.db "delete from trials where depth_bp >= 5000"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db \
    --run rs --schedule cache -c 2
expect_code 0 "$DIPMAP" report rs --db t.db --out r2 --no-plots --format md,html,json
[ "$(sched r2)" = plan,cache ] || fail "after the resume run.schedules is $(sched r2)"
grep -q "^Schedules: plan,cache (the run's invocations used different --schedule values" r2/summary.md ||
    fail "summary.md does not say the schedules were mixed"
grep -q "Schedules: plan,cache" r2/report.html || fail "report.html does not name the schedules"
expect_code 0 "$DIPMAP" runs --db t.db --json
python3 - <<'PY' || fail "runs --json does not carry the run's schedules"
import json
d = json.load(open("out"))
runs = d["runs"] if isinstance(d, dict) else d
r = [x for x in runs if x["name"] == "rs"][0]
assert r["schedules"] == ["plan", "cache"], r.get("schedules")
PY

# shards sent with different schedules: the merged run names both
for i in 1 2; do
    s=$([ $i = 1 ] && echo shuffle || echo cache)
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db s$i.db \
        --run sh --shard $i/2 --schedule $s -c 2
done
expect_code 0 "$DIPMAP" merge m.db s1.db s2.db
[ "$(q m.db "select schedules from runs where name = 'sh'")" = shuffle,cache ] ||
    fail "merged run schedules: $(q m.db "select schedules from runs where name = 'sh'")"
