# Issue 29's case: baseline my-model:edge=0.95,dip=0.15 against a candidate whose dip nearly
# doubles (dip=0.28), both mapped with the README's CI options (8k and 32k, 11 depths). Before
# the primary endpoints compare said PASS, exit 0 (22 cells with Holm over all of them, the
# lengths under the tolerance, nothing testing the middle or the dip). Now: with the shipped
# 36 needles it never PASSes (here serve-sim's draws are coupled, so it already FAILs), and with
# 100 needles (the README's CI set) it FAILs, naming the middle and the dip at 32k.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 100 --seed 1 --out needle-100.jsonl >/dev/null || fail "gen needle"
start_sim sim --dataset needle-100.jsonl --model base:edge=0.95,dip=0.15 --model cand:edge=0.95,dip=0.28
map() { # map DATASET RUN MODEL
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model "$3" --dataset "$1" \
        --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 8k,32k --depths 0:100:10 \
        --progress none --concurrency 8 --db t.db --run "$2"
}
# the shipped 36 needles are the first 36 of the generated 100 (same generator and seed)
head -n 36 needle-100.jsonl | cmp - "$REPO/datasets/needle.jsonl" >/dev/null ||
    fail "needle-100's first 36 are not datasets/needle.jsonl"
map "$REPO/datasets/needle.jsonl" b36 base
map "$REPO/datasets/needle.jsonl" c36 cand
"$DIPMAP" compare b36 c36 --db t.db --json c36.json >out36 2>err36
rc=$?
[ "$rc" = 1 ] || [ "$rc" = 4 ] || fail "36 questions: exit $rc (must never PASS): $(head -5 out36)"
map needle-100.jsonl b100 base
map needle-100.jsonl c100 cand
expect_code 1 "$DIPMAP" compare b100 c100 --db t.db --json c100.json
assert_contains out "FAIL: regression in "
# the primary table names the middle and the dip at 32k as regressions; the headline lists the
# first four primary regressions and says how many more there are (it used to stop silently)
grep -qE '^FAIL: regression in .*; and [0-9]+ more$' out || fail "the headline hides regressions: $(grep '^FAIL' out)"
grep -qE '^\| 32k middle \(25-75%\) \| 100 \|.*\| regression \|$' out || fail "32k middle not a regression: $(grep '32k middle' out)"
grep -qE '^\| 32k dip \| 100 \|.*\| regression \|$' out || fail "32k dip not a regression: $(grep '32k dip' out)"
python3 - <<'PY' || fail "c100.json"
import json
d = json.load(open("c100.json"))
assert d["verdict"] == "FAIL", d["verdict"]
reg = {(t["scope"], t["length"]) for t in d["tests"] if t["primary"] and t["status"] == "regression"}
assert ("middle", 32768) in reg and ("dip", 32768) in reg, reg
# the old rule's cells alone no longer decide: the gate is the primary family
assert d["options"]["gate"] == "primary"
PY
exit 0
