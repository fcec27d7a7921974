# report.html's per-question view, from a real run with stored prompts: per length a question x
# depth matrix whose rows start with the least accurate question and whose cells carry each
# trial's outcome (as the store holds it) and link to its details (question, expected, answer,
# outcome, realized length and depth, the stored prompt around the gold); a wrong answer equal to
# a hard negative's value is flagged "D"; the cells table counts outcomes per cell; one whole
# prompt is shown collapsed; each row shows the question's overlap share and its gold's BM25 rank
# at that length (as the store holds it). The sorting script is the page's only script and is allowed by its
# hash in the CSP; the page reads the same without scripts.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen needle --n 6 --seed 2 --out g.jsonl >/dev/null || fail "gen needle"
start_sim sim --dataset g.jsonl --model sim:edge=0.95,dip=0.7,seed=4
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model sim --dataset g.jsonl \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k,2k --depths 0:100:25 --repeats 2 \
    --store-prompts --db t.db --run r --progress none
expect_code 0 "$DIPMAP" report r --db t.db --dataset g.jsonl --out rep --no-plots
q t.db "select question_id, length, depth_bp, repeat, outcome, coalesce(answer, ''), realized_length,
        coalesce(realized_depth, -1), prompt_sha256, gold_bm25_rank, bm25_docs from trials
        order by 1, 2, 3, 4" >trials.txt
[ "$(wc -l <trials.txt)" = 120 ] || fail "fixture has $(wc -l <trials.txt) trials"
grep -q '|wrong|' trials.txt || fail "fixture: no wrong answer to show"
q t.db "select sha256, hex(text) from prompts" >prompts.txt
python3 - rep/report.html g.jsonl trials.txt prompts.txt <<'PY' || fail "question view wrong"
import base64, hashlib, html, json, re, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding='utf-8').read()
gold = {q['id']: q for q in map(json.loads, open(sys.argv[2]))}
rows = [l.rstrip('\n').split('|') for l in open(sys.argv[3])]
prompts = {s: bytes.fromhex(h).decode() for s, h in (l.rstrip('\n').split('|') for l in open(sys.argv[4]))}

def distractor(qid, outcome, answer):
    if outcome != 'wrong':
        return None
    for d in gold[qid].get('distractors', []):
        v = d.get('value')
        if v and v.lower() in answer.lower():
            return d
    return None

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.cell = [], None, None, None
        self.scripts, self.ids, self.in_script = [], set(), False
    def handle_starttag(self, tag, a):
        a = dict(a)
        if 'id' in a: self.ids.add(a['id'])
        if tag == 'script': self.in_script = True; self.scripts.append('')
        if tag == 'table' and 'qm' in (a.get('class') or ''): self.cur = []; self.tables.append(self.cur)
        if self.cur is None: return
        if tag == 'tr': self.row = []
        if tag in ('td', 'th') and self.row is not None: self.cell = {'cls': a.get('class'), 'v': a.get('data-v'), 'links': [], 'text': ''}
        if tag == 'a' and self.cell is not None: self.cell['links'].append(a['href'])
    def handle_endtag(self, tag):
        if tag == 'script': self.in_script = False
        if self.cur is None: return
        if tag in ('td', 'th') and self.cell is not None: self.row.append(self.cell); self.cell = None
        if tag == 'tr' and self.row is not None: self.cur.append(self.row); self.row = None
        if tag == 'table': self.cur = None
    def handle_data(self, d):
        if self.in_script: self.scripts[-1] += d
        if self.cell is not None: self.cell['text'] += d
p = P(); p.feed(page)

# one script, allowed by its hash, nothing else
assert len(p.scripts) == 1, len(p.scripts)
h = base64.b64encode(hashlib.sha256(p.scripts[0].encode()).digest()).decode()
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
assert f"script-src 'sha256-{h}'" in csp, csp
assert "default-src 'none'" in csp

