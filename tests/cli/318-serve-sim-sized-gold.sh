# serve-sim finds a gold chunk that run --needle-tokens trimmed (docs/effects.md "Needle size"):
# not its whole text but the sentence of the question's first gold chunk that states the answer
# (prompt/needle_size.h, the builder's own rule). A prompt holding only that sentence and a few
# words of the chunk is answered as a prompt with its gold ("gold": true in the log, x at the
# sentence, the answer when drawn correct) and logs gold_tokens, the tokens of the line that
# holds it (dipmap tokenize's count of that line); a prompt whose sentence states another
# value has no gold ("gold": false, never correct). Before serve-sim knew the rule a trimmed
# gold read as absent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
cat >g.jsonl <<'J'
{"id": "obs", "question": "What is the vault code of the Ulverholm observatory?", "answers": ["4887095"], "gold": [{"id": "obs-g", "title": "", "text": "The Ulverholm observatory was built by monks in 1901. Its vault code is 4887095, set by the last abbot. Snow closes the road each winter."}]}
J
start_sim sim --dataset g.jsonl --model m:edge=1,dip=0,seed=3
line="Its vault code is 4887095, set by the last abbot. Snow closes"
printf '%s' "$line" >line.txt
send() { # the line in the middle of a text, then the question
    python3 - "$1" >body.json <<'PY'
import json, sys
text = "Filler about the weather.\n" * 30 + sys.argv[1] + "\n" + "More filler about rivers.\n" * 30
q = "What is the vault code of the Ulverholm observatory?"
print(json.dumps({"model": "m", "max_tokens": 16, "messages": [
    {"role": "user", "content": "<text>\n" + text + "</text>\n\n" + q}]}))
PY
    curl -sS -H 'content-type: application/json' --data @body.json "$SIM_URL/v1/chat/completions" >reply.json ||
        fail "serve-sim did not answer"
}
send "$line"
grep -q '4887095' reply.json || fail "a trimmed gold was not answered: $(cat reply.json)"
want=$("$DIPMAP" tokenize --tokenizer cl100k_base line.txt)
python3 - "$want" <<'PY' || fail "serve-sim's log does not show the trimmed gold found (above)"
import json, sys
o = [json.loads(l) for l in open("sim.log") if json.loads(l).get("question_id")][-1]
assert o["question_id"] == "obs" and o["gold"] is True, o
assert o["gold_tokens"] == int(sys.argv[1]), (o.get("gold_tokens"), sys.argv[1])
assert 0.3 < o["x"] < 0.7, o["x"]
PY
send "Its vault code is 1234567, set by the last abbot. Snow closes"
python3 - <<'PY' || fail "a sentence stating another value was taken for the gold (above)"
import json
o = [json.loads(l) for l in open("sim.log") if json.loads(l).get("question_id")][-1]
assert o["gold"] is False and "gold_tokens" not in o and o["p"] == 0, o
PY
grep -q 4887095 reply.json && fail "answered without its gold: $(cat reply.json)"
exit 0
