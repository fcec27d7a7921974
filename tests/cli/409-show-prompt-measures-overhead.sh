# show-prompt --tokenizer server measures the template overhead as run does (one function,
# overhead_measure_question) when --template-overhead is not given: its prompt is the run's,
# at the length the server counts (issue 43 item 13: it printed "template overhead 0" and
# "realized 4096" where the server counted 4111). With a local tokenizer and no
# --template-overhead it says the overhead is not measured; a given one is said to be given.
# Against a server that wants a key, show-prompt and tokenize send --api-key-env's key.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 2 --seed 3 --out golden.jsonl >/dev/null || fail "gen needle"
HAY="$REPO/datasets/nq-haystack.jsonl.gz"
start_sim sim --dataset golden.jsonl --template-overhead 15
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl \
    --haystack "$HAY" --template needle --lengths 1k --depths 50 --tokenizer server \
    --progress none --db t.db --run r
ov=$(sed -n 's/.*template overhead: \([0-9]*\) tokens per request.*/\1/p' err)
[ "$ov" -ge 15 ] || fail "the run measured '$ov'"
q1=$(q t.db "select question_id from trials order by question_id limit 1")
served=$(q t.db "select usage_prompt_tokens from trials where question_id = '$q1'")
[ "$served" = 1024 ] || fail "the server counted $served for the run's prompt"
sha=$(q t.db "select prompt_sha256 from trials where question_id = '$q1'")
expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" --template needle \
    --length 1k --depth 50 --tokenizer server --endpoint "$SIM_URL" --model dipmap-sim \
    --question "$q1"
assert_contains out "# length: target 1024, realized 1024 = content $((1024 - ov)) + template overhead $ov (measured as run measures it, "
assert_contains out "# prompt_sha256 $sha "
# what the server counts for the shown request is the target
python3 - "$SIM_URL" out <<'PY' || fail "the server counts another length for show-prompt's request"
import json, sys, urllib.request
text = open(sys.argv[2]).read()
system = text.split("=== system ===\n", 1)[1].split("\n=== user ===\n", 1)[0] if "=== system ===" in text else None
user = text.split("=== user ===\n", 1)[1][:-1]
msgs = ([{"role": "system", "content": system}] if system is not None else []) + [{"role": "user", "content": user}]
req = urllib.request.Request(sys.argv[1] + "/tokenize", json.dumps({"model": "dipmap-sim", "messages": msgs, "add_generation_prompt": True}).encode(), {"Content-Type": "application/json"})
n = json.load(urllib.request.urlopen(req))["count"]
assert n == 1024, n
PY
# a local tokenizer, no --template-overhead: said to be not measured
expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" --template needle \
    --length 1k --depth 50 --question "$q1"
assert_contains out "+ template overhead 0 (not measured: give --template-overhead N as the run measured it, or --tokenizer server --endpoint URL --model NAME)"
expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" --template needle \
    --length 1k --depth 50 --question "$q1" --template-overhead 7
assert_contains out "= content 1017 + template overhead 7 (given)"

# a server that wants a key: show-prompt and tokenize --tokenizer server send the key of
# --api-key-env (default OPENAI_API_KEY) as run does; without it the server's 401 is the error
start_sim keyed --dataset golden.jsonl --template-overhead 15 --api-key sk-sim-key-409-abcdef
OPENAI_API_KEY= expect_code 2 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack "$HAY" \
    --template needle --length 1k --depth 50 --tokenizer server --endpoint "$SIM_URL" \
    --model dipmap-sim --question "$q1"
assert_contains err "HTTP 401"
OPENAI_API_KEY=sk-sim-key-409-abcdef expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl \
    --haystack "$HAY" --template needle --length 1k --depth 50 --tokenizer server \
    --endpoint "$SIM_URL" --model dipmap-sim --question "$q1"
assert_contains out "# prompt_sha256 $sha "
MY_KEY=sk-sim-key-409-abcdef expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl \
    --haystack "$HAY" --template needle --length 1k --depth 50 --tokenizer server \
    --endpoint "$SIM_URL" --model dipmap-sim --question "$q1" --api-key-env MY_KEY
assert_contains out "# prompt_sha256 $sha "
assert_not_contains out sk-sim-key-409
echo "hello world" >hw.txt
OPENAI_API_KEY= expect_code 2 "$DIPMAP" tokenize --tokenizer server --endpoint "$SIM_URL" hw.txt
assert_contains err "HTTP 401"
OPENAI_API_KEY=sk-sim-key-409-abcdef expect_code 0 "$DIPMAP" tokenize --tokenizer server \
    --endpoint "$SIM_URL" hw.txt
[ "$(cat out)" = 3 ] || fail "tokenize through the keyed server: '$(cat out)'"
