# Every Markdown document the repository's own text cites exists in the repository, relative to
# the citing file or to the root: a clone has nothing beside it (a source note under tests/data
# once cited a file that exists only in the material the data was copied from; the code cited
# design and conventions notes that were never in the repository, and the client a reference
# page kept outside it). Citations are
#   - a document in backticks anywhere (`VALIDATION.md`, `datasets/README.md`);
#   - a document in a comment of code (C, shell, Python, the Makefile), where citations have no
#     backticks: a name starting with a capital letter (`VALIDATION.md`) or a path
#     (`docs/design.md`), so that a generated summary.md is not taken for one;
#   - a section, a document name followed by a quoted heading, anywhere outside Markdown: the document exists and has a
#     heading that starts with that text (a renamed section leaves no stale citation).
# Paths outside the repository (absolute, ../, $VAR), placeholders (a directory in capitals:
# `DIR/compare.md`) and documents of other projects named as such are not citations of ours.
. "$TESTS/cli/lib/lib.sh"
cd "$REPO" || fail "no repository"
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
python3 - <<'PY' || fail "cited documents missing (above)"
import os, re, subprocess, sys
# other projects' documents, cited as theirs
external = {"ggml/docs/gguf.md"}  # ggml's GGUF specification (tests/llama/gen_gguf.py)
bad = 0
def resolve(f, ref):
    here = os.path.normpath(os.path.join(os.path.dirname(f), ref))
    for p in (here, os.path.normpath(ref)):
        if os.path.isfile(p):
            return p
    return None
def report(f, text, pos, msg):
    global bad
    print(f"{f}:{text.count(chr(10), 0, pos) + 1}: {msg}", file=sys.stderr)
    bad += 1
def comments(f, text):
    """(offset, text) of each comment of a code file."""
    if f.endswith((".c", ".h", ".js")):
        pat = r"/\*.*?\*/|//[^\n]*"
    elif f.endswith((".sh", ".py", ".mk")) or os.path.basename(f) == "Makefile":
        pat = r"(?m)^[ \t]*#[^\n]*"
    else:
        return
    for m in re.finditer(pat, text, re.S):
        yield m.start(), m.group(0)
headings = {}
def has_heading(doc, title):
    if doc not in headings:
        headings[doc] = [re.sub(r"^#+\s*", "", l).strip()
                         for l in open(doc, encoding="utf-8") if l.startswith("#")]
    title = re.sub(r"^#+\s*", "", title).strip()
    return any(h.startswith(title) for h in headings[doc])
for f in subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.split():
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    refs = [(m.start(), m.group(1)) for m in re.finditer(r"`([\w./-]+\.md)`", text)]
    for off, c in comments(f, text):
        refs += [(off + m.start(), m.group(1)) for m in
                 re.finditer(r"(?<![\w./$`-])((?:[\w-]+/)+[\w-]+\.md|[A-Z][\w-]*\.md)\b", c)]
    for pos, ref in refs:
        if ref.startswith(("/", "../")) or ref in external or re.match(r"[A-Z_]+/", ref):
            continue
        if not resolve(f, ref):
            report(f, text, pos, f"cites {ref}, which is not in the repository")
    if f.endswith(".md"):
        continue
    for m in re.finditer(r"(?<![\w./$-])((?:[\w-]+/)*[\w-]+\.md)`? \"([^\"\n]+)\"", text):
        doc = resolve(f, m.group(1))
        if doc and not has_heading(doc, m.group(2)):
            report(f, text, m.start(), f"cites {m.group(1)} \"{m.group(2)}\", a section {doc} does not have")
sys.exit(1 if bad else 0)
PY
