# The order report's computed column comes from a depth run of the same model, template and
# tokenizer, the tokenizer compared by its sha256 (run_identity_same_curve): two tokenizer.json
# files in folders of one name are both "hf:tok/tokenizer.json", and the report took a curve
# counted by the other one. With the same tokenizer file the curve is found. rescore writes its
# settings in the store's canonical form (keys sorted), through the same identity module.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
mkdir -p a/tok b/tok
cp "$TESTS/data/tokenizer/qwen3/tokenizer.json.gz" a/tok/
cp "$TESTS/data/tokenizer/llama2/tokenizer.json.gz" b/tok/
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model m:edge=0.92,dip=0.37,flat=1
common=(--endpoint "$SIM_URL" --model m --dataset "$REPO/datasets/needle.jsonl"
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --db t.db --progress none
    --allow-tokenizer-mismatch) # serve-sim counts cl100k tokens: only the stored identity matters here
expect_code 0 "$DIPMAP" run "${common[@]}" --experiment order --k 3,5 --rank-p 0.4 \
    --tokenizer a/tok/tokenizer.json.gz --run o1
# a depth curve counted by the other tokenizer of the same name
expect_code 0 "$DIPMAP" run "${common[@]}" --lengths 256,1k --depths 0:100:50 \
    --tokenizer b/tok/tokenizer.json.gz --run curve-b
names=$(sqlite3 -batch -noheader t.db "select distinct tokenizer_name from runs")
[ "$names" = "hf:tok/tokenizer.json" ] || fail "the two tokenizers' names differ ($names): the case is not set up"
expect_code 0 "$DIPMAP" report o1 --db t.db --out r1 --format md --no-plots
assert_contains r1/summary.md "Expected: no depth run of this model, template and tokenizer in the store"
assert_not_contains r1/summary.md "curve-b"
# the same tokenizer file: found
expect_code 0 "$DIPMAP" run "${common[@]}" --lengths 256,1k --depths 0:100:50 \
    --tokenizer a/tok/tokenizer.json.gz --run curve-a
expect_code 0 "$DIPMAP" report o1 --db t.db --out r2 --format md --no-plots
assert_contains r2/summary.md "Expected = computed from the depth run curve-a (same model, template and tokenizer)"
# rescore keeps the settings canonical (keys sorted at every level, compact)
expect_code 0 "$DIPMAP" rescore curve-a --db t.db --scorer exact --as curve-a2
python3 - <<'PY' || fail "rescored settings are not canonical (above)"
import json, sqlite3
s = sqlite3.connect("t.db").execute("select settings_json from runs where name = 'curve-a2'").fetchone()[0]
def sorted_keys(o):
    if isinstance(o, dict):
        return list(o) == sorted(o) and all(sorted_keys(v) for v in o.values())
    if isinstance(o, list):
        return all(sorted_keys(v) for v in o)
    return True
o = json.loads(s, object_pairs_hook=dict)
assert o["scorer"] == "exact", o
assert sorted_keys(o), s
PY
exit 0
