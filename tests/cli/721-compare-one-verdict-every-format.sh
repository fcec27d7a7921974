# One verdict, every format (issue 42): a FAIL, a PASS, an INCONCLUSIVE and a refused comparison,
# each written as stdout (Markdown), the step summary, compare.md, compare.html, compare.json,
# JUnit and the GitHub annotations. Every format states the same verdict, lists the primary
# endpoints first in the same order, gives each endpoint the same change with the same sign (a
# dip that grew is "+", in its own unit "dip X pp"), the same counts of what the gate tested,
# and names what was tested (models, golden set, lengths, tokenizer, endpoints). Secondary cells
# never fail JUnit and come after every primary ::error. It used to show the dip in
# compare.html as accuracies with the other sign, annotate five cells before any endpoint,
# mark 14 JUnit failures for 2 primary regressions and count 15 regressions in the headline.
# The man page says what exit 0 means under each PASS rule.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
# 160 questions: identical runs PASS under the anytime-valid bounds (80 stay INCONCLUSIVE, about
# 140 needed); 20 questions stay INCONCLUSIVE
make_run t.db --run base --model m-1 --dip 0.1 --questions 160
make_run t.db --run same --model m-1 --dip 0.1 --questions 160
make_run t.db --run deep --model m-2 --dip 0.6 --questions 160
make_run t.db --run few1 --model m-1 --dip 0.1 --questions 20
make_run t.db --run few2 --model m-1 --dip 0.1 --questions 20
make_run t.db --run other --model m-1 --dip 0.1 --questions 160
sqlite3 t.db "update runs set golden_sha256 = 'ffff' where name = 'other'"

