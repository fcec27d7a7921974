# dipmap view: a read-only web UI on 127.0.0.1 rendered from the store on each request.
# Headless Chromium opens the runs page, submits the compare form's choice (the URL the form
# builds), screenshots the comparison and checks its content; the trend page marks the run
# whose comparison with the last passing one failed; a run added while the server runs appears on
# the next request; hostile run names and answers stay text; only loopback Host names, GET/HEAD
# and known pages are served.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
if [ -z "$(chromium_bin)" ]; then
    require_or_skip DIPMAP_REQUIRE_CHROMIUM "chromium not installed (make deps installs it)"
fi
for i in 1 2 3; do
    d=0.1
    [ $i = 3 ] && d=0.6
    make_run t.db --run "n$i" --model prod-7b --tag nightly --time $((1764000000 + i * 3600)) --dip $d --questions 40
done
hostile='<img src=x onerror="document.title=1">&amp;'
make_run t.db --run "$hostile" --model '<b>m</b>' --tag 'x"y' --time 1764100000 --golden gold.jsonl --hostile

"$DIPMAP" view --db t.db --port 0 >view.out 2>view.err &
VIEW_PID=$!
trap 'kill $VIEW_PID 2>/dev/null; wait $VIEW_PID 2>/dev/null' EXIT
wait_for_file view.out $VIEW_PID
url=$(head -n 1 view.out)
case "$url" in http://127.0.0.1:[0-9]*/) ;; *) fail "view printed '$url' (stderr: $(cat view.err))" ;; esac
port=${url#http://127.0.0.1:}
port=${port%/}

# bound to loopback only: not reachable on another address of this machine
other=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v '^127\.' | grep -v ':' | head -n 1)
if [ -n "$other" ]; then
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://$other:$port/")
    [ "$code" = 000 ] || fail "view answered on $other:$port ($code)"
fi
hdr() { curl -s -D - -o "$2" "$1" | tr -d '\r'; }
hdr "$url" runs.html >runs.hdr
grep -q "^HTTP/1.1 200" runs.hdr || fail "GET /: $(head -n 1 runs.hdr)"
grep -q "^Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/=]*'; form-action 'self'" runs.hdr ||
    fail "no CSP header: $(cat runs.hdr)"
grep -qi '^X-Content-Type-Options: nosniff' runs.hdr || fail "no nosniff"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")" = 405 ] || fail "POST accepted"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: attacker.example' "$url")" = 421 ] ||
    fail "a foreign Host name was served (DNS rebinding)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "${url}run?name=nope")" = 404 ] || fail "unknown run not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' "${url}compare?base=n1")" = 400 ] || fail "missing cand not 400"
[ "$(curl -s -o /dev/null -w '%{http_code}' "${url}etc/passwd")" = 404 ] || fail "unknown page not 404"

# ---- the runs page in Chromium: the rows, and the compare form's URL ----
chromium_run --dump-dom "$url" >runs.dom || fail "chromium --dump-dom /: $(tail -5 chromium.log)"
python3 - runs.dom "$url" >compare.url <<'PY' || fail "runs page wrong"
import sys, urllib.parse
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.tags = [], None, None, {}
        self.form, self.selects, self.cur = None, {}, None
    def handle_starttag(self, tag, a):
        a = dict(a)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k in a:
            assert not k.startswith('on'), f'event handler {k} on <{tag}>'
        if tag == 'tr': self.row = []
        if tag == 'td' and self.row is not None: self.cell = ''
        if tag == 'form': self.form = a
        if tag == 'select': self.cur = a['name']; self.selects[self.cur] = []
        if tag == 'option': self.selects[self.cur].append(a['value'])
    def handle_endtag(self, tag):
        if tag == 'td' and self.row is not None: self.row.append(self.cell); self.cell = None
        if tag == 'tr' and self.row: self.rows.append(self.row); self.row = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = P()
