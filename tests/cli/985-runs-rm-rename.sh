# dipmap rm deletes a run and what only it used (trials, stored prompts, golden set), after a
# confirmation (--yes, or y on a terminal), never another run's rows; it refuses an unknown
# run (deleting none of the others named), a run in use by a live process, and a missing
# confirmation. dipmap rename moves a run to a free valid name; its trials follow.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
"$DIPMAP" gen kv --n 3 --seed 2 --out other.jsonl --haystack-out other-hay.jsonl \
    --haystack-size 400 >/dev/null || fail "gen kv (other) failed"
start_sim sim --dataset golden.jsonl --dataset other.jsonl
run_args
common=(--lengths 1k --depths 0:100:50 --store-prompts --db t.db)
for r in a b; do
    "$DIPMAP" run "${RUN_ARGS[@]}" "${common[@]}" --run "$r" >"$r.out" 2>"$r.err" || fail "run $r: $(cat "$r.err")"
done
"$DIPMAP" run "${RUN_ARGS[@]}" "${common[@]}" --dataset other.jsonl --haystack other-hay.jsonl \
    --run c >c.out 2>c.err || fail "run c: $(cat c.err)"
[ "$(n_trials a)" = 12 ] && [ "$(n_trials b)" = 12 ] && [ "$(n_trials c)" = 9 ] || fail "setup: $(n_trials a) $(n_trials b) $(n_trials c)"
prompts0=$(q t.db "SELECT count(*) FROM prompts")
[ "$(q t.db "SELECT count(*) FROM golden_sets")" = 2 ] || fail "setup: two golden sets expected"

# no confirmation: stdin is not a terminal
expect_code 2 "$DIPMAP" rm --db t.db a </dev/null
assert_contains err "pass --yes"
[ "$(n_trials a)" = 12 ] || fail "rm without confirmation deleted trials"

# --dry-run lists, deletes nothing
expect_code 0 "$DIPMAP" rm --db t.db --dry-run a
assert_contains err "a: model dipmap-sim, complete, 12 trials stored"
[ "$(n_trials a)" = 12 ] || fail "--dry-run deleted trials"

# an unknown name among others: nothing is deleted
expect_code 2 "$DIPMAP" rm --db t.db --yes a nosuch
assert_contains err "no run named 'nosuch'"
[ "$(n_trials a)" = 12 ] || fail "a was deleted though another name was unknown"

# a and b share their prompts and golden set: deleting a keeps them for b
expect_code 0 "$DIPMAP" rm --db t.db --yes a
assert_contains out "deleted run 'a': 12 trials, 0 stored prompts, 0 golden sets"
[ "$(n_trials a)" = 0 ] || fail "a's trials are still there"
[ "$(q t.db "SELECT count(*) FROM runs WHERE name = 'a'")" = 0 ] || fail "a's row is still there"
[ "$(n_trials b)" = 12 ] && [ "$(n_trials c)" = 9 ] || fail "other runs lost trials: $(n_trials b) $(n_trials c)"
[ "$(q t.db "SELECT count(*) FROM prompts")" = "$prompts0" ] || fail "prompts b uses were deleted"
"$DIPMAP" report b --db t.db --out rb --format json --no-plots >/dev/null 2>rb.err || fail "report b: $(cat rb.err)"
"$DIPMAP" runs --db t.db --names >names.txt
[ "$(tr '\n' ' ' <names.txt)" = "b c " ] || fail "runs after rm: $(cat names.txt)"

# b was the last user of its prompts and golden set: they go, c's stay
cprompts=$(q t.db "SELECT count(DISTINCT prompt_sha256) FROM trials JOIN runs ON runs.id = trials.run_id WHERE runs.name = 'c'")
expect_code 0 "$DIPMAP" rm --db t.db -y b
assert_contains out "deleted run 'b': 12 trials, $((prompts0 - cprompts)) stored prompts, 1 golden set"
[ "$(q t.db "SELECT count(*) FROM prompts")" = "$cprompts" ] || fail "prompts left: $(q t.db "SELECT count(*) FROM prompts"), c uses $cprompts"
[ "$(q t.db "SELECT count(*) FROM golden_sets")" = 1 ] || fail "golden sets left: $(q t.db "SELECT count(*) FROM golden_sets")"
"$DIPMAP" report c --db t.db --out rc --format json --no-plots >/dev/null 2>rc.err || fail "report c: $(cat rc.err)"

