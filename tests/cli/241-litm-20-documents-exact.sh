# The Lost in the Middle recipe: a k-document file of the paper (here three records written to
# its published schema, tests/data/litm/nq-20docs-sample.jsonl.gz, gold at index 4, 19 and 0)
# imported with --as retrieval and run with --experiment order --policies best-first --k 20 and
# --template litm-qa sends exactly the paper's prompt: get_qa_prompt's formatting of the
# record's ctxs in file order (written out below as prompting.py does it), chat and
# --completions; the gold stays at the file's index and is scored with the litm metric.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
src=$TESTS/data/litm/nq-20docs-sample.jsonl.gz
expect_code 0 "$DIPMAP" import litm "$src" --as retrieval --out set.jsonl
assert_contains err "import: 3 questions -> set.jsonl"
start_sim sim --dataset set.jsonl --model m:edge=1,dip=0,flat=1
for mode in chat completions; do
    extra=()
    [ $mode = completions ] && extra=(--completions)
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset set.jsonl \
        --experiment order --policies best-first --k 20 --template litm-qa --scorer litm \
        --db t.db --run $mode --progress none --store-prompts "${extra[@]}"
    assert_contains out "trials: 3 of 3 done"
    expect_code 0 "$DIPMAP" export $mode --db t.db --format jsonl --out $mode.jsonl
    python3 - "$src" $mode.jsonl $mode <<'PY' || fail "$mode: not the paper's prompt (above)"
import gzip, json, sqlite3, sys
def get_qa_prompt(question, documents):  # prompting.py, mention_random_ordering=False
    template = ("Write a high-quality answer for the given question using only the provided "
                "search results (some of which might be irrelevant).\n\n{search_results}\n\n"
                "Question: {question}\nAnswer:")
    formatted = [f"Document [{i+1}](Title: {d['title']}) {d['text']}" for i, d in enumerate(documents)]
    return template.format(question=question, search_results="\n".join(formatted))
records = [json.loads(l) for l in gzip.open(sys.argv[1], "rt", encoding="utf-8")]
db = sqlite3.connect("t.db")
prompts = {h: t.decode("utf-8") for h, t in db.execute("SELECT sha256, CAST(text AS BLOB) FROM prompts")}
rows = {json.loads(l)["question_id"]: json.loads(l) for l in open(sys.argv[2])}
assert len(rows) == 3, rows.keys()
for n, rec in enumerate(records, 1):
    r = rows["nq-%04d" % n]
    got = prompts[r["prompt_sha256"]]
    if sys.argv[3] == "chat":  # stored as system "\0" user: no system message
        system, got = got.split("\0", 1)
        assert system == "", system
    want = get_qa_prompt(rec["question"], rec["ctxs"])
    if got != want:
        i = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b) if got[:len(want)] != want else len(want)
        print("record %d differs at byte %d: %r vs %r" % (n, i, got[i-40:i+40], want[i-40:i+40]))
        sys.exit(1)
    gold = [i for i, c in enumerate(rec["ctxs"]) if c.get("isgold")][0]
    assert want.count("Document [%d](Title: %s) %s" % (gold + 1, rec["ctxs"][gold]["title"], rec["ctxs"][gold]["text"])) == 1
    assert r["score"] == 1, r
PY
done
