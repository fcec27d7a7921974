# report.html rendered by headless Chromium: it paints (screenshot of the
# requested size), its DOM shows the key numbers and both inline plots, and
# the hostile model answers stayed text: no script ran (the title is intact),
# no <img> element exists and the only <script> is the report's sorting script.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
if [ -z "$(chromium_bin)" ]; then
    # CI (.ci/run) installs chromium and sets DIPMAP_REQUIRE_CHROMIUM: no silent skip there
    require_or_skip DIPMAP_REQUIRE_CHROMIUM "chromium not installed (make deps installs it)"
fi
make_run t.db --run r1 --model m-7b --golden gold.jsonl --hostile
expect_code 0 "$DIPMAP" report r1 --db t.db
html="file://$PWD/reports/r1/report.html"

chromium_run --window-size=1200,1600 --screenshot="$PWD/shot.png" "$html" >/dev/null ||
    fail "chromium --screenshot failed: $(tail -5 chromium.log)"
[ "$(png_size shot.png)" = "1200 1600" ] || fail "screenshot size $(png_size shot.png)"
[ "$(stat -c %s shot.png)" -gt 20000 ] || fail "screenshot suspiciously small (blank page?)"

chromium_run --dump-dom "$html" >dom.html || fail "chromium --dump-dom failed: $(tail -5 chromium.log)"
python3 - dom.html <<'PY' || fail "DOM check failed"
import sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.title, self.text, self._in_title = {}, '', [], False
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k, v in attrs:
            assert not k.startswith('on'), f'event handler attribute {k} on <{tag}>'
            # self-contained: nothing to fetch (only in-document #references)
            if k in ('src', 'href', 'xlink:href', 'srcset', 'data', 'action'):
                assert (v or '').startswith('#'), f'<{tag} {k}={v!r}> would fetch'
        self._in_title = tag == 'title' and not self.title
    def handle_endtag(self, tag):
        self._in_title = False
    def handle_data(self, d):
        if self._in_title:
            self.title += d
        self.text.append(d)

p = P()
p.feed(open(sys.argv[1], encoding='utf-8').read())
import re
text = re.sub(r'\s+', ' ', ' '.join(p.text))  # an interval's bounds are two spans
assert p.title == 'dipmap report: r1 (m-7b)', f'title changed: {p.title!r}'
assert 'PWNED' not in p.title
assert p.tags.get('script', 0) == 1, f"{p.tags.get('script', 0)} <script> elements"
assert "<script>document.querySelectorAll('table.sortable')" in open(sys.argv[1], encoding='utf-8').read()
assert p.tags.get('img', 0) == 0, 'an <img> element exists'
assert p.tags.get('svg', 0) == 2, f"{p.tags.get('svg', 0)} inline SVGs"
for needle in ['+40.0 pp', '+50.0 pp', '45.0%', '55.0%', '[25.8%, 65.8%]',
               "<script>document.title='PWNED'</script>",
               '"><img src=x onerror="document.title=\'PWNED\'">',
               'what is <b>code</b> number 19?']:
    assert needle in text, f'DOM text lacks {needle!r}'
PY
exit 0
