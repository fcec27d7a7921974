# run --needle-tokens 24,64,256 end to end (docs/effects.md "Needle size"): every trial of a
# serve-sim run (8 needle questions, 1k and 2k tokens, depths 0/50/100, each size) is stored
# with its axis, its realized length equals its target and the server counted the same
# (usage.prompt_tokens); serve-sim found every trial's gold (its answer sentence) and the line
# holding it counts exactly the trial's size (its log's gold_tokens, the server's own count);
# the stored prompt holds the question's answer sentence once. Without the axis the option is
# unknown and the run stops.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 8 4
start_sim sim --dataset golden.jsonl --model m:seed=2,size=0.3
"$DIPMAP" run --endpoint "$SIM_URL" --model m --dataset golden.jsonl --template needle \
    --haystack "$REPO/datasets/books-haystack.jsonl.gz" --lengths 1k,2k --depths 0:100:50 \
    --needle-tokens 24,64,256 --store-prompts --progress none --db t.db --run a >run.out 2>run.err ||
    { cat run.err >&2; fail "the run failed"; }
assert_contains run.out "run a: complete"
python3 - <<'PY' || fail "a trial's gold or length is not exact (above)"
import json, sqlite3, collections
c = sqlite3.connect("t.db")
rows = c.execute("select question_id, length, depth_bp, axes, realized_length, usage_prompt_tokens,"
                 " outcome from trials").fetchall()
assert len(rows) == 8 * 2 * 3 * 3, len(rows)
sizes = collections.Counter(r[3] for r in rows)
assert sizes == {f"needle-tokens={n}": 48 for n in (24, 64, 256)}, sizes
for q, length, d, axes, real, usage, outcome in rows:
    assert real == length and usage == length, (q, length, d, axes, real, usage)
log = [json.loads(l) for l in open("sim.log")]
log = [o for o in log if o.get("question_id")]
assert len(log) == len(rows), (len(log), len(rows))
got = collections.Counter((o["question_id"], o["T"], o.get("gold_tokens")) for o in log)
want = collections.Counter((q, length, int(axes.split("=")[1])) for q, length, d, axes, *_ in rows)
assert got == want, sorted((got - want).items())[:5]
assert all(o["gold"] for o in log)
gold = {json.loads(l)["id"]: json.loads(l)["gold"][0]["text"] for l in open("golden.jsonl")}
for (text,) in c.execute("select text from prompts"):
    hits = [q for q, g in gold.items() if text.count(g) == 1]
    assert len(hits) == 1, hits
print(f"{len(rows)} trials exact; gold_tokens = needle-tokens for every request")
PY
