# Help and behaviour agree. Every option a command's parser accepts is listed by `dipmap help
# CMD` (and nothing else is), and README's Usage entry for the command lists the same options
# (it missed serve-sim's and import's, among others); one spelling --completions in run and
# show-prompt; show-prompt's --max-tokens default is run's (256, it was 100); a boolean that is
# on by default shows as --[no-]NAME (the context-check hint names --no-context-check);
# continuation lines of a synopsis are not prefixed "or:"; help merge describes the command;
# help compare names compare.html and the overlay plot; help report shows --rank-dist/--rank-p;
# a usage synopsis without "[options]" names every option the command takes.
. "$TESTS/cli/lib/lib.sh"
python3 - "$REPO" "$DIPMAP" <<'PY' || fail "options, help and README disagree (above)"
import re, subprocess, sys, os
repo, dipmap = sys.argv[1], sys.argv[2]
readme = open(os.path.join(repo, "README.md"), encoding="utf-8").read()
# the Usage section: command lines start with "dipmap CMD"; continuation lines are indented
usage = readme[readme.index("## Usage"):]
usage = usage[:usage.index("\n## ", 5)]
blocks = {}
cur = None
for line in usage.splitlines():
    m = re.match(r"dipmap ([a-z-]+)", line)
    if m:
        cur = m.group(1)
        blocks.setdefault(cur, "")
    # synopsis lines only: descriptions are indented 27 columns and may name other commands' options
    if cur and len(line) - len(line.lstrip(" ")) < 27:
        blocks[cur] += line + "\n"
bad = 0
for f in sorted(os.listdir(os.path.join(repo, "harness", "cmd"))):
    m = re.match(r"cmd_([a-z_]+)\.c$", f)
    if not m:
        continue
    cmd = m.group(1).replace("_", "-")
    src = open(os.path.join(repo, "harness", "cmd", f), encoding="utf-8").read()
    opts = re.findall(r'\{OPT_(?:STRING|LONG|DOUBLE|POINTS|BOOL|LIST),\s*"([a-z0-9-]+)"', src)
    if not opts:
        continue
    help_ = subprocess.run([dipmap, "help", cmd], capture_output=True, text=True).stdout
    helpopts = set(re.findall(r"^\s+(?:-\w, )?--(?:\[no-\])?([a-z0-9-]+)", help_, re.M))
    for o in opts:
        if o not in helpopts:
            print(f"{cmd}: --{o} is accepted but not in 'dipmap help {cmd}'"); bad += 1
    for o in helpopts - set(opts):
        print(f"{cmd}: 'dipmap help {cmd}' lists --{o}, which the parser does not accept"); bad += 1
    # the usage lines above the options either say [options] or name every option (help report's
    # left out --exclude-known, --price-in and --price-out; import's, show-prompt's, tokenize's and
    # serve-sim's others)
    synopsis = help_.split("\n\n")[0]
    if "[options]" not in synopsis:
        for o in opts:
            if not re.search(r"--(?:\[no-\])?" + re.escape(o) + r"(?![a-z0-9-])", synopsis):
                print(f"{cmd}: the usage of 'dipmap help {cmd}' leaves out --{o} (add it or say [options])"); bad += 1
    if cmd not in blocks:
        print(f"{cmd}: no 'dipmap {cmd}' entry in README's Usage section"); bad += 1
        continue
    readme_opts = set(re.findall(r"--(?:\[no-\])?([a-z][a-z0-9-]*)", blocks[cmd]))
    for o in opts:
        if o not in readme_opts:
            print(f"{cmd}: --{o} is accepted but README's Usage entry does not list it"); bad += 1
    for o in readme_opts - set(opts) - {"help"}:
        print(f"{cmd}: README's Usage entry lists --{o}, which the parser does not accept"); bad += 1
sys.exit(1 if bad else 0)
PY
expect_code 0 "$DIPMAP" help run
assert_contains out "--[no-]context-check"
expect_code 0 "$DIPMAP" help serve-sim
assert_not_contains out "   or:                  [--tokenizer"
grep -q '^                        \[--tokenizer' out || fail "serve-sim continuation line not aligned: $(head -4 out)"
expect_code 0 "$DIPMAP" help merge
assert_contains out "Join the shard stores of one run"
expect_code 0 "$DIPMAP" help compare
assert_contains out "compare.html"
assert_contains out "compare.svg/png"
expect_code 0 "$DIPMAP" help report
assert_contains out "[--rank-dist FILE | --rank-p P]"
expect_code 0 "$DIPMAP" help show-prompt
assert_contains out "--completions"
assert_contains out "default 256, as run"
expect_code 2 "$DIPMAP" show-prompt --completion --dataset x.jsonl
assert_contains err "unknown option '--completion'"
set_=$REPO/datasets/needle.jsonl hay=$REPO/datasets/nq-haystack.jsonl.gz
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --length 1k --json
python3 -c 'import json; assert json.load(open("out"))["max_tokens"] == 256' || fail "show-prompt max_tokens is not 256"
expect_code 0 "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --length 1k --completions --json
python3 -c 'import json; d = json.load(open("out")); assert "prompt" in d and "messages" not in d, d.keys()' ||
    fail "--completions did not render a completion prompt"