# two lengths; header question, accuracy, 5 depths; 6 question rows each
assert len(p.tables) == 2, len(p.tables)
depths = ['0%', '25%', '50%', '75%', '100%']
by_key = {(r[0], int(r[1]), int(r[2]), int(r[3])): r for r in rows}
sym = {'correct': '\u2713', 'wrong': '\u2717', 'truncated': 'T', 'overflow': 'O', 'empty': 'E', 'filtered': 'F', 'error': '!'}
flagged = 0
for t, L in zip(p.tables, (1024, 2048)):
    head = [c['text'].strip() for c in t[0]]
    assert head == ['question', 'accuracy', 'overlap', 'BM25 rank'] + depths, head
    body = t[1:]
    assert len(body) == 6, len(body)
    accs = []
    for r in body:
        qid = r[0]['text'].strip()
        mine = [x for x in rows if x[0] == qid and int(x[1]) == L]
        valid = [x for x in mine if x[4] in ('correct', 'wrong')]
        acc = sum(x[4] == 'correct' for x in valid) / len(valid)
        assert abs(float(r[1]['v']) - acc) < 1e-6, (qid, L, r[1]['v'], acc)
        accs.append(acc)
        # the question's overlap share and its gold's BM25 rank at this length (one value: no axes)
        assert 0 <= float(r[2]['v']) <= 1 and r[2]['text'].endswith('%'), r[2]
        ranks = {(x[9], x[10]) for x in mine}
        assert len(ranks) == 1, ranks
        assert r[3]['text'] == '%s / %s' % ranks.pop() and r[3]['v'] == mine[0][9], r[3]
        for di, cell in enumerate(r[4:]):
            dbp = di * 2500
            trials = [by_key[(qid, L, dbp, k)] for k in (0, 1)]
            want = ''
            for x in trials:
                dis = distractor(qid, x[4], x[5])
                want += 'D' if dis else sym[x[4]]
            assert cell['text'] == want, (qid, L, dbp, cell['text'], want)
            # the cell takes its worst trial's colour
            bad = [x for x in trials if x[4] != 'correct']
            if not bad:
                assert cell['cls'] == 'o-c', cell
            elif bad[0][4] == 'wrong':
                assert cell['cls'] == ('o-d' if distractor(qid, 'wrong', bad[0][5]) else 'o-w'), (cell, bad)
            assert len(cell['links']) == 2
            for link in cell['links']:
                assert link[1:] in p.ids, f'{link} has no target'
            flagged += want.count('D')
    assert accs == sorted(accs), f'rows not worst first: {accs}'
assert flagged > 0, 'the fixture has no distractor answer (sim answers with a hard negative when wrong)'

# trial details: each trial's block holds what the store holds
blocks = dict(re.findall(r'<details id="(t\d+)" class="trial">(.*?)</details>', page, re.S))
assert len(blocks) == 120, len(blocks)
seen_excerpt = 0
for b in blocks.values():
    m = re.match(r'<summary>(\S+) · (\d+k) · (\d+%) · repeat (\d)', b)
    qid, L, d, k = m.group(1), int(m.group(2)[:-1]) * 1024, int(m.group(3)[:-1]) * 100, int(m.group(4))
    x = by_key[(qid, L, d, k)]
    text = html.unescape(re.sub(r'<[^>]+>', ' ', b))
    assert x[4] in text and gold[qid]['question'] in text and gold[qid]['answers'][0] in text, text[:300]
    if x[5]:
        assert x[5] in text, (x[5], text[:400])
    assert f'{x[6]} tokens realized' in text, text
    assert f'{100 * float(x[7]):.1f}% realized' in text, text
    if distractor(qid, x[4], x[5]):
        assert "a distractor's value" in text and 'hard negative' in text
    pre = re.search(r'<pre class="prompt">(.*?)</pre>', b, re.S)
    assert pre, 'no prompt excerpt although prompts were stored'
    ex = html.unescape(pre.group(1))
    assert gold[qid]['gold'][0]['text'] in ex, 'excerpt lacks the gold chunk'
    body = ex.split('\n', 1)[1] if ex.startswith('\u2026') else ex
    body = body.rsplit('\n\u2026', 1)[0]
    full = prompts[x[8]].replace('\0', '\n\n[user]\n')
    assert body in ('[system]\n' + full), 'excerpt is not a piece of the stored prompt'
    seen_excerpt += 1
assert seen_excerpt == 120

# one whole prompt, collapsed, equal to a stored prompt
m = re.search(r'<details class="prompt"><summary>(.*?)</summary>\s*<pre class="prompt">(.*?)</pre></details>', page, re.S)
assert m, 'no example prompt'
shown = html.unescape(m.group(2))
assert any(shown == '[system]\n' + v.replace('\0', '\n\n[user]\n') for v in prompts.values()), 'example prompt differs'

# outcome counts per (length, depth) cell in the cells table
cells = re.search(r'<h2 id="cells">.*?</table>', page, re.S).group(0)
for L, lab in ((1024, '1k'), (2048, '2k')):
    for di, d in enumerate(depths):
        mine = [x for x in rows if int(x[1]) == L and int(x[2]) == di * 2500]
        c = sum(x[4] == 'correct' for x in mine)
        w = [x for x in mine if x[4] == 'wrong']
        nd = sum(1 for x in w if distractor(x[0], 'wrong', x[5]))
        want = f'{c} correct' if c else ''
        if w:
            want += (', ' if want else '') + f'{len(w)} wrong' + (f' ({nd} distractor)' if nd else '')
        row = re.search(rf'<tr><td>{lab} \({L}\)</td><td class="num">{re.escape(d)}</td>.*?</tr>', cells, re.S).group(0)
        got = re.findall(r'<td>([^<]*)</td></tr>', row)
        assert got == [want], (lab, d, row, want)
PY
exit 0
