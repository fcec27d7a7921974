# serve-sim's size=E plants "a smaller gold is harder, and its dip deeper" (docs/effects.md
# "Needle size"): E * s(g) * (1 + w(x)) / 2 off the model's p, s(g) = clamp(log2(256/g)/4, 0, 1)
# of the tokens g of the line that holds the gold, w(x) = 1 - |2x - 1|^shape the dip's shape at
# the gold. Two servers with the same seed, one with size=0.4, answer the same prompts of a
# --needle-tokens 16,24,64,256,400 run (needle template: the gold's line is the sized text, so
# g = the size): for every prompt the p's differ by exactly that amount -- E at 16 tokens in
# the middle, E/2 at an edge, 0 from 256 tokens up -- and with size=0 not at all. The key is
# validated.
# sanitizers: skip: a statistical check of a planted effect; 320 runs serve-sim's plants
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
cat >g.jsonl <<'J'
{"id": "q1", "question": "What is the code of the Ulm vault?", "answers": ["4887"], "gold": [{"id": "q1-g", "title": "", "text": "The code of the Ulm vault is 4887."}]}
{"id": "q2", "question": "What is the code of the Oslo vault?", "answers": ["5521"], "gold": [{"id": "q2-g", "title": "", "text": "The code of the Oslo vault is 5521."}]}
J
args=(--model m --dataset g.jsonl --template needle --haystack "$REPO/datasets/books-haystack.jsonl.gz"
    --lengths 2k --depths 0:100:25 --needle-tokens 16,24,64,256,400 --progress none)
start_sim base --dataset g.jsonl --model m:edge=0.95,dip=0.3,flat=1,seed=5
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db base.db --run r
start_sim small --dataset g.jsonl --model m:edge=0.95,dip=0.3,flat=1,seed=5,size=0.4
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db small.db --run r
start_sim zero --dataset g.jsonl --model m:edge=0.95,dip=0.3,flat=1,seed=5,size=0
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db zero.db --run r
python3 - <<'PY' || fail "serve-sim's size=E is not the planted amount (above)"
import json, math
E, SHAPE = 0.4, 1.6
def load(path):
    out = {}
    for l in open(path):
        o = json.loads(l)
        if o.get("p", -1) >= 0:
            out[(o["question_id"], o["x"], o["T"], o["gold_tokens"])] = o["p"]
    return out
base, small, zero = load("base.log"), load("small.log"), load("zero.log")
assert sorted(base) == sorted(small) == sorted(zero) and len(base) == 2 * 5 * 5, len(base)
assert sorted({k[3] for k in base}) == [16, 24, 64, 256, 400], sorted({k[3] for k in base})
seen = {}
for k, p in base.items():
    g, x = k[3], k[1]
    s = min(1.0, max(0.0, math.log2(256 / g) / 4))
    want = E * s * (1 + (1 - abs(2 * x - 1) ** SHAPE)) / 2
    assert abs((p - small[k]) - want) < 1e-9, (k, p, small[k], want)
    assert zero[k] == p, (k, p, zero[k])
    seen[g] = max(seen.get(g, 0), p - small[k])
print("largest drop per size:", {g: round(v, 3) for g, v in sorted(seen.items())})
assert abs(seen[16] - E) < 0.02 and seen[256] == 0 and seen[400] == 0, seen
assert seen[16] > seen[24] > seen[64] > 0, seen
PY
expect_code 2 "$DIPMAP" serve-sim --port 0 --model m:size=2
assert_contains err "size must be a number in [0,1]"