# every table with a prompt_sha256 column is in rm's prompt collection (store_rm.c)
for t in $(q t.db "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'prompt_sha256'"); do
    grep -q "SELECT prompt_sha256 FROM $t WHERE" "$REPO/harness/store/store_rm.c" ||
        fail "table $t names prompts but dipmap rm's prompt_gc_sql does not look at it"
done

# a terminal's answer: n keeps the run, y deletes it
python3 - "$DIPMAP" <<'PY' || fail "confirmation on a terminal"
import os, pty, subprocess, sys
def ask(answer):
    m, s = pty.openpty()
    p = subprocess.Popen([sys.argv[1], "rm", "--db", "t.db", "c"], stdin=s,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.write(m, answer)
    out, err = p.communicate(timeout=120)
    os.close(m); os.close(s)
    return p.returncode, out.decode(), err.decode()
rc, out, err = ask(b"n\n")
assert rc == 0 and "delete this run? [y/N]" in err and "nothing deleted" in err, (rc, out, err)
assert subprocess.run(["sqlite3", "t.db", "SELECT count(*) FROM runs WHERE name='c'"],
                      capture_output=True, text=True).stdout.strip() == "1"
PY
[ "$(n_trials c)" = 9 ] || fail "'n' on the terminal deleted c"

# rename: trials follow, a taken or invalid name and an unknown run are refused
"$DIPMAP" run "${RUN_ARGS[@]}" "${common[@]}" --run b >b2.out 2>b2.err || fail "run b again: $(cat b2.err)"
expect_code 0 "$DIPMAP" rename --db t.db c c2
assert_contains out "renamed run 'c' to 'c2'"
[ "$(n_trials c2)" = 9 ] && [ "$(n_trials c)" = 0 ] || fail "trials did not follow the rename"
expect_code 2 "$DIPMAP" rename --db t.db c2 b
assert_contains err "a run named 'b' exists already"
[ "$(n_trials b)" = 12 ] && [ "$(n_trials c2)" = 9 ] || fail "a refused rename changed something"
expect_code 2 "$DIPMAP" rename --db t.db c2 "$(printf 'bad\tname')"
assert_contains err "invalid run name"
expect_code 2 "$DIPMAP" rename --db t.db nosuch x
assert_contains err "no run named 'nosuch'"
"$DIPMAP" report c2 --db t.db --out rc2 --format json --no-plots >/dev/null 2>rc2.err || fail "report c2: $(cat rc2.err)"
python3 -c 'import json,sys; sys.exit(json.load(open("rc2/summary.json"))["run"]["name"] != "c2")' || fail "the report does not name c2"

# a run in use by a live process is refused by both
start_sim slow --dataset golden.jsonl --latency-ms 30000
"$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl \
    --template "$REPO/prompts/kv.txt" --scorer kv --progress none --lengths 1k --depths 50 \
    --db t.db --run live >live.out 2>live.err &
live=$!
wait_for_query t.db "SELECT count(*) = 1 FROM locks JOIN runs ON runs.id = locks.run_id WHERE runs.name = 'live'" $live
expect_code 2 "$DIPMAP" rm --db t.db --yes live
assert_contains err "run 'live' is in use by pid $live"
expect_code 2 "$DIPMAP" rename --db t.db live other
assert_contains err "in use by pid $live"
kill -9 "$live"; wait "$live" 2>/dev/null
[ "$(q t.db "SELECT count(*) FROM runs WHERE name = 'live'")" = 1 ] || fail "the live run was deleted"
