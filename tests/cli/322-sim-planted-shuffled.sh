# serve-sim's shuffled=E (with --haystack FILE, the source order) plants E when the prompt's
# haystack chunks are out of file order: a --haystack-order coherent,shuffled run's paired
# effect recovers -E inside its interval, every coherent prompt is seen as in order and every
# shuffled one as out of it (the model's p, --log, is E lower for exactly half the prompts);
# without the key the effect's interval holds 0; shuffled=E without --haystack is refused.
# sanitizers: skip: a statistical check of a planted effect; 320 runs serve-sim's plants
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 40 >nq.jsonl
hay="$REPO/datasets/nq-haystack.jsonl.gz"
args=(--model dipmap-sim --dataset nq.jsonl --haystack "$hay" --lengths 2k --depths 0,50,100
    --repeats 2 --haystack-order coherent,shuffled --progress none --run h)
start_sim sh --dataset nq.jsonl --haystack "$hay" --model dipmap-sim:shuffled=0.3
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db t.db
start_sim plain --dataset nq.jsonl --haystack "$hay"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db plain.db
[ "$(q t.db "select count(*) from trials")" = 480 ] || fail "not 480 trials"
expect_code 0 "$DIPMAP" report h --db t.db --out rep --format json
expect_code 0 "$DIPMAP" report h --db plain.db --out rep0 --format json
python3 - <<'PY' || fail "the planted shuffled effect is not recovered"
import json
def effect(path):
    ax = {a["name"]: a for a in json.load(open(path))["axes"] if a["paired"]}
    a = ax["haystack-order"]
    assert [v["value"] for v in a["values"]] == ["coherent", "shuffled"], a["values"]
    return {e["value"]: e["difference"] for e in a["effects"]}["shuffled"]
e = effect("rep/summary.json")
assert e["lo"] <= -0.3 <= e["hi"] and e["hi"] < 0, e
e0 = effect("rep0/summary.json")
assert e0["lo"] <= 0 <= e0["hi"], e0
def ps(path):
    out = {}
    for l in open(path):
        o = json.loads(l)
        if o.get("p", -1) >= 0:
            out.setdefault((o["question_id"], o["x"], o["T"]), []).append(o["p"])
    return out
# both servers got the same 480 prompts: p is 0.3 lower for exactly the 240 shuffled ones
sh, plain = ps("sh.log"), ps("plain.log")
assert sorted(sh) == sorted(plain) and sum(len(v) for v in sh.values()) == 480
diffs = [round(b - a, 9) for k in sh for a, b in zip(sorted(sh[k]), sorted(plain[k]))]
assert sorted(set(diffs)) == [0, 0.3] and diffs.count(0.3) == 240, sorted(set(diffs))
PY
expect_code 2 "$DIPMAP" serve-sim --port 0 --dataset nq.jsonl --model dipmap-sim:shuffled=0.3
assert_contains err "model 'dipmap-sim': shuffled=E needs --haystack FILE (the source order)"