p.feed(open(sys.argv[1], encoding='utf-8').read())
assert p.tags.get('script', 0) == 0 and p.tags.get('img', 0) == 0, p.tags
names = [r[0] for r in p.rows]
hostile = '<img src=x onerror="document.title=1">&amp;'
assert names == ['n1', 'n2', 'n3', hostile], names
n1 = p.rows[0]
assert n1[1] == 'prod-7b' and n1[2] == 'nightly' and n1[3] == 'complete', n1
assert n1[4] == '400 / 400' and n1[5].endswith('%') and ' pp at ' in n1[6], n1
assert p.rows[3][1] == '<b>m</b>' and p.rows[3][2] == 'x"y', p.rows[3]
# what submitting the form with baseline n2 and candidate n3 chosen does: GET action?base=&cand=
assert p.form['action'] == '/compare' and p.form.get('method', 'get') == 'get', p.form
assert p.selects == {'base': names, 'cand': names}, p.selects
q = urllib.parse.urlencode({'base': 'n2', 'cand': 'n3'})
print(urllib.parse.urljoin(sys.argv[2], p.form['action']) + '?' + q)
PY

# ---- compare two runs: screenshot and content ----
cmp=$(cat compare.url)
chromium_run --window-size=1280,1600 --screenshot="$PWD/compare.png" "$cmp" >/dev/null ||
    fail "chromium --screenshot failed: $(tail -5 chromium.log)"
[ "$(png_size compare.png)" = "1280 1600" ] || fail "screenshot size $(png_size compare.png)"
[ "$(stat -c %s compare.png)" -gt 30000 ] || fail "compare screenshot suspiciously small (blank page?)"
chromium_run --dump-dom "$cmp" >compare.dom || fail "chromium --dump-dom compare"
python3 - compare.dom <<'PY' || fail "compare page wrong"
import sys, re
t = open(sys.argv[1], encoding='utf-8').read()
assert '<title>dipmap compare: n2 vs n3</title>' in t, re.findall('<title>.*?</title>', t)
text = re.sub(r'<[^>]+>', ' ', t)
assert 'FAIL:' in text and 'regression' in text, 'no FAIL verdict'
assert t.count('<svg') == 1, 'overlay plot not inlined'
assert 'All runs' in text
PY

# ---- the trend of the tag: n2 is INCONCLUSIVE, so n3 is compared with n1 (last-pass) ----
curl -s "${url}trend?tag=nightly" >trend.html
python3 - trend.html <<'PY' || fail "trend page wrong"
import sys, re
t = open(sys.argv[1], encoding='utf-8').read()
rows = re.findall(r'<tr[^>]*>.*?</tr>', t, re.S)
row = {re.search(r'name=(n\d)', r).group(1): r for r in rows if 'name=n' in r}
assert 'FAIL vs n1' in row['n3'] and 'class="regressed"' in row['n3'], row['n3']
# 40 identical questions cannot bound a drop below 5 pp: n2 is INCONCLUSIVE, not regressed
assert re.search(r'(PASS|INCONCLUSIVE) vs n1', row['n2']) and 'regressed' not in row['n2'], row['n2']
assert 'failed vs last passing run' in t, 'trend plot key lacks the ring'
PY

# ---- the hostile run's report: text, not markup ----
enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$hostile")
chromium_run --dump-dom "${url}run?name=$enc" >run.dom || fail "chromium run page"
python3 - run.dom <<'PY' || fail "hostile run page"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = {}; self.title = ''; self.t = False; self.text = []
    def handle_starttag(self, tag, a):
        self.tags[tag] = self.tags.get(tag, 0) + 1; self.t = tag == 'title'
    def handle_endtag(self, tag): self.t = False
    def handle_data(self, d):
        if self.t: self.title += d
        self.text.append(d)
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
assert p.title.startswith('dipmap report: <img src=x'), p.title
assert p.tags.get('img', 0) == 0 and p.tags.get('script', 0) == 1, p.tags  # the sort script
text = ' '.join(p.text)
assert "<script>document.title='PWNED'</script>" in text, 'hostile answer not shown as text'
PY

# ---- rendered per request: a run added now shows on the next load ----
make_run t.db --run n4 --model prod-7b --tag nightly --time 1764200000
curl -s "$url" | grep -q 'name=n4"' || fail "a run added while view runs does not appear"
kill -TERM $VIEW_PID
wait $VIEW_PID
rc=$?
[ $rc = 0 ] || fail "view exited $rc on SIGTERM"
trap - EXIT
grep -q 'view: stopped (SIGTERM)' view.err || fail "no stop message"
# a store that cannot be opened fails at start, exit 2
expect_code 2 "$DIPMAP" view --db missing.db --port 0
expect_code 2 "$DIPMAP" view --db t.db --port 70000
assert_contains err "--port must be 0..65535"
exit 0
