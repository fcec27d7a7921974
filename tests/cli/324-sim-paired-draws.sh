# serve-sim corr=C: the planted model's draws are common random numbers across a question's
# prompts (a Gaussian copula over a per-question normal), so the trials of one question that
# differ only in an axis value mostly agree, as a real model's do, and the planted effect is the
# only systematic difference. The same run (--question-at end,start, start=0.15 planted) against
# corr=0.9 and corr=0: both recover the -15 pp inside the paired interval; with corr=0.9 far fewer
# pairs disagree (from the store), the paired interval is narrower than with corr=0, and it is
# narrower than the unpaired interval of the two values' accuracies (each question-clustered,
# half-widths in quadrature). A corr outside [0,1] is refused.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 60 >golden.jsonl
args=(--model dipmap-sim --dataset golden.jsonl --haystack "$REPO/datasets/nq-haystack.jsonl.gz"
    --template qa-both --question-at end,start --lengths 2k --depths 0:100:25 --progress none)
for c in 0.9 0; do
    start_sim "sim$c" --dataset golden.jsonl --model "dipmap-sim:start=0.15,corr=$c"
    expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" "${args[@]}" --db "t$c.db" --run p
    expect_code 0 "$DIPMAP" report p --db "t$c.db" --out "rep$c" --format json
    q "t$c.db" "select count(*) from trials a join trials b on a.question_id = b.question_id and
        a.length = b.length and a.depth_bp = b.depth_bp and a.repeat = b.repeat where
        a.axes = 'question-at=end' and b.axes = 'question-at=start' and a.outcome != b.outcome" \
        >"discordant$c"
done
python3 - <<'PY' || fail "the paired draws do not tighten the paired interval"
import json
def eff(c):
    a = [x for x in json.load(open("rep%s/summary.json" % c))["axes"] if x["name"] == "question-at"][0]
    e = a["effects"][0]
    assert e["value"] == "start" and e["versus"] == "end" and e["pairs"] == 300, e
    v = {x["value"]: x for x in a["values"]}
    return e["difference"], v
d9, v9 = eff("0.9")
d0, v0 = eff("0")
for d in (d9, d0):
    assert d["lo"] <= -0.15 <= d["hi"] and d["hi"] < 0, d
w9, w0 = d9["hi"] - d9["lo"], d0["hi"] - d0["lo"]
assert w9 < 0.8 * w0, (w9, w0)
hw = lambda v: (v["interval95"][1] - v["interval95"][0]) / 2
unpaired = 2 * (hw(v9["end"]) ** 2 + hw(v9["start"]) ** 2) ** 0.5
assert w9 < 0.8 * unpaired, (w9, unpaired)
n9, n0 = int(open("discordant0.9").read()), int(open("discordant0").read())
assert n9 < 0.7 * n0, (n9, n0)
import sys; print("paired width corr=0.9 %.3f, corr=0 %.3f, unpaired %.3f; discordant %d vs %d" % (w9, w0, unpaired, n9, n0), file=sys.stderr)
PY
expect_code 2 "$DIPMAP" serve-sim --port 0 --dataset golden.jsonl --model "dipmap-sim:corr=1.5"
assert_contains err "corr must be a number in [0,1]"
