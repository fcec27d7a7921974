# Every importer writes a set the rest of dipmap loads (issue 43 items 2 and 5). RULER's current
# niah.py (since 2025-05) writes the answer's character offset as "index", so two samples can
# share it: the import gave both the id "ruler-<index>" (4 duplicates in 100 niah_single_1
# samples), exited 0, and run then refused the file. Now an id taken already gets the input line
# as a suffix (-L<line>), the import says how many, and the file loads. A gold that does not
# state the answer ("KX-78" where the needle says KX-77) is refused naming the input file and
# line, nothing written; --allow-answer-outside-gold imports it marked "answer_outside_gold".
# The output of every format (litm QA, litm KV, nolima, ruler; longbench-v2's haystack) loads.
. "$TESTS/cli/lib/lib.sh"
hay=$REPO/datasets/nq-haystack.jsonl.gz
dry() { "$DIPMAP" run --dry-run --dataset "$1" --haystack "${2:-$hay}" --lengths 1k --depths 0,50 >dry.out 2>&1 ||
    { cat dry.out >&2; fail "run refused $1 written by import"; }; }
# RULER niah samples in the current generator's shape: index = the answer's character offset
python3 - <<'PY'
import json
def sample(key, val, other):
    text = ("Some special magic numbers are hidden within the following text. Make sure to memorize it. "
            "I will quiz you about the numbers afterwards.\nThe grass is green. One of the special magic "
            "numbers for %s is: %s. The sky is blue. One of the special magic numbers for %s is: 1203944. "
            "Here we go.\nWhat is the special magic number for %s mentioned in the provided text?" % (key, val, other, key))
    return {"index": text.find(val), "input": text, "outputs": [val], "length": 96}
rows = [sample("tender-plant", "4821937", "loud-river"), sample("quiet-lake", "7712093", "dry-hill"),
        sample("tender-plant", "5550121", "loud-river")]
assert rows[0]["index"] == rows[2]["index"]  # the same offset: the same id before the fix
with open("ruler.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
bad = dict(rows[1]); bad["outputs"] = ["7712094"]  # the input's needle says 7712093
with open("ruler-bad.jsonl", "w") as f:
    f.write(json.dumps(rows[0]) + "\n" + json.dumps(bad) + "\n")
PY
expect_code 0 "$DIPMAP" import ruler ruler.jsonl --out r.jsonl
assert_contains err "import: 3 questions -> r.jsonl (1 ids taken already got their input line as a suffix, -L<line>)"
python3 - <<'PY' || fail "ids (above)"
import json
ids = [json.loads(l)["id"] for l in open("r.jsonl")]
assert len(set(ids)) == 3, ids
assert ids[2] == ids[0] + "-L3", ids
PY
dry r.jsonl
expect_code 0 "$DIPMAP" show-prompt --dataset r.jsonl --haystack "$hay" --length 1k --depth 50 \
    --question "$(python3 -c 'import json; print(json.loads(open("r.jsonl").readlines()[2])["id"])')"
assert_contains out "is: 5550121."
# an answer its gold does not state: refused with the input's file and line, nothing written
expect_code 2 "$DIPMAP" import ruler ruler-bad.jsonl --out rb.jsonl
assert_contains err "error: ruler-bad.jsonl:2: \"input\": no needle sentence"
[ ! -e rb.jsonl ] || fail "a refused import wrote its output"
# NoLiMa: a needle without {CHAR} whose gold_answers it does not state
printf '%s\n' '{"id": "0601", "needle": "The code of the vault is KX-77.", "questions": {"onehop": "What is the code of the {1}?"}, "tests": {"T01": {"input_args": ["vault"], "gold_answers": ["KX-78"]}}}' >nolima-bad.jsonl
expect_code 2 "$DIPMAP" import nolima nolima-bad.jsonl --out nb.jsonl
assert_contains err 'error: nolima-bad.jsonl:1: question "nolima-0601-T01-onehop": "answers": no gold chunk states "KX-78", so it would be scored wrong at every depth'
[ ! -e nb.jsonl ] || fail "a refused import wrote its output"
expect_code 0 "$DIPMAP" import nolima nolima-bad.jsonl --out nb.jsonl --allow-answer-outside-gold
assert_contains err '(1 questions whose gold does not state the answer marked "answer_outside_gold")'
grep -qF '"answer_outside_gold": true' nb.jsonl || fail "not marked"
dry nb.jsonl
# LitM QA: a record whose gold passage does not state the answer
printf '%s\n' '{"question": "what is the code", "answers": ["KX-78"], "ctxs": [{"title": "Vault", "text": "The code of the vault is KX-77.", "isgold": true}, {"title": "Other", "text": "Nothing here."}]}' >litm-bad.jsonl
expect_code 2 "$DIPMAP" import litm litm-bad.jsonl --out lb.jsonl
assert_contains err 'error: litm-bad.jsonl:1: question "nq-0001": "answers": no gold chunk states "KX-78"'
[ ! -e lb.jsonl ] || fail "a refused import wrote its output"
# every format's output loads
expect_code 0 "$DIPMAP" import litm "$TESTS/data/litm/nq-open-oracle.jsonl.gz" --out nq.jsonl --limit 30
dry nq.jsonl
# every pair a hard negative leaves the haystack empty, which run refuses: not written
kv=$TESTS/data/litm/kv-retrieval-75_keys.head20.jsonl.gz
expect_code 2 "$DIPMAP" import litm "$kv" --out kv.jsonl --haystack-out kvh.jsonl
assert_contains err "error: import: no chunk is left for --haystack-out kvh.jsonl"
[ ! -e kvh.jsonl ] && [ ! -e kv.jsonl ] || fail "a refused import wrote its output"
expect_code 0 "$DIPMAP" import litm "$kv" --out kv.jsonl --haystack-out kvh.jsonl --kv-negatives 10
dry kv.jsonl kvh.jsonl
expect_code 0 "$DIPMAP" import nolima "$TESTS/data/import/nolima-needle-set.jsonl" --out n.jsonl
dry n.jsonl
expect_code 0 "$DIPMAP" import ruler "$TESTS/data/import/ruler-niah.jsonl" --out r2.jsonl
dry r2.jsonl
expect_code 0 "$DIPMAP" import longbench-v2 "$TESTS/data/import/longbench-v2.jsonl" --out lbh.jsonl
dry "$REPO/datasets/needle.jsonl" lbh.jsonl
exit 0
