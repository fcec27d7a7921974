# The layouts are one table (prompt/layout.h PROMPT_LAYOUT_ROWS): run --layout's help, its
# unknown-value error and show-prompt's refusal of an unknown layout name the same layouts, in
# the same order, each once; the help describes each; and every layout named is one that run
# (--dry-run) and show-prompt accept.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
D=$REPO/tests/data/old-store
SHOW=(show-prompt --dataset "$D/golden.jsonl" --haystack "$D/hay.jsonl" --tokenizer "$TK"
    --length 1k)
start_sim sim --dataset "$D/golden.jsonl" --tokenizer "$TK" --chat-template chatml
RUN=(run --endpoint "$SIM_URL" --model dipmap-sim --dataset "$D/golden.jsonl"
    --haystack "$D/hay.jsonl" --tokenizer "$TK" --lengths 1k --depths 0 --db s.db --dry-run)

# run's unknown-value error: "(one of documents, chat, ...)"
expect_code 2 "$DIPMAP" "${RUN[@]}" --layout bogus
run_list=$(sed -n "s/.*--layout: unknown value 'bogus' (one of \(.*\))$/\1/p" err | tr -d ,)
[ -n "$run_list" ] || fail "run's error does not list the layouts: $(cat err)"

# show-prompt's refusal: "is not one of documents chat ..."
expect_code 2 "$DIPMAP" "${SHOW[@]}" --axes 'layout=bogus'
show_list=$(sed -n "s/.*layout 'bogus' is not one of \(.*\)$/\1/p" err)
[ "$show_list" = "$run_list" ] || fail "show-prompt lists '$show_list', run '$run_list'"

# the help: "--layout LIST ... NAME (what), NAME (what), ..." naming exactly those, in order
"$DIPMAP" run --help >help || fail "run --help failed"
help=$(grep -- '--layout LIST' help)
help_list=$(printf '%s\n' "$help" | grep -oE '[a-z-]+ \([^)]*\),' | sed 's/ (.*//' | tr '\n' ' ')
[ "${help_list% }" = "$run_list" ] || fail "the help lists '${help_list% }', run '$run_list'"

n=0
for l in $run_list; do
    n=$((n + 1))
    expect_code 0 "$DIPMAP" "${RUN[@]}" --layout "$l"
    expect_code 0 "$DIPMAP" "${SHOW[@]}" --axes "layout=$l"
done
[ "$n" -ge 4 ] || fail "only $n layouts: $run_list"
echo ok
