# run --absent P's twins are paired and keyed: a seeded share of the trial keys (the same keys in
# a second run with the seed, others with another seed) gets a twin keyed absent=yes whose prompt
# has the present trial's exact length and other bytes, without the gold chunk; the present
# trials' prompts are byte for byte those of the same run without --absent (no identity or
# resume of present trials moves); a resume with another share is refused, naming the setting,
# and a resume with the same one sends nothing.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model m
args=(--endpoint "$SIM_URL" --model m --dataset "$REPO/datasets/needle.jsonl" --template qa-absent
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k,2k --depths 0:100:25
    --progress none --store-prompts)
expect_code 0 "$DIPMAP" run "${args[@]}" --absent 0.3 --db a.db --run a
expect_code 0 "$DIPMAP" run "${args[@]}" --absent 0.3 --db b.db --run a
expect_code 0 "$DIPMAP" run "${args[@]}" --absent 0.3 --seed 2 --db c.db --run a
expect_code 0 "$DIPMAP" run "${args[@]}" --db plain.db --run a
python3 - "$REPO/datasets/needle.jsonl" <<'PY' || fail "the absent twins are not paired, seeded or keyed as documented"
import json, sqlite3, sys
gold = {q["id"]: [g["text"] for g in q["gold"]] for q in map(json.loads, open(sys.argv[1]))}
def trials(db):
    c = sqlite3.connect(db)
    prompts = dict(c.execute("select sha256, text from prompts"))
    return {r[:5]: (r[5], r[6], prompts.get(r[5])) for r in c.execute(
        "select question_id, length, depth_bp, repeat, axes, prompt_sha256, realized_length from trials")}
a, b, c, plain = trials("a.db"), trials("b.db"), trials("c.db"), trials("plain.db")
twins = {k for k in a if k[4] == "absent=yes"}
present = {k for k in a if k[4] == ""}
assert present == set(plain) and len(present) == 360, (len(present), len(plain))
assert 0.22 < len(twins) / len(present) < 0.38, len(twins)
assert {k for k in b if k[4]} == twins, "another run with the same seed drew other twins"
assert {k for k in c if k[4]} != twins, "another seed drew the same twins"
for k in present:
    assert a[k][0] == plain[k][0], f"{k}: --absent changed a present prompt"
for k in twins:
    p = a[k[:4] + ("",)]
    sha, length, text = a[k]
    assert length == p[1] == k[1], (k, length, p[1])
    assert sha != p[0], k
    for g in gold[k[0]]:
        assert g in p[2] and g not in text, f"{k}: the gold chunk is not swapped out"
PY
# the share is part of the run's identity: another one is refused; the same one sends nothing
expect_code 2 "$DIPMAP" run "${args[@]}" --absent 0.5 --db a.db --run a
assert_contains err "absent"
before=$(grep -c '/chat/completions' sim.log)
expect_code 0 "$DIPMAP" run "${args[@]}" --absent 0.3 --db a.db --run a
[ "$(grep -c '/chat/completions' sim.log)" = "$before" ] || fail "a complete resume sent requests"
