# compare refuses two runs that sent other prompts for the same trials though their inputs and
# settings say they are one experiment: tests/data/old-store holds an online run and a --batch
# run of --layout documents,chat written by an older dipmap whose batch path sent chat-layout
# trials as one system and one user message (their identities are equal); compare names the
# differing trial keys and exits 4 (--allow-different-inputs compares them anyway, with a
# warning: 3 questions are an inconclusive verdict, exit 4 too). The old online run against a batch run of the current binary is comparable.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
cp "$REPO"/tests/data/old-store/{old.db,golden.jsonl,hay.jsonl} .
chmod u+w old.db
expect_code 4 "$DIPMAP" compare online batch --db old.db
assert_contains err "runs 'online' and 'batch' are not comparable: they sent other prompts for the same trials: 6 of 12 shared trial keys (first kv-0001|1024|0|0|layout=chat"
expect_code 4 "$DIPMAP" compare online batch --db old.db --allow-different-inputs
assert_contains err "warning: comparing runs that sent other prompts"
assert_contains out "models: baseline online (dipmap-sim), candidate batch (dipmap-sim)"
# comparable (3 questions: the verdict itself is inconclusive)
comparable() {
    "$DIPMAP" compare "$@" >out 2>err
    grep -q "not comparable" err && fail "compare $*: $(cat err)"
    assert_contains out "## dipmap compare: "
}
comparable online partial --db old.db
start_sim sim --dataset golden.jsonl --tokenizer "$TK" --chat-template chatml
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --tokenizer "$TK" --lengths 1k --depths 0,100 --layout documents,chat --db old.db \
    --run batch2 --batch --batch-poll 0.05
# the current binary builds the kv chat prompts exactly at the target where the older one went
# over (prompt_fit.c): its batch run is refused against the older online run, and comparable
# with an online run of its own
expect_code 4 "$DIPMAP" compare online batch2 --db old.db
assert_contains err "they sent other prompts for the same trials"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack hay.jsonl --template "$REPO/prompts/kv.txt" --scorer kv --progress none \
    --tokenizer "$TK" --lengths 1k --depths 0,100 --layout documents,chat --db old.db \
    --run online2
comparable online2 batch2 --db old.db
echo ok
