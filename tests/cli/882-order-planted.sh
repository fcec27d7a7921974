# The order experiment against serve-sim's planted curve with the documents' illustrative
# parameters (0.92 at the edges, 0.55 in the middle, flat=1: the same curve at every prompt
# length) and a retriever that often ranks the answer 2nd to 4th (10%, 30%, 30%, 20%, 5%, 5%):
# 600 NaturalQuestions questions, best-first vs edges-first at k = 5 and 10, then a depth run of
# the same model at the order prompts' lengths. The report computes each (policy, k) accuracy
# from that depth curve; the measured 95% interval and the computed one overlap in every cell,
# and edges-first beats rank order (best-first) at k = 10, significant after Holm.
# sanitizers: skip: a statistical check of a planted effect; 880 runs the order experiment
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

zcat "$REPO/datasets/nq-open.jsonl.gz" | head -n 600 >set.jsonl
printf '0.1\n0.3\n0.3\n0.2\n0.05\n0.05\n' >ranks.txt
start_sim sim --dataset set.jsonl --model m:edge=0.92,dip=0.37,flat=1
common=(--endpoint "$SIM_URL" --model m --dataset set.jsonl
        --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --db t.db --progress none)
expect_code 0 "$DIPMAP" run "${common[@]}" --run order --experiment order \
    --policies best-first,edges-first --k 5,10 --rank-dist ranks.txt
expect_code 0 "$DIPMAP" report order --db t.db --out r0 --format json
lengths=$(python3 -c '
import json
o = json.load(open("r0/summary.json"))["order"]
print(",".join(str(round(c["prompt_tokens"])) for c in o["cells"] if c["policy"] == "best-first"))')
expect_code 0 "$DIPMAP" run "${common[@]}" --run depth --lengths "$lengths" --depths 0:100:10
expect_code 0 "$DIPMAP" report order --db t.db --out r1 --no-plots
assert_contains r1/summary.md "Expected = computed from the depth run depth"
python3 - <<'PY' || fail "measured vs computed (above)"
import json
o = json.load(open("r1/summary.json"))["order"]
assert o["curve_run"] == "depth", o["curve_run"]
for c in o["cells"]:
    lo, hi = c["interval95"]
    elo, ehi = c["expected_interval95"]
    print(f'{c["policy"]:12} k={c["k"]:2}: measured {c["accuracy"]:.3f} [{lo:.3f}, {hi:.3f}], '
          f'computed {c["expected"]:.3f} [{elo:.3f}, {ehi:.3f}] at {c["curve_length"]}')
    assert lo <= ehi and elo <= hi, c
    assert c["curve_length"] == round(c["prompt_tokens"]) or c["policy"] != "best-first", c
d = {x["k"]: x for x in o["differences"]}
assert d[10]["policy"] == "edges-first" and d[10]["reference"] == "best-first"
assert d[10]["difference"] > 0.03 and d[10]["p_holm"] < 0.05, d[10]
cells = {(c["policy"], c["k"]): c for c in o["cells"]}
assert cells[("edges-first", 10)]["expected"] > cells[("best-first", 10)]["expected"]
PY
