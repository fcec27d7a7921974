# report.html's per-question matrix past 500 questions at a length: the 500 least accurate rows
# are drawn and the page says so ("The 500 least accurate of the 620 questions"); every link to a
# trial has its details block, which are only those of the rows drawn; the page stays small. The
# md and json summaries still count every question.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 620
start_sim sim --dataset golden.jsonl --model sim:edge=0.9,dip=0.5,seed=5
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --model sim --lengths 512 --depths 0,50 --db t.db \
    --run r -c 8
expect_code 0 "$DIPMAP" report r --db t.db --dataset golden.jsonl --out rep --no-plots
q t.db "select question_id, sum(outcome = 'correct') * 1.0 / count(*) from trials group by 1" >acc.txt
python3 - rep/report.html acc.txt <<'PY' || fail "capped question matrix"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
acc = {q: float(a) for q, a in (l.strip().split("|") for l in open(sys.argv[2]))}
assert len(acc) == 620 and len(set(acc.values())) == 3, "fixture: %d questions, accuracies %r" % (len(acc), set(acc.values()))
assert "512 tokens: 620 questions x 2 depths</h3>" in page, "heading"
assert "The 500 least accurate of the 620 questions at this length" in page, "no word of the cut"
table = page[page.index('<table class="qm sortable">'):]
table = table[:table.index("</table>")]
shown = re.findall(r'<tr><th scope="row" data-v="([^"]+)"', table)
assert len(shown) == 500, len(shown)
hidden = set(acc) - set(shown)
assert max(acc[q] for q in shown) <= min(acc[q] for q in hidden), "not the least accurate rows"
links = set(re.findall(r'href="#(t[0-9]+)"', table))
ids = set(re.findall(r'<details[^>]* id="(t[0-9]+)"', page))
assert links and links <= ids, "links without details: %r" % sorted(links - ids)[:5]
assert ids <= links, "details of trials the matrix does not show: %r" % sorted(ids - links)[:5]
assert re.search(r"Trial details</h3>\n<p>%d trials \(%d of the 1240 trials: those of the questions "
                 r"shown above" % (len(ids), len(ids)), page), "details paragraph"
PY
grep -q '"n_questions": 620\|620 questions' rep/summary.md rep/summary.json ||
    fail "the summaries do not count every question"
