# Acceptance: infrastructure outcomes are recorded, not scored. A server with
# a llama.cpp-style context shift (--shift-ctx) -> the long trials are stored
# as truncated; a server with a small context (--ctx, context check off) ->
# overflow; a reasoning model that spends its budget (--reasoning) -> starved.
# None counts as wrong, and the report's coverage table (summary.md and
# report.html) shows each of them.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 12 41
start_sim shift --dataset golden.jsonl --shift-ctx 3000
e2e_run shift "$SIM_URL" dipmap-sim --lengths 2k,4k --depths 0:100:25 --max-tokens 64 --no-context-check
start_sim ctx --dataset golden.jsonl --ctx 3000
e2e_run ctx "$SIM_URL" dipmap-sim --lengths 2k,4k --depths 0:100:25 --max-tokens 64 --no-context-check
start_sim think --dataset golden.jsonl --reasoning 0.3 --fault-seed 2
e2e_run think "$SIM_URL" dipmap-sim --lengths 2k --depths 0:100:25 --max-tokens 64
[ "$(n_trials shift "length=4096 and outcome='truncated'")" = 60 ] || fail "shifted 4k trials not truncated: $(n_trials shift "length=4096 and outcome='truncated'")"
[ "$(n_trials shift "length=2048 and outcome in ('correct','wrong')")" = 60 ] || fail "2k trials not scored"
[ "$(n_trials ctx "length=4096 and outcome='overflow'")" = 60 ] || fail "4k trials not overflow"
[ "$(n_trials ctx "length=2048 and outcome in ('correct','wrong')")" = 60 ] || fail "2k trials not scored"
empties=$(n_trials think "outcome='starved'")
[ "$empties" -gt 5 ] && [ "$empties" -lt 40 ] || fail "expected some starved trials, got $empties"
[ "$(n_trials think "outcome not in ('starved','correct','wrong')")" = 0 ] || fail "unexpected outcomes"
# none is counted as wrong: the store's wrong trials are exactly the wrong
# answers the server logged for complete prompts
for r in shift ctx think; do
    # (a context-shifted request is answered too, from the part the model kept: T < sent_tokens)
    logged_wrong=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["route"].endswith("completions") and d["status"] == 200 and d["T"] == d.get("sent_tokens") \
            and d["outcome"] in ("negative", "idk"):
        n += 1
print(n)' "$r.log")
    [ "$(n_trials "$r" "outcome='wrong'")" = "$logged_wrong" ] || fail "$r: wrong trials != the server's wrong answers"
    expect_code 0 "$DIPMAP" report "$r" --db t.db --out "rep-$r" --format md,json,html --no-plots
done
python3 - <<'PY' || fail "summary.json counts"
import json
for run, kind, n in (("shift", "truncated", 60), ("ctx", "overflow", 60)):
    L = {l["length"]: l for l in json.load(open(f"rep-{run}/summary.json"))["lengths"]}
    assert L[4096]["outcomes"][kind] == n and L[4096]["valid"] == 0, (run, L[4096])
    assert L[4096]["outcomes"]["wrong"] == 0
t = json.load(open("rep-think/summary.json"))["totals"]
assert t["outcomes"]["starved"] > 0 and t["valid"] == t["correct"] + t["outcomes"]["wrong"]
assert t["trials"] == t["valid"] + t["outcomes"]["starved"]
assert t["starved_reasoning_tokens"] == 64 * t["outcomes"]["starved"], t
PY
# the coverage table shows them: summary.md's "Coverage per outcome" table
# counts them in their own column (wrong stays as stored), report.html names them
python3 - <<'PY' || fail "the coverage table does not show the outcomes"
import json, re, sqlite3
con = sqlite3.connect("t.db")
for run, kind in (("shift", "truncated"), ("ctx", "overflow"), ("think", "starved")):
    md = open(f"rep-{run}/summary.md").read()
    sec = md[md.index("## Coverage per outcome"):]
    rows = [l for l in sec.splitlines() if l.startswith("|")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    tot = {h: 0 for h in head}
    for l in rows[2:]:
        cells = [c.strip() for c in l.strip("|").split("|")]
        if cells[0] == "all":
            continue
        if len(cells) != len(head) or not cells[2].isdigit():
            break
        for h, c in zip(head[2:], cells[2:]):
            tot[h] += int(c)
    want = dict(con.execute("select outcome, count(*) from trials t join runs r on r.id = t.run_id"
                            " where r.name = ? group by outcome", (run,)).fetchall())
    print(run, {k: v for k, v in tot.items() if v})
    assert tot[kind] == want[kind] > 0, (run, kind, tot, want)
    assert tot["wrong"] == want.get("wrong", 0), (run, tot, want)
    html = open(f"rep-{run}/report.html").read()
    assert kind in html, (run, kind)
PY
