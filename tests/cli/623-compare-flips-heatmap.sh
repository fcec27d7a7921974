# compare.md and compare.html drill down: per regressed cell the questions that went correct ->
# wrong and wrong -> correct with both runs' answers (as the stores hold them), a depth x length
# table/heatmap of the change in pp with the tested significance marked (as compare.json says),
# and a legend (plot key and caption) that names every band and marker.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
# 60 questions: at 40 the anytime-valid cell tests find one regressed cell of the six whose
# accuracy fell 40-60 pp; at 60 all six, so several drill-down sections are checked
make_run t.db --run base --model m --time 1764000000 --dip 0.1 --questions 60
make_run t.db --run cand --model m --time 1764003600 --dip 0.6 --questions 60
# one flip the other way in a regressed cell: q03 wrong in the baseline at 8k / 50%
sqlite3 t.db "update trials set outcome = 'wrong', answer = 'base <b>wrong</b> | 3', score = 0
    where run_id = (select id from runs where name = 'base') and question_id = 'q03'
    and length = 8192 and depth_bp = 5000"
expect_code 1 "$DIPMAP" compare base cand --db t.db --out cmp --json v.json
cp cmp/compare.md md.txt
q="select b.question_id, b.repeat, b.outcome, coalesce(b.answer, ''), c.outcome, coalesce(c.answer, ''), b.length, b.depth_bp
   from trials b join trials c using (question_id, length, depth_bp, repeat)
   where b.run_id = (select id from runs where name = 'base') and c.run_id = (select id from runs where name = 'cand')
   and b.outcome in ('correct', 'wrong') and c.outcome in ('correct', 'wrong') and b.outcome != c.outcome"
sqlite3 -separator $'\t' t.db "$q" >flips.tsv
python3 - md.txt cmp/compare.html v.json flips.tsv cmp/compare.svg <<'PY' || fail "drill-down wrong"
import html, json, re, sys, xml.etree.ElementTree as ET
md = open(sys.argv[1], encoding='utf-8').read()
page = open(sys.argv[2], encoding='utf-8').read()
tests = json.load(open(sys.argv[3]))['tests']
flips = [l.rstrip('\n').split('\t') for l in open(sys.argv[4], encoding='utf-8')]
kfmt = lambda L: f'{L // 1024}k'
pp = lambda x: f'{x * 100:+.1f} pp'
cells = [t for t in tests if t['scope'] == 'cell']
reg = [t for t in cells if t['status'] == 'regression']
assert len(reg) >= 4, reg

def esc_md(s):
    return re.sub(r'([\\`*_\[\]#~|])', r'\\\1', s).replace('<', '&lt;').replace('>', '&gt;')

# --- Markdown: one section per regressed cell, each flip with both answers
for t in reg:
    L, d = t['length'], int(round(t['depth'] * 10000))
    head = f"#### {kfmt(L)} tokens, depth {d // 100}%: "
    i = md.index(head)
    j = md.find('\n#### ', i + 1)
    sec = md[i: j if j > 0 else len(md)]
    lost = [f for f in flips if int(f[6]) == L and int(f[7]) == d and f[2] == 'correct']
    gained = [f for f in flips if int(f[6]) == L and int(f[7]) == d and f[2] == 'wrong']
    assert f'Correct -> wrong: {len(lost)}' in sec, (head, len(lost), sec[:300])
    assert f'Wrong -> correct: {len(gained)}' in sec, (head, len(gained))
    for f in lost[:25] + gained[:25]:
        row = f'| {f[0]} | {f[1]} | {esc_md(f[3])} | {esc_md(f[5])} |'
        assert row in sec, (row, sec[:600])
# the planted counter-flip is listed with both answers, escaped
assert '| q03 | 0 | base &lt;b&gt;wrong&lt;/b&gt; \\| 3 | answer-3 |' in md, 'wrong -> correct flip missing'

# --- Markdown: the change table equals compare.json, marks by status
mark = {'regression': ' \u25bc', 'improvement': ' \u25b2', 'not enough data': ' ?', 'ok': ''}
lengths = sorted({t['length'] for t in cells})
tbl = md[md.index('### Change by depth and length'):]
for t in cells:
    d = int(round(t['depth'] * 10000))
    row = re.search(rf'^\| {d // 100}% \|(.*)$', tbl, re.M).group(1).split('|')
    got = row[lengths.index(t['length'])].strip()
    want = pp(-t['drop']) + mark[t['status']]
    assert got == want, (t['length'], d, got, want)

# --- HTML: the heatmap's cells are coloured and marked, the flips listed with both answers
hm = re.search(r'<table class="change">(.*?)</table>', page, re.S).group(1)
tds = re.findall(r'<td class="num (chg-[a-z0-9]+)">([^<]*)</td>', hm)
assert len(tds) == len(cells), len(tds)
assert any(c == 'chg-n3' and '\u25bc' in html.unescape(v) for c, v in tds), tds
assert '<h2 id="flips">Questions that flipped in regressed cells</h2>' in page
assert '<td>base &lt;b&gt;wrong&lt;/b&gt; | 3</td><td>answer-3</td>' in page, 'html flip row'
assert 'Wrong in the baseline, correct in the candidate: 1' in page

# --- legend: every band and marker named, in the plot key and the caption
root = ET.parse(sys.argv[5]).getroot()
texts = [(x.text or '').strip() for x in root.iter('{http://www.w3.org/2000/svg}text')]
for want in ('8k baseline', '32k baseline', '8k candidate', '32k candidate',
             '8k candidate 95% interval', '32k candidate 95% interval', 'significant regression'):
    assert want in texts, (want, texts)
cap = re.search(r'<figcaption>(.*?)</figcaption>', page).group(1)
for w in ('Baseline dashed', 'candidate solid', "shaded bands: the candidate's Wilson 95% interval", 'circled'):
    assert w in html.unescape(cap), cap
PY
exit 0
