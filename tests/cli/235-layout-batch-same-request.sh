# --layout through --batch sends what online sends: for every layout (documents, chat, tools,
# tool-long), a --batch run's request for each trial key is byte for
# byte the online run's (the stored request and prompt hashes are equal), the server counts the
# same prompt tokens (its log and usage.prompt_tokens: the run's count, not the 80 tokens of a
# system + user request that left the conversation out), the gold sits at the same place in
# what the server received, and --store-prompts stores the batch run's prompts too.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
make_kv 3
start_sim sim --dataset golden.jsonl --tokenizer "$TK" --chat-template chatml
run_args
ARGS=("${RUN_ARGS[@]}" --tokenizer "$TK" --lengths 1k --depths 0,50,100 --db t.db --store-prompts
    --layout documents,chat,tools,tool-long)
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --run on
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --run b --batch --batch-poll 0.05
assert_contains out "run b: complete"
[ "$(n_trials b)" = 36 ] || fail "expected 36 batch trials, got $(n_trials b)"
# the same request, prompt and server count per trial key
same=$(q t.db "select count(*) from trials a join runs ra on ra.id = a.run_id and ra.name = 'b'
    join trials o on o.question_id = a.question_id and o.length = a.length and o.depth_bp = a.depth_bp
      and o.repeat = a.repeat and o.axes = a.axes
    join runs ro on ro.id = o.run_id and ro.name = 'on'
    where a.request_sha256 = o.request_sha256 and a.prompt_sha256 = o.prompt_sha256
      and a.usage_prompt_tokens = o.usage_prompt_tokens and a.realized_length = o.realized_length")
[ "$same" = 36 ] || fail "only $same of 36 batch requests are the online ones"
[ "$(n_trials b "t.usage_prompt_tokens <> t.realized_length")" = 0 ] ||
    fail "the server counted batch prompts differently: $(q t.db "select axes, usage_prompt_tokens, realized_length from trials where usage_prompt_tokens <> realized_length limit 5")"
# every batch trial's prompt is stored
[ "$(n_trials b "t.prompt_sha256 in (select sha256 from prompts)")" = 36 ] ||
    fail "--store-prompts stored $(n_trials b "t.prompt_sha256 in (select sha256 from prompts)") of 36 batch prompts"
# what the server received: the same tokens and gold place per trial, online and batch
python3 - <<'PY' || fail "the server saw other prompts through the batch API"
import json
on, b = [], []
for l in open("sim.log"):
    o = json.loads(l)
    if o["route"] == "batch":
        b.append((o["question_id"], o["T"], round(o["x"], 9)))
    elif "completions" in o["route"]:
        on.append((o["question_id"], o["T"], round(o["x"], 9)))
from collections import Counter
assert len(b) == 36 and not Counter(b) - Counter(on), (len(on), len(b), Counter(b) - Counter(on))
PY
echo ok
