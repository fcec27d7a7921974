# A store written by an older dipmap (tests/data/old-store: schema 11, an identity that named
# every layout's turn overhead) still resumes: its budget-stopped --layout documents,chat run
# completes with the current binary, keeps its 3 trials, and every prompt the current binary
# sends for a --layout documents trial key is the one the older binary sent (the prompt hashes
# of its complete online run); its chat prompts, which the older binary built over the target
# (1045-1046 tokens for 1k with the kv template) or by the fit before its fixes, are now exactly
# the target. A new run's identity names only the layouts it uses.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
cp "$REPO"/tests/data/old-store/{old.db,golden.jsonl,hay.jsonl} .
chmod u+w old.db
start_sim sim --dataset golden.jsonl --tokenizer "$TK" --chat-template chatml
ARGS=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
    --template "$REPO/prompts/kv.txt" --scorer kv --progress none --tokenizer "$TK" --lengths 1k
    --depths 0,100 --layout documents,chat --db old.db --price-in 2 --price-out 4)
old=$(q old.db "select max(finished_at) from trials")
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --run partial --max-cost 1
assert_contains out "run partial: complete"
[ "$(n_trials partial "1" old.db)" = 12 ] || fail "expected 12 trials"
same=$(q old.db "select count(*) from trials a join runs ra on ra.id = a.run_id and ra.name = 'partial'
    join trials o on o.question_id = a.question_id and o.depth_bp = a.depth_bp and o.axes = a.axes
    join runs ro on ro.id = o.run_id and ro.name = 'online'
    where a.axes = 'layout=documents' and a.prompt_sha256 = o.prompt_sha256
    and a.realized_length = o.realized_length")
[ "$same" = 6 ] || fail "only $same of 6 documents-layout prompts are the older binary's"
exact=$(q old.db "select count(*) from trials a join runs ra on ra.id = a.run_id and ra.name = 'partial'
    where a.realized_length = a.length and a.finished_at > '$old'")
[ "$exact" = 9 ] || fail "$exact of the 9 trials the resume sent are exactly the target"
# the older binary's 3 trials are kept as they were
[ "$(q old.db "select count(*) from trials t join runs r on r.id = t.run_id where r.name = 'partial' and t.finished_at <= '$old'")" = 3 ] ||
    fail "the older trials were not kept"
# a new run names only the layouts it uses
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --run new
s=$(q old.db "select settings_json from runs where name = 'new'")
case $s in *'"turn-overhead":{"chat":10}'*) ;; *) fail "the identity names other layouts: $s" ;; esac
echo ok
