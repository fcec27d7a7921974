# run --questions N maps only the first N questions of an order fixed by --seed; the same run
# with a larger N adds questions and sends only the new questions' trials (dipmap gate's rounds);
# another seed orders them differently; without the option every question is mapped.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 12
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db t.db --run r \
    --seed 3 --questions 4
[ "$(q t.db "select count(distinct question_id) from trials")" = 4 ] || fail "expected 4 questions"
[ "$(q t.db "select count(*) from trials")" = 12 ] || fail "expected 12 trials"
assert_contains out "run r: complete"
first=$(q t.db "select distinct question_id from trials order by 1" | tr '\n' ' ')
[ "$(grep -c '/chat/completions' sim.log)" = 12 ] || fail "expected 12 requests"
# a larger N resumes the run: the 4 stay, 3 more are added, only their 9 trials are sent
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db t.db --run r \
    --seed 3 --questions 7
[ "$(q t.db "select count(distinct question_id) from trials")" = 7 ] || fail "expected 7 questions"
[ "$(grep -c '/chat/completions' sim.log)" = 21 ] || fail "expected 9 more requests"
for qid in $first; do
    [ "$(q t.db "select count(*) from trials where question_id = '$qid'")" = 3 ] ||
        fail "question $qid of the first round is gone"
done
assert_contains out "12 kept from before"
[ "$(q t.db "select trials_planned from runs where name = 'r'")" = 21 ] || fail "planned not 21"
# the order depends on the seed (and not on the file's order)
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --db t.db --run s \
    --seed 4 --questions 4
other=$(q t.db "select distinct question_id from trials t join runs r on r.id = t.run_id where r.name = 's' order by 1" | tr '\n' ' ')
[ "$other" != "$first" ] || fail "seeds 3 and 4 picked the same questions: $first"
tac golden.jsonl >rev.jsonl
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset rev.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --lengths 1k --depths 0:100:50 --db rev.db --run r --seed 3 --questions 4
[ "$(q rev.db "select distinct question_id from trials order by 1" | tr '\n' ' ')" = "$first" ] ||
    fail "the order changed with the file's order"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --db t.db --run x --questions -1
assert_contains err "questions"
