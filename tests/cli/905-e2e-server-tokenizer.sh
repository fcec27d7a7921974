# Acceptance: with --tokenizer server the sweep counts with the endpoint's
# /tokenize: realized lengths are within 1% of each target, the server's
# usage agrees (zero tokenizer mismatches in summary.json), and the run
# prints no tokenizer-mismatch warning.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 6 61
start_sim sim --dataset golden.jsonl
e2e_run srv "$SIM_URL" dipmap-sim --lengths 2k,4k,8k --depths 0:100:25 --tokenizer server --concurrency 8
grep -q '"route":"/tokenize"' sim.log || fail "/tokenize was not used"
[ "$(q t.db "select tokenizer_name from runs where name='srv'")" = server:dipmap-sim ] || fail "tokenizer name"
[ "$(q t.db "select count(*) from trials")" = 90 ] || fail "not 90 trials"
[ "$(q t.db "select count(*) from trials where abs(realized_length - length) > length / 100.0")" = 0 ] ||
    fail "realized lengths off by more than 1%: $(q t.db "select length, realized_length from trials where abs(realized_length - length) > length / 100.0 limit 5")"
[ "$(q t.db "select count(*) from trials where usage_prompt_tokens != realized_length")" = 0 ] || fail "usage differs"
grep -qi 'mismatch' run-srv.err run-srv.out && fail "a tokenizer-mismatch warning was printed"
expect_code 0 "$DIPMAP" report srv --db t.db --out rep --format json --no-plots
python3 - <<'PY' || fail "summary.json reports tokenizer mismatches"
import json
for L in json.load(open("rep/summary.json"))["lengths"]:
    u = L["server_usage"]
    assert u["trials"] == 30 and u["tokenizer_mismatches"] == 0, L
    r = L["realized_length"]
    assert abs(r["min"] - L["length"]) <= L["length"] / 100 and abs(r["max"] - L["length"]) <= L["length"] / 100, r
PY
