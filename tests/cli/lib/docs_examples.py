#!/usr/bin/env python3
"""Run every ```sh block of README.md and docs/ as written (test 071).

usage: docs_examples.py REPO DIPMAP SCRATCH [--group NAME | FILE...]
       (default: README.md and docs/**/*.md; a group is a share of them, so that each of the
       tests 071, 073, 074, 075 and 078 runs in its time limit: GROUPS below, "rest" every page the
       other groups do not name)

Each Markdown file gets its own folder under SCRATCH, holding links to the checkout's datasets/,
prompts/, tests/ and examples/ and a `./dipmap` (also first on PATH), and runs its blocks in
order there, so a later block may use what an earlier one wrote (a store, a golden set). A
block is a fenced ```sh block, indented or not. The comment lines right above its fence may
say, one directive each:

  <!-- docs-test: skip: REASON -->  do not run it; REASON (required) says why (a paid API, a
                                     GPU server, an install into the system)
  <!-- docs-test: sim ARGS -->       start `dipmap serve-sim --port 0 ARGS` (in the page's
                                     folder) before it, stopping the page's previous one; the
                                     block's http://127.0.0.1:8000 becomes that server's URL
  <!-- docs-test: exit N -->         the block ends with exit code N (default 0)
  <!-- docs-test: prints TEXT -->    its standard output or error contains TEXT

A block runs with `bash -e -o pipefail` (a failing command fails it, also inside a pipe). Prints one line per block
("run FILE:LINE", "skip FILE:LINE (REASON)") and a last line "N blocks run, N skipped";
exits 1 when a block ends with another code or lacks its text, naming FILE:LINE.
"""
import glob
import os
import re
import subprocess
import sys
import time

DIRECTIVE = re.compile(r"^\s*<!-- docs-test: (.*?) -->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
URL = "http://127.0.0.1:8000"


def blocks_of(path):
    """(line, code, directives) of every sh block; directives a list of strings."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        start = i
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        if lang == "sh":
            code = "\n".join(l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:j])
            directives = []
            k = start - 1
            while k >= 0 and DIRECTIVE.match(lines[k]):
                directives.insert(0, DIRECTIVE.match(lines[k]).group(1))
                k -= 1
            out.append((start + 1, code, directives))
        i = j + 1
    return out


class Page:
    def __init__(self, repo, dipmap, folder):
        self.repo, self.dipmap, self.folder = repo, dipmap, folder
        self.sim = None
        self.url = None
        os.makedirs(os.path.join(folder, "bin"), exist_ok=True)
        for d in ("datasets", "prompts", "tests", "examples"):
            os.symlink(os.path.join(repo, d), os.path.join(folder, d))
        os.symlink(dipmap, os.path.join(folder, "dipmap"))
        os.symlink(dipmap, os.path.join(folder, "bin", "dipmap"))
        self.env = dict(os.environ, PATH=os.path.join(folder, "bin") + ":" + os.environ["PATH"],
                        NO_COLOR="1")
        for k in ("DIPMAP_DB", "DIPMAP_DATA", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
            self.env.pop(k, None)

    def start_sim(self, args):
        self.stop_sim()
        log = open(os.path.join(self.folder, "serve-sim.err"), "ab")
        self.sim = subprocess.Popen([self.dipmap, "serve-sim", "--port", "0"] + args.split(),
                                    cwd=self.folder, stdout=subprocess.PIPE, stderr=log,
                                    env=self.env, text=True)
        first = self.sim.stdout.readline()  # serve-sim prints its URL or port first
        m = re.search(r"(\d+)\s*$", first.strip()) if first else None
        if not m:
            raise RuntimeError(f"serve-sim {args} printed no port: {first!r}")
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def stop_sim(self):
        if self.sim:
            self.sim.terminate()
            self.sim.wait()
            self.sim = None


GROUPS = {
    "readme": ["README.md"],
    "journeys": ["docs/map.md", "docs/servers.md", "docs/ci.md", "docs/nightly.md"],
    "measure": ["docs/axes.md", "docs/layouts-and-imports.md"],
    "effects": ["docs/ordering.md", "docs/lost-in-the-middle.md", "docs/effects.md"],
}


def main():
    repo, dipmap, scratch = sys.argv[1:4]
    scratch = os.path.abspath(scratch)
    pages = ["README.md"] + sorted(
        os.path.relpath(p, repo) for p in glob.glob(os.path.join(repo, "docs", "**", "*.md"), recursive=True))
    if sys.argv[4:5] == ["--group"]:
        g = sys.argv[5]
        named = [f for fs in GROUPS.values() for f in fs]
        files = GROUPS[g] if g in GROUPS else [f for f in pages if f not in named]
        missing = [f for f in files if f not in pages]
        if missing:
            print("docs_examples: group %s names pages that do not exist: %s" % (g, missing), file=sys.stderr)
            return 1
    else:
        files = sys.argv[4:] or pages
    run = skipped = 0
    bad = []
    for rel in files:
        blocks = blocks_of(os.path.join(repo, rel))
        if not blocks:
            continue
        page = Page(repo, dipmap, os.path.join(scratch, rel.replace("/", "_")))
        try:
            for line, code, directives in blocks:
                where = f"{rel}:{line}"
                want_code, prints, skip = 0, [], None
                for d in directives:
                    if d.startswith("skip"):
                        skip = d[len("skip"):].lstrip(":").strip()
                        if not skip:
                            bad.append(f"{where}: a skip marker must say why")
                    elif d.startswith("sim "):
                        pass
                    elif d.startswith("exit "):
                        want_code = int(d[5:])
                    elif d.startswith("prints "):
                        prints.append(d[7:])
                    else:
                        bad.append(f"{where}: unknown docs-test directive '{d}'")
                if skip is not None:
                    print(f"skip {where} ({skip})")
                    skipped += 1
                    continue
                for d in directives:
                    if d.startswith("sim "):
                        page.start_sim(d[4:])
                if URL in code and not page.url:
                    bad.append(f"{where}: names {URL} but no docs-test sim marker starts a server")
                    continue
                script = code.replace(URL, page.url) if page.url else code
                t0 = time.monotonic()
                p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=page.folder, env=page.env,
                                   capture_output=True, text=True)
                run += 1
                print(f"run {where}: exit {p.returncode} ({time.monotonic() - t0:.1f} s)")
                text = p.stdout + p.stderr
                if p.returncode != want_code:
                    bad.append(f"{where}: exit {p.returncode}, the page says {want_code}\n"
                               f"--- the block:\n{code}\n--- its output (last 25 lines):\n"
                               + "\n".join(text.splitlines()[-25:]))
                for t in prints:
                    if t not in text:
                        bad.append(f"{where}: does not print '{t}'\n--- its output:\n" + "\n".join(text.splitlines()[-25:]))
        finally:
            page.stop_sim()
    print(f"{run} blocks run, {skipped} skipped")
    for b in bad:
        print("FAIL " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
