# Help and behaviour agree. Every option a command's parser accepts is listed by `dipmap help
# CMD` (and nothing else is), and the command's reference page (docs/reference/, one per command, generated
# by make reference; README's hand-kept Usage section missed serve-sim's and import's options) lists
# the same options; one spelling --completions in run and
# show-prompt; show-prompt's --max-tokens default is run's (256, it was 100); a boolean that is
# on by default shows as --[no-]NAME (the context-check hint names --no-context-check);
# continuation lines of a synopsis are not prefixed "or:"; help merge describes the command;
# help compare names compare.html and the overlay plot; help report shows --rank-dist/--rank-p;
# a usage synopsis without "[options]" names every option the command takes.
. "$TESTS/cli/lib/lib.sh"
python3 - "$REPO" "$DIPMAP" <<'PY' || fail "options, help and docs/reference disagree (above)"
import re, subprocess, sys, os
repo, dipmap = sys.argv[1], sys.argv[2]
bad = 0
tables = 0
# the rows commands share (cmd/builtin.h: OPT_DB, OPT_TOLERANCE, ...) and the option each names
builtin = open(os.path.join(repo, "harness", "cmd", "builtin.h"), encoding="utf-8").read()
shared = dict(re.findall(r"#define (OPT_[A-Z_]+)\([^)]*\)\s*\\\s*OPT_[A-Z]+\(\s*(?:0|'.'),\s*\"([a-z0-9-]+)\"", builtin))
if len(shared) < 3:
    print(f"only {len(shared)} shared rows found in harness/cmd/builtin.h: the pattern no longer matches"); bad += 1
for f in sorted(os.listdir(os.path.join(repo, "harness", "cmd"))):
    m = re.match(r"cmd_([a-z_]+)\.c$", f)
    if not m:
        continue
    cmd = m.group(1).replace("_", "-")
    src = open(os.path.join(repo, "harness", "cmd", f), encoding="utf-8").read()
    opts = re.findall(r"\bOPT_(?:STRING|LONG|DOUBLE|POINTS|BOOL|LIST)\(\s*(?:0|'.'),\s*\"([a-z0-9-]+)\"", src)
    opts += [shared[m] for m in re.findall(r"\b(OPT_[A-Z_]+)\(", src) if m in shared]
    if not opts:
        continue
    tables += 1
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
    page = os.path.join(repo, "docs", "reference", cmd + ".md")
    if not os.path.exists(page):
        print(f"{cmd}: no docs/reference/{cmd}.md (make reference)"); bad += 1
        continue
    ref_opts = set(re.findall(r"^\| `(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9-]*)", open(page, encoding="utf-8").read(), re.M))
    for o in opts:
        if o not in ref_opts:
            print(f"{cmd}: --{o} is accepted but docs/reference/{cmd}.md does not list it"); bad += 1
    for o in ref_opts - set(opts):
        print(f"{cmd}: docs/reference/{cmd}.md lists --{o}, which the parser does not accept"); bad += 1
if tables < 15:
    print(f"only {tables} option tables found in harness/cmd: the row pattern above no longer matches the source"); bad += 1
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
