# The man pages are generated from the option tables `dipmap help` prints: for every command
# the page (rendered by groff) has the command's summary, every synopsis line of
# `dipmap help COMMAND` and exactly its options with their placeholders; dipmap(1) lists every
# command. A page that drops, renames or adds an option fails here.
. "$TESTS/cli/lib/lib.sh"
need_tool groff DIPMAP_REQUIRE_GROFF "groff is not installed (man pages are checked rendered)"
python3 - "$DIPMAP" <<'PY' || fail "man pages and help disagree (above)"
import re, subprocess, sys
dipmap = sys.argv[1]
def out(*a):
    return subprocess.run([dipmap, *a], capture_output=True, text=True, check=True).stdout
def render(roff):
    # wide (no folding or justification), hyphens as ASCII
    t = subprocess.run(["groff", "-man", "-Tutf8", "-rLL=400n", "-P-cbou"], input=roff,
                       capture_output=True, text=True, check=True).stdout
    return t.replace("\u2010", "-").replace("\u2212", "-")
main_help = out("help")
cmds = re.findall(r"^   ([a-z][a-z-]*)  +(.*)$", main_help, re.M)
assert len(cmds) >= 15, main_help
main_page = render(out("help", "--man"))
bad = 0
for c, summary in cmds:
    if f"dipmap-{c}(1)" not in main_page:
        print(f"dipmap(1) does not list {c}"); bad += 1
    h = out("help", c)
    page = render(out("help", "--man", c))
    if f"dipmap-{c} - {summary}" not in page:
        print(f"{c}: NAME is not 'dipmap-{c} - {summary}'"); bad += 1
    for line in re.findall(r"^(?:usage|   or): (.*)$", h, re.M):
        if line not in page:
            print(f"{c}: synopsis '{line}' is not in the page"); bad += 1
    # help's option labels: the text column is 30; a longer label has the line to itself
    labels = []
    for line in h.splitlines():
        if line.startswith("    -"):
            l = line[:29] if len(line) > 30 and line[29] == " " else line
            labels.append(l.strip())
    opts = page.split("\nOPTIONS\n", 1)[1].split("\nEXIT STATUS\n", 1)[0] if labels else ""
    page_lines = [l[7:] for l in opts.splitlines() if l.startswith("       -")]
    for l in labels:
        if not any(p == l or p.startswith(l + " ") for p in page_lines):
            print(f"{c}: option '{l}' of help is not in the page"); bad += 1
    if len(page_lines) != len(labels):
        print(f"{c}: the page has {len(page_lines)} options, help {len(labels)}"); bad += 1
sys.exit(1 if bad else 0)
PY
# unknown command: exit 2 naming it
expect_code 2 "$DIPMAP" help --man no-such
assert_contains err "'no-such' is not a dipmap command"
exit 0
