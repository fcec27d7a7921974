# --needle-tokens' bad inputs (tests/bad-inputs.md): a size that cannot hold a question's answer
# sentence stops the run before any trial with an error naming the file, line, question and the
# size (exit 2; never a gold cut inside its answer); a gold chunk that states none of the
# question's answers is an error naming the question; a size that is not 1..65536 is an option
# error. Nothing is sent or stored.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 3 4
start_sim sim --dataset golden.jsonl
args=(--endpoint "$SIM_URL" --model m --dataset golden.jsonl --template needle --lengths 1k
    --haystack "$REPO/datasets/books-haystack.jsonl.gz" --depths 50 --progress none --db t.db)
expect_code 2 "$DIPMAP" run "${args[@]}" --needle-tokens 64,8
assert_contains err "golden.jsonl:1: question needle-0001: the sentence that states its answer is"
assert_contains err "tokens; --needle-tokens 8 cannot hold it"
python3 - <<'PY' || fail "the oversized gold sentence's error was not before the first trial"
import json, os, sqlite3
assert not os.path.exists("t.db") or not sqlite3.connect("t.db").execute(
    "select count(*) from sqlite_master where name = 'trials'").fetchone()[0] or \
    sqlite3.connect("t.db").execute("select count(*) from trials").fetchone()[0] == 0
assert not [l for l in open("sim.log") if json.loads(l).get("question_id")]
PY
# a gold chunk that does not state the answer
python3 -c '
import json
l = [json.loads(x) for x in open("golden.jsonl")]
l[1]["gold"][0]["text"] = "The code was changed last year."
l[1]["answer_outside_gold"] = True
open("outside.jsonl", "w").write("".join(json.dumps(x) + "\n" for x in l))'
expect_code 2 "$DIPMAP" run "${args[@]/golden.jsonl/outside.jsonl}" --needle-tokens 64
assert_contains err "outside.jsonl:2: question needle-0002: no gold chunk states one of its answers; --needle-tokens 64 keeps the sentence that does"
for bad in 0 abc 65537 -4; do
    expect_code 2 "$DIPMAP" run "${args[@]}" --needle-tokens "24,$bad"
    assert_contains err "--needle-tokens: '$bad' is not a size 1..65536 tokens"
done
