# The context check counts what the model sees: with a chat template adding tokens per request,
# --lengths 8192 --max-tokens 256 against a context of 8448 fits exactly (lengths hold the
# template's tokens, so no prompt overflows a context the check passed); a context of 8400 is
# refused before anything is sent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 4 --seed 5 --out golden.jsonl >/dev/null || fail "gen needle"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
start_sim sim --dataset golden.jsonl --chat-template chatml --template-overhead 1 --ctx 8448
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --template needle --lengths 8192 --depths 0:100:50 --max-tokens 256 \
    --progress none --db t.db --run fits
assert_contains out "run fits: complete"
assert_contains out "overflow 0"
[ "$(q t.db "select count(*) from trials where outcome in ('correct','wrong')")" = 12 ] ||
    fail "every trial should be scored: $(q t.db "select outcome, error from trials")"
[ "$(q t.db "select max(usage_prompt_tokens) from trials")" = 8192 ] ||
    fail "the server saw more than the length: $(q t.db "select usage_prompt_tokens from trials")"
grep -q '"outcome":"overflow"' sim.log && fail "a prompt overflowed the context"

start_sim small --dataset golden.jsonl --chat-template chatml --ctx 8400
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --template needle --lengths 8192 --depths 0:100:50 --max-tokens 256 \
    --progress none --db t.db --run refused
assert_contains err "length 8192 plus --max-tokens 256 needs 8448 tokens, but the server's context is 8400"
grep -q '"route":"/v1/chat/completions"' small.log && fail "a request was sent"
[ "$(q t.db "select count(*) from runs where name='refused'")" = 0 ] || fail "a refused run was stored"
