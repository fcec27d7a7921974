# Every Markdown document the repository's own text cites in backticks (`VALIDATION.md`,
# `datasets/README.md`) exists in the repository, relative to the citing file or to the root: a
# clone has nothing beside it (tests/data/tokenizer/SOURCE.md cited corpus/SOURCES.md, a file
# that exists only in the material the data was copied from). Paths outside the repository
# (absolute, ../, $VAR) and documents of other projects named as such are not citations of ours.
. "$TESTS/cli/lib/lib.sh"
cd "$REPO" || fail "no repository"
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
python3 - <<'PY' || fail "cited documents missing (above)"
import os, re, subprocess, sys
# other projects' documents, cited as theirs
external = {"EXPERIMENTS.md"}  # nelson-liu/lost-in-the-middle's, README "Reproduce the paper"
bad = 0
for f in subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.split():
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for m in re.finditer(r"`([\w./-]+\.md)`", text):
        ref = m.group(1)
        if ref.startswith(("/", "../")) or ref in external:
            continue
        here = os.path.normpath(os.path.join(os.path.dirname(f), ref))
        if not (os.path.exists(here) or os.path.exists(os.path.normpath(ref))):
            line = text.count("\n", 0, m.start()) + 1
            print(f"{f}:{line}: cites `{ref}`, which is not in the repository", file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
PY
