# report.html in headless Chromium at 1280 px: nothing scrolls sideways (neither the page nor
# any table's scroll box: the dip table used to hide its last column), the question matrices'
# sorting script runs under the page's own CSP (allowed by its hash) and sorts by accuracy both
# ways, and with scripts off the page shows the same tables, unsorted-by-click but complete.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
if [ -z "$(chromium_bin)" ]; then
    require_or_skip DIPMAP_REQUIRE_CHROMIUM "chromium not installed (make deps installs it)"
fi
make_run t.db --run r1 --model m-7b --golden gold.jsonl --hostile --questions 30
expect_code 0 "$DIPMAP" report r1 --db t.db --out rep
page=$PWD/rep/report.html

# a screenshot at 1280 x 2000
chromium_run --window-size=1280,2000 --screenshot="$PWD/shot.png" "file://$page" >/dev/null ||
    fail "chromium --screenshot failed: $(tail -5 chromium.log)"
[ "$(png_size shot.png)" = "1280 2000" ] || fail "screenshot size $(png_size shot.png)"
[ "$(stat -c %s shot.png)" -gt 30000 ] || fail "screenshot suspiciously small (blank page?)"

# the page's own script runs under its CSP: the sort buttons exist
chromium_run --window-size=1280,900 --virtual-time-budget=3000 --dump-dom "file://$page" >js.dom ||
    fail "chromium --dump-dom failed"
n=$(grep -o '<button type="button" class="sort">' js.dom | wc -l)
[ "$n" = 8 ] || fail "$n sort buttons (want 4 per question matrix: the CSP hash does not match?)"
# scripts off: the page paints, and what it shows is the file itself: both matrices, every
# trial's details, no buttons (the script adds them)
# (headless Chromium cannot screenshot with scripts disabled: render a copy without the script)
sed 's#<script>.*</script>##' "$page" >nojs.html
grep -q '<script' nojs.html && fail "could not strip the script"
chromium_run --window-size=1280,2000 --screenshot="$PWD/nojs.png" "file://$PWD/nojs.html" >/dev/null ||
    fail "chromium --screenshot (no JS) failed"
[ "$(stat -c %s nojs.png)" -gt 30000 ] || fail "no-JS screenshot suspiciously small"
grep -q 'class="sort"' "$page" && fail "sort buttons in the static page"
[ "$(grep -o '<table class="qm sortable">' "$page" | wc -l)" = 2 ] || fail "matrices missing"
n=$(sqlite3 t.db "select count(*) from trials")
[ "$(grep -o '<details id="t[0-9]*" class="trial">' "$page" | wc -l)" = "$n" ] || fail "trial details missing"

# a measuring copy (the test's own script; the CSP is the test's to change in its copy):
# widths at 1280 px, then a click on 'accuracy' twice
python3 - "$page" probe.html <<'PY' || fail "cannot make the probe page"
import re, sys
s = open(sys.argv[1], encoding='utf-8').read()
s = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', '', s)
probe = r"""<script>window.addEventListener('load', function () {
  var out = [], iw = window.innerWidth;
  out.push('PAGE ' + document.documentElement.scrollWidth + ' ' + iw);
  document.querySelectorAll('*').forEach(function (e) {
    var o = getComputedStyle(e).overflowX;
    if (o !== 'visible' && e.tagName !== 'PRE' && e.scrollWidth > e.clientWidth + 1)
      out.push('SCROLLS ' + (e.querySelector('tr') || e).textContent.slice(0, 40));
  });
  var t = document.querySelector('table.qm'), b = t.querySelectorAll('button.sort')[1];
  function order() { return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[1].getAttribute('data-v'); }).join(','); }
  out.push('START ' + order()); b.click(); out.push('ASC ' + order()); b.click(); out.push('DESC ' + order());
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = out.join('\n'); document.body.appendChild(pre);
});</script>"""
s = s.replace('</body>', probe + '</body>')
open(sys.argv[2], 'w', encoding='utf-8').write(s)
PY
chromium_run --window-size=1280,900 --virtual-time-budget=3000 --dump-dom "file://$PWD/probe.html" >probe.dom ||
    fail "chromium --dump-dom probe failed"
python3 - probe.dom <<'PY' || fail "layout or sorting wrong"
import html, re, sys
m = re.search(r'<pre id="probe">(.*?)</pre>', open(sys.argv[1], encoding='utf-8').read(), re.S)
assert m, 'probe did not run'
lines = html.unescape(m.group(1)).split('\n')
page = [l for l in lines if l.startswith('PAGE ')][0].split()
assert int(page[1]) <= int(page[2]), f'the page scrolls sideways: {page}'
scrolls = [l for l in lines if l.startswith('SCROLLS ')]
assert not scrolls, f'boxes scroll sideways at 1280 px: {scrolls}'
get = lambda k: [float(x) for x in [l for l in lines if l.startswith(k + ' ')][0].split(' ', 1)[1].split(',')]
start, asc, desc = get('START'), get('ASC'), get('DESC')
assert start == sorted(start), f'rows not worst first without a click: {start}'
assert asc == sorted(asc) and desc == sorted(desc, reverse=True), (asc, desc)
assert sorted(asc) == sorted(start) and asc != desc
PY
exit 0
