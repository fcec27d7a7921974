# serve-sim's lenpen=E and distract=E (docs/effects.md): the same run (--arm haystack,padding,
# the oracle control) against a plain model and one with lenpen=0.4,distract=0.2 (one seed): per
# request the planted model's p (--log) is the plain one's less exactly
# 0.4 x clamp(log2(T/1500)/4, 0, 1) less 0.2 when the log marks haystack text (the haystack
# arm), and the log marks it in every haystack prompt and in no padding or oracle prompt;
# distract=E without --haystack and values outside [0,1] are refused (exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 8 >golden.jsonl
HAY=$REPO/datasets/nq-haystack.jsonl.gz
args=(--model dipmap-sim --dataset golden.jsonl --haystack "$HAY" --lengths 2k,4k --depths 0,50,100
    --arm haystack,padding --controls oracle --progress none --run p)
start_sim plain --dataset golden.jsonl --haystack "$HAY"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db plain.db
start_sim planted --dataset golden.jsonl --haystack "$HAY" --model "dipmap-sim:lenpen=0.4,distract=0.2"
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db planted.db
python3 - <<'PY' || fail "the planted lenpen/distract drops are not exactly as documented"
import json, math
def log(name):
    out = {}
    for l in open(name + ".log"):
        r = json.loads(l)
        if r["route"] == "/v1/chat/completions" and r.get("p") is not None:
            out.setdefault((r["question_id"], r["T"], r["x"], r["haystack"]), r["p"])
    return out
a, b = log("plain"), log("planted")
assert a.keys() == b.keys() and len(a) > 0, (len(a), len(b))
kinds = {"hay": 0, "pad": 0, "oracle": 0}
for k, p in a.items():
    q, T, x, hay = k
    want = max(0.0, p - 0.4 * min(1, max(0, math.log2(T / 1500) / 4)) - (0.2 if hay else 0))
    assert abs(b[k] - want) < 1e-9, (k, p, b[k], want)
    kinds["oracle" if T < 1000 else "hay" if hay else "pad"] += 1
assert kinds["oracle"] == 8 and kinds["hay"] > 0 and kinds["pad"] > 0, kinds
PY
# the store: every haystack trial's request was marked, no padding or oracle one
[ "$(python3 -c '
import json
print(sum(1 for l in open("planted.log") if "\"haystack\":true" in l.replace(" ", "")))')" = 48 ] ||
    fail "not 48 haystack requests (8 questions x 2 lengths x 3 depths)"
expect_code 2 "$DIPMAP" serve-sim --port 0 --dataset golden.jsonl --model "dipmap-sim:distract=0.2"
assert_contains err "distract=E needs --haystack FILE"
expect_code 2 "$DIPMAP" serve-sim --port 0 --dataset golden.jsonl --model "dipmap-sim:lenpen=1.5"
assert_contains err "lenpen must be a number in [0,1]"
