# The internals pages (the how-tos docs/internals/adding-*.md and the subsystem pages) name files; each file
# they name exists in the repository (a how-to that names a file that was renamed or split is
# stale). A file the how-to creates is written with a placeholder in capitals (cmd_NAME.c) and
# is not checked. The index names the subsystems' folders, which exist too.
. "$TESTS/cli/lib/lib.sh"
cd "$REPO" || fail "no repository"
ls docs/internals/adding-*.md >/dev/null 2>&1 || fail "no how-tos in docs/internals/"
python3 - docs/internals/*.md <<'PY' || fail "a how-to names a file that does not exist (above)"
import os, re, sys
bad = checked = 0
for f in sys.argv[1:]:
    text = open(f, encoding="utf-8").read()
    for m in re.finditer(r"`((?:harness|tests|docs|scripts|datasets|prompts)/[\w./-]*|[A-Z]+\.md)`", text):
        p = m.group(1)
        if re.search(r"[A-Z]{3,}", os.path.basename(p)) and not p.endswith(".md"):
            continue  # a placeholder: the file the how-to creates
        if re.search(r"/[A-Z]+(\.\w+)?$", p) and "NAME" in p:
            continue
        checked += 1
        if not os.path.exists(p):
            print(f"{f}: names {p}, which does not exist", file=sys.stderr)
            bad += 1
print(checked, "files checked")
if checked < 40:
    print(f"only {checked} files named: the how-tos lost their tables", file=sys.stderr)
    bad += 1
sys.exit(1 if bad else 0)
PY
