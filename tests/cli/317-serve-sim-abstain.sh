# serve-sim's abstention (run --absent) over HTTP: a prompt that says "not in the documents"
# without the question's gold chunk is answered "The answer is not in the documents." (halluc=0)
# or with the question's first answer (halluc=1, a hallucination); with the gold present, deny=1
# abstains and deny=0 answers from the gold; a prompt that never says the phrase keeps the old
# "I don't know". The log names each outcome; a knob outside [0,1] is refused at start.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 4, negatives=False)'
expect_code 2 "$DIPMAP" serve-sim --port 0 --dataset ds.jsonl --model m:halluc=2
assert_contains err "halluc must be a number in [0,1]"
start_sim sim --dataset ds.jsonl --model told:halluc=0,deny=0 --model liar:halluc=1 \
    --model denier:deny=1,edge=1,dip=0 --model plain:edge=1,dip=0 --log log.jsonl
pylib - "$SIM_PORT" <<'PY' || exit 1
import sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
TOLD = "If the documents do not contain the answer, say: not in the documents."
def ask(model, i, gold, told):
    docs = "Document [1] " + sc.filler(__import__("random").Random(i), 80)
    if gold:
        docs += "\nDocument [2] " + sc.gold_text(i)
    text = docs + "\n\n" + (TOLD + "\n\n" if told else "") + "Question: " + sc.question(i)
    r = sc.chat(port, text, model=model)
    check(r.status == 200, "%s: %r" % (model, r))
    return sc.content_of(r)
ABSTAIN = "The answer is not in the documents."
check(ask("told", 0, False, True) == ABSTAIN, "a told model does not abstain on an absent gold")
check(ask("liar", 1, False, True) == "PASS-1-OK", "halluc=1 does not answer the absent gold")
check(ask("denier", 2, True, True) == ABSTAIN, "deny=1 does not abstain on a present gold")
check(ask("plain", 2, True, True) == "PASS-2-OK", "deny=0 abstains on a present gold")
check(ask("liar", 3, False, False) == "I don't know", "a prompt without the phrase changed its answer")
outs = [e.get("outcome") for e in sc.read_log("log.jsonl") if "outcome" in e]
check(outs == ["abstained", "hallucinated", "denied", "correct", "idk"], "log outcomes %r" % outs)
PY
