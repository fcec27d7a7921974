# run --needle-tokens N sizes the gold chunk to exactly N tokens of the run's tokenizer
# (docs/effects.md "Needle size"): show-prompt --axes needle-tokens=N renders what run sends. For
# needle questions (one-sentence gold, books haystack) and NQ questions (a passage whose own
# haystack chunk has neighbours in file order), at sizes under and over the chunk's own length:
# the gold's text (its line of the prompt) counts exactly N tokens (dipmap tokenize), holds the
# answer sentence byte for byte and occurs once; a size under the chunk is a contiguous piece of
# the chunk's own text (trimmed around the answer sentence); a size over it is padded with the
# haystack text next to the gold's chunk in file order (NQ question 2's padding starts with its
# file neighbour nq-0001-p's text). The whole prompt keeps its exact length (realized = target).
# Without the axis the gold is the chunk as written and these counts fail.
. "$TESTS/cli/lib/lib.sh"
head -n 5 "$REPO/datasets/needle.jsonl" >needle.jsonl
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 5 >nq.jsonl
check() { # set template haystack question size
    "$DIPMAP" show-prompt --dataset "$1" --template "$2" --haystack "$3" --question "$4" \
        --length 2k --depth 50 --axes "needle-tokens=$5" --json >"p-$4-$5.json" 2>"e-$4-$5" ||
        fail "show-prompt $4 needle-tokens=$5: $(cat "e-$4-$5")"
    python3 - "$1" "$4" "$5" <<'PY' || fail "the gold of $4 at needle-tokens=$5 is not as sized (above)"
import json, re, sys
ds, qid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
q = next(json.loads(l) for l in open(ds) if json.loads(l)["id"] == qid)
user = json.load(open(f"p-{qid}-{n}.json"))["messages"][-1]["content"]
gold = q["gold"][0]["text"]
lines = [l for l in user.split("\n") if any(a in l for a in q["answers"])]
assert len(lines) == 1, (qid, n, lines)
title = re.escape(q["gold"][0].get("title", ""))
text = re.sub(r"^Document \[\d+\] \(Title: " + title + r"\) ", "", lines[0])
open("gold.txt", "w").write(text)
# the answer sentence: the gold's sentence holding the first answer
a = q["answers"][0]
i = gold.index(a)
s = max(gold.rfind(". ", 0, i) + 2, 0) if gold.rfind(". ", 0, i) >= 0 else 0
e = gold.find(". ", i)
sent = gold[s:e + 1] if e >= 0 else gold[s:]
assert sent in text, (qid, n, sent, text)
assert user.count(sent) == 1, (qid, n)
open("kind", "w").write("trim" if text in gold else "pad")
PY
    got=$("$DIPMAP" tokenize --tokenizer cl100k_base gold.txt) || fail "tokenize"
    [ "$got" = "$5" ] || fail "$4 at needle-tokens=$5: the gold counts $got tokens"
    echo "$4 $5 $(cat kind) $got"
}
for n in 24 64 256; do
    check needle.jsonl needle books-haystack needle-0001 "$n"
done
[ "$(check needle.jsonl needle books-haystack needle-0002 24 | cut -d' ' -f3)" = pad ] ||
    fail "a one-sentence needle at 24 tokens is not padded"
for n in 64 128 512; do
    for q in nq-0001 nq-0002 nq-0004; do check nq.jsonl qa nq-haystack "$q" "$n"; done
done >sizes
cat sizes
grep -q "^nq-0001 64 trim" sizes || fail "NQ question 1 at 64 tokens is not its passage trimmed"
grep -q "^nq-0002 512 pad" sizes || fail "NQ question 2 at 512 tokens is not padded"
python3 - <<'PY' || fail "the padding is not the haystack text next to the gold's chunk (above)"
import gzip, json, os, re
hay = [json.loads(l) for l in gzip.open(os.environ["REPO"] + "/datasets/nq-haystack.jsonl.gz", "rt")]
ids = [c["id"] for c in hay]
prev = hay[ids.index("nq-0002-p") - 1]
user = json.load(open("p-nq-0002-512.json"))["messages"][-1]["content"]
line = next(l for l in user.split("\n") if "May 18, 2018" in l)
body = re.sub(r"^Document \[\d+\] \(Title: Deadpool 2\) ", "", line)
before = body.split(" Deadpool 2 is scheduled")[0]
assert before and " ".join(prev["text"].split()).endswith(before), (prev["id"], body[:200])
PY
# the prompt as a whole keeps its exact length
"$DIPMAP" show-prompt --dataset nq.jsonl --haystack nq-haystack --question nq-0002 --length 2k \
    --axes needle-tokens=512 >shown 2>&1 || fail "show-prompt"
grep -q "^# question nq-0002, length 2048 (realized 2048, +0.00%)" shown ||
    fail "the prompt with a 512-token gold is not 2048 tokens: $(head -n 1 shown)"