check() { # check NAME BASE CAND CODE VERDICT
    mkdir "$1"
    : >"$1/summary.md"
    GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$PWD/$1/summary.md" \
        expect_code "$4" "$DIPMAP" compare "$2" "$3" --db t.db --json "$1/v.json" \
        --junit "$1/v.xml" --out "$1/o"
    cp out "$1/stdout"
    python3 - "$1" "$5" <<'PY' || fail "$1: the formats disagree (above)"
import json, re, sys, html
import xml.etree.ElementTree as ET
d, want = sys.argv[1], sys.argv[2]
md_out = open(f"{d}/stdout").read()
summary = open(f"{d}/summary.md").read()
md = open(f"{d}/o/compare.md").read()
page = open(f"{d}/o/compare.html").read()
j = json.load(open(f"{d}/v.json"))
x = ET.parse(f"{d}/v.xml").getroot()
def unmd(s):  # Markdown's escapes back to text
    return html.unescape(re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", s))
def text(s):  # HTML to text
    return html.unescape(re.sub(r"<[^>]+>", " ", s))
props = {p.get("name"): p.get("value") for p in x.iter("property")}
# the verdict
assert j["verdict"] == want, j["verdict"]
assert props["verdict"] == want, props
for m in (summary, md) + (() if j["refused"] else (md_out,)):
    assert m.startswith(f"\n## dipmap compare: {want}") or f"## dipmap compare: {want}" in m.split("\n\n")[0] + m[:80], m[:200]
assert f'<p class="verdict {want.lower()}">{want}' in page, re.findall(r'<p class="verdict[^>]*>[^<]*', page)
if j["refused"]:
    assert "not compared" in summary and "not compared" in md and "not compared" in page
    assert md_out.startswith("::error title=dipmap compare refused::"), md_out
    assert x.find(".//error[@type='refused']") is not None
    sys.exit(0)
# stdout is compare.md (and the annotations); compare.md also links the plot
strip = lambda m: "\n".join(l for l in m.splitlines() if not l.startswith(("::", "![")))
assert strip(md_out).strip() == strip(md).strip(), "stdout and compare.md differ"
assert strip(summary).strip() == strip(md).strip(), "the step summary and compare.md differ"
# the counts of what the gate tested, the same sentence everywhere
counts = j["counts"]
assert counts.startswith(want + ": "), counts
assert counts in unmd(md) and counts in text(page) and props["counts"] == counts, counts
g = j["gate_counts"]
# what was tested
for line in j["tested"]:
    assert line in unmd(md), line
    assert line in text(page), line
tested = [p.get("value") for p in x.iter("property") if p.get("name") == "tested"]
assert tested == j["tested"], tested
assert any(l.startswith("models: baseline ") for l in j["tested"])
assert any(l.startswith("golden set: ") for l in j["tested"])
assert any(l.startswith("lengths: 8k, 32k") for l in j["tested"])
assert any(l.startswith("tokenizer: ") for l in j["tested"])
# primary endpoints first, in one order, with one change each
prim = [t for t in j["tests"] if t["primary"]]
assert prim and j["tests"][: len(prim)] == prim, "JSON: primary endpoints not first"
names = []
for t in prim:
    L = {8192: "8k", 32768: "32k"}[t["length"]]
    names.append(L + {"length": " (all depths)", "middle": " middle (25-75%)", "dip": " dip"}[t["scope"]])
cases = list(x.iter("testcase"))
jn = [c.get("classname").rsplit(".", 1)[-1] + " " + c.get("name") for c in cases[: len(prim)]]
assert jn == [n.replace(" (all depths)", " all depths") for n in names], jn
rows_md = [r for r in unmd(md).splitlines() if r.startswith("| ") and any(r.startswith(f"| {n} |") for n in names)]
assert [r.split(" | ")[0][2:] for r in rows_md[: len(prim)]] == names, rows_md[: len(prim)]
rows_html = re.findall(r"<tr[^>]*><td>([^<]*)</td>(.*?)</tr>", page)
rows_html = [(html.unescape(a), text(b)) for a, b in rows_html if html.unescape(a) in names]
assert [a for a, _ in rows_html[: len(prim)]] == names, rows_html[: len(prim)]
for t, n, rm, (hn, hrow), c in zip(prim, names, rows_md, rows_html, cases):
    if t["change"] is None:
        continue
    ch = "%+.1f pp" % (t["change"] * 100 + 0.0)
    if ch in ("-0.0 pp",):
        ch = "+0.0 pp"
    # the change is candidate minus baseline of what the endpoint measures: a dip that grew is +
    if t["scope"] == "dip":
        assert abs(t["change"] - t["drop"]) < 1e-12, t
        assert f"dip {t['accuracy_baseline']*100:.1f} pp" in rm, rm
    else:
        assert abs(t["change"] + t["drop"]) < 1e-12, t
    assert rm.split(" | ")[4] == ch, (n, rm, ch)
    assert f" {ch} " in f" {hrow} ", (n, hrow, ch)
    assert f"({ch})" in c.find("system-out").text, (n, c.find("system-out").text)
    assert rm.split(" | ")[-1].rstrip(" |") == t["decision"], (rm, t["decision"])
# JUnit fails only what the gate tested, and the verdict's own testcase when not PASS
fails = sum(t["fails_gate"] for t in j["tests"]) + g["undecided"] + (want != "PASS")
assert int(x.get("failures")) == fails, (x.get("failures"), fails)
for c, t in zip(cases, j["tests"]):
    if t["scope"] == "cell" and not t["gated"]:
        assert c.find("failure") is None, c.get("name")
# annotations: one ::error per test that fails the gate (at most 10 lines)
ann = [l for l in md_out.splitlines() if l.startswith("::")]
n_fail = sum(t["fails_gate"] for t in j["tests"])
assert sum(l.startswith("::error") for l in ann) == min(n_fail, 10), (ann, n_fail)
PY
}
check fail base deep 1 FAIL
check pass base same 0 PASS
check inc few1 few2 4 INCONCLUSIVE
check refused base other 4 INCONCLUSIVE

# the annotations of the FAIL: the primary endpoints' errors first, a dip's sign as in the tables
GITHUB_ACTIONS=true expect_code 1 "$DIPMAP" compare base deep --db t.db
grep '^::' out >ann
head -1 ann | grep -q '^::error title=dipmap regression 8k (all depths)::' ||
    fail "the first annotation is not a primary endpoint: $(head -1 ann)"
n_err=$(grep -c '^::error' ann)
python3 - "$n_err" <<'PY' || fail "annotations disagree with compare.json"
import json, sys
j = json.load(open("fail/v.json"))
n = sum(t["fails_gate"] for t in j["tests"])
assert int(sys.argv[1]) == n, (sys.argv[1], n)
dip = [t for t in j["tests"] if t["scope"] == "dip" and t["fails_gate"]]
ann = open("ann").read()
for t in dip:
    L = {8192: "8k", 32768: "32k"}[t["length"]]
    assert f"{L} dip: dip {t['accuracy_baseline']*100:.1f} pp -> dip {t['accuracy_candidate']*100:.1f} pp ({t['change']*100:+.1f} pp)" in ann, ann
PY
awk '/^::warning/{w=1} /^::error/ && w {exit 1}' ann || fail "an ::error after a ::warning"

# the man page: exit 0 is PASS, and what PASS means under each rule
expect_code 0 "$DIPMAP" help --man compare
assert_contains out "PASS. Under the default rule (\\-\\-pass\\-rule bound) every primary endpoint"
assert_not_contains out "no significant regression"
exit 0
