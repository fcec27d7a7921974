# An order run split into shards (--shard 1/2, 2/2: whole (question, k, policy) groups), each
# in its own store, merged with dipmap merge: the merged run holds every trial once, with the
# same outcomes and the same (policy, k) table as the run made in one piece.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

set_=$TESTS/data/order/retrieval.jsonl
start_sim sim --dataset "$set_" --model m:edge=0.92,dip=0.37,flat=1
args=(--endpoint "$SIM_URL" --model m --dataset "$set_" --experiment order
      --k 2,4 --policies best-first,edges-first,ascending --group-by-doc --progress none --run o)
expect_code 0 "$DIPMAP" run "${args[@]}" --db whole.db
expect_code 0 "$DIPMAP" run "${args[@]}" --db s1.db --shard 1/2
expect_code 0 "$DIPMAP" run "${args[@]}" --db s2.db --shard 2/2
expect_code 0 "$DIPMAP" merge merged.db s1.db s2.db
for db in s1 s2; do
    expect_code 0 "$DIPMAP" export o --db $db.db --format jsonl --out $db.jsonl
done
for db in whole merged; do
    expect_code 0 "$DIPMAP" export o --db $db.db --format jsonl --out $db.jsonl
    expect_code 0 "$DIPMAP" report o --db $db.db --out $db --format json
done
python3 - <<'PY' || fail "merged shards differ from the whole run (above)"
import json
def rows(f):
    return {(r["question_id"], r["axes"]): r["outcome"] for r in map(json.loads, open(f))}
w, m = rows("whole.jsonl"), rows("merged.jsonl")
assert len(w) == 12 * 2 * 3 and w == m, (len(w), len(m))
assert sum(1 for _ in open("whole.jsonl")) == len(w)   # every trial once
a, b = rows("s1.jsonl"), rows("s2.jsonl")
assert a and b and not set(a) & set(b) and len(a) + len(b) == len(w), (len(a), len(b))
ow = json.load(open("whole/summary.json"))["order"]
om = json.load(open("merged/summary.json"))["order"]
assert ow["cells"] == om["cells"] and ow["differences"] == om["differences"]
PY
