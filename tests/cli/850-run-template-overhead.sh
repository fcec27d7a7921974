# run measures the tokens the server adds per request (never guesses them) through the route the
# server has -- vLLM /tokenize with messages, llama.cpp /apply-template + /tokenize, else a probe
# request -- builds content + overhead = length, stores the overhead with the run and shows it
# in the report; every prompt is at most the length and (>= 95%) exactly it as the server counts
# it, and nothing is flagged as a tokenizer mismatch at --lengths 512 with the exact tokenizer.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 6 --seed 3 --out golden.jsonl >/dev/null || fail "gen needle"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
n=0
for api in vllm:vllm-tokenize llamacpp:llamacpp-apply-template none:probe; do
    n=$((n + 1))
    start_sim "s$n" --dataset golden.jsonl --chat-template chatml --template-overhead 2 \
        --tokenize-api "${api%%:*}"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
        --haystack "$HAY" --template needle --lengths 512,2k --depths 0:100:25 --progress none \
        --db t.db --run "r$n"
    assert_contains err "template overhead: "
    assert_contains err "tokens per request (${api#*:}: the server counts "
    assert_not_contains err "mismatch"
    assert_not_contains out "mismatch"
    ov=$(sed -n 's/.*template overhead: \([0-9]*\) tokens per request.*/\1/p' err)
    [ "$ov" -gt 20 ] || fail "$api: overhead '$ov' (chatml markup for two messages + 2)"
    [ "$(q t.db "select json_extract(settings_json, '$.\"template-overhead\"') from runs where name='r$n'")" = "$ov" ] ||
        fail "$api: overhead not stored with the run"
    # what the server counted is what the run built: never above the length, exact in >= 95%
    [ "$(n_trials "r$n" "(t.realized_length > t.length or t.usage_prompt_tokens <> t.realized_length)")" = 0 ] ||
        fail "$api: $(q t.db "select length, realized_length, usage_prompt_tokens from trials t join runs r on r.id = t.run_id where r.name='r$n'")"
    exact=$(n_trials "r$n" "t.realized_length = t.length")
    [ $((exact * 100)) -ge $((60 * 95)) ] || fail "$api: only $exact of 60 prompts exactly on target"
    [ "$(n_trials "r$n" "outcome in ('correct','wrong')")" = 60 ] ||
        fail "$api: every trial should be scored"
done
# a resume measures the overhead again (issue 43: a stored one may never have been measured),
# finds the stored one and keeps the trials (a differing one refuses the resume: test 407)
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --template needle --lengths 512,2k --depths 0:100:25 --progress none \
    --db t.db --run r3
assert_contains err "template overhead: $ov tokens per request (probe: the server counts "
assert_contains err "; measured again, as stored with the run)"
assert_contains out "trials: 60 of 60 done (0 this time, 60 kept from before)"
# given by hand: a different value is a different run
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --template needle --lengths 512,2k --depths 0:100:25 --progress none \
    --db t.db --run r3 --template-overhead 5
assert_contains err "setting \"template-overhead\" was $ov, now 5"
expect_code 2 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --template-overhead lots
assert_contains err "--template-overhead must be auto or a token count"
# the report shows it
expect_code 0 "$DIPMAP" report r1 --db t.db --out rep --format md --no-plots
grep -rq "template-overhead" rep || fail "the report does not show the template overhead"
# show-prompt prints the target and the realized length with the overhead
expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" --template needle \
    --length 512 --template-overhead "$ov"
assert_contains out "# length: target 512, realized 512 = content $((512 - ov)) + template overhead $ov"
