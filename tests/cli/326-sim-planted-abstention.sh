# serve-sim plants the abstention rates: over 600 prompts that say "not in the documents", a
# model with halluc=0.25 answers (hallucinates) about a quarter of those without the gold and
# one with deny=0.2 abstains on about a fifth of those with it, each inside a binomial band of
# 4.5 standard errors; the draws are deterministic (the same prompt, the same answer); with the
# knobs at 0 not one prompt hallucinates or denies.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 600, negatives=False)'
start_sim sim --dataset ds.jsonl --model planted:halluc=0.25,deny=0.2,edge=1,dip=0 \
    --model off:edge=1,dip=0 --log log.jsonl
pylib - "$SIM_PORT" <<'PY' || exit 1
import math, random, sys, simclient as sc
from simclient import check
port = int(sys.argv[1])
TOLD = "If the documents do not contain the answer, say: not in the documents."
ABSTAIN = "The answer is not in the documents."
def ask(job):
    model, i, gold = job
    docs = "Document [1] " + sc.filler(random.Random(i), 120)
    if gold:
        docs += "\nDocument [2] " + sc.gold_text(i)
    r = sc.chat(port, docs + "\n\n" + TOLD + "\n\nQuestion: " + sc.question(i), model=model)
    check(r.status == 200, repr(r))
    return sc.content_of(r)
N = 600
def rate(model, gold):
    answers = sc.parallel(ask, [(model, i, gold) for i in range(N)])
    return sum((a != ABSTAIN) if not gold else (a == ABSTAIN) for a in answers) / N, answers
for want, gold in ((0.25, False), (0.2, True)):
    got, answers = rate("planted", gold)
    band = 4.5 * math.sqrt(want * (1 - want) / N)
    check(abs(got - want) <= band, "planted %.2f, measured %.3f (band %.3f)" % (want, got, band))
    again = sc.parallel(ask, [("planted", i, gold) for i in range(N)])
    check(again == answers, "the draws are not deterministic")
    off, _ = rate("off", gold)
    check(off == 0, "with the knobs off %.3f of the prompts %s" % (off, "denied" if gold else "hallucinated"))
PY
