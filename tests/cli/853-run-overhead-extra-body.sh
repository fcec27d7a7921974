# The template overhead is measured on the request that is sent: --extra-body
# '{"chat_template_kwargs":{"enable_thinking":false}}' makes serve-sim's chatml template render an
# empty think block (as Qwen3's does), and each counting route (vLLM /tokenize, llama.cpp
# /apply-template, the probe) must carry it, so the measured overhead grows by that block and
# every prompt the server counts is still exactly the length the run built.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 4 --seed 3 --out golden.jsonl >/dev/null || fail "gen needle"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
kw='{"chat_template_kwargs":{"enable_thinking":false}}'
n=0
for api in vllm llamacpp none; do
    n=$((n + 1))
    start_sim "s$n" --dataset golden.jsonl --chat-template chatml --tokenize-api "$api"
    ov=()
    for body in '' "$kw"; do
        expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
            --haystack "$HAY" --template needle --lengths 512 --depths 0,100 --progress none \
            --db t.db --run "r$n-${#body}" ${body:+--extra-body "$body"}
        ov+=("$(sed -n 's/.*template overhead: \([0-9]*\) tokens per request.*/\1/p' err)")
        assert_not_contains err "mismatch"
        bad=$(n_trials "r$n-${#body}" "(t.usage_prompt_tokens <> t.realized_length or t.realized_length > t.length)")
        [ "$bad" = 0 ] || fail "$api ${body:-no body}: $bad prompts counted differently by the server: $(q t.db "select realized_length, usage_prompt_tokens from trials t join runs r on r.id = t.run_id where r.name='r$n-${#body}'")"
    done
    # "<think>\n\n</think>\n\n" is several tokens more in the rendered template
    [ "${ov[1]}" -gt "${ov[0]}" ] || fail "$api: overhead with enable_thinking false ${ov[1]}, without ${ov[0]}"
done
