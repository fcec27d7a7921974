# A default several commands share is set by one constant, and every help states it from that
# constant in the same words:
# - the store: every command's --db ends "(default $DIPMAP_DB or dipmap.db)" (view's put its
#   "opened read-only" after the default; six commands spelled dipmap.db out, six used the
#   constant), and it is the file a command opens when neither is given;
# - the verdict's thresholds: compare, gate and plan state --tolerance and --fail-margin in
#   one row each (plan's and gate's said it in other words), compare and plan --alpha in one
#   (plan's is compare's), gate's --alpha (its own rate) the same default, and
#   plan's power analysis prints the tolerance and alpha the help states;
# - the tokenizer, the API key's variable, the answer budget, the concurrency, the gate's round,
#   the lengths, the depths, the template and the retriever's rank-p: each command that takes the option states the
#   same default;
# - no file of harness/ spells one of these values out (but tokenizer/, which looks cl100k_base
#   up by name; run --dry-run's power estimate had compare's alpha and tolerance as numbers):
#   they set and print TOKENIZER_DEFAULT, SECRET_DEFAULT_KEY_ENV, DIPMAP_DEFAULT_DB,
#   COMPARE_DEFAULT_ALPHA/TOLERANCE, RUNNER_DEFAULT_CONCURRENCY, CLIENT_DEFAULT_MAX_TOKENS,
#   SEQ_DEFAULT_ROUND, PLAN_DEFAULT_LENGTHS/DEPTHS, PROMPT_DEFAULT_TEMPLATE and
#   ORDER_DEFAULT_RANK_P (plan also
#   parsed "8k,32k" and "0:100:10" itself).
. "$TESTS/cli/lib/lib.sh"
pylib - "$DIPMAP" "$REPO" <<'PY' || fail "a shared default is stated in more than one way (above)"
import os, re, sys
from helpopts import commands, default, options
dipmap, repo = sys.argv[1], sys.argv[2]
cmds = commands(dipmap)
helps = {c: options(dipmap, c) for c in cmds}
bad = 0
with_db = [c for c in cmds if "db" in helps[c]]
if len(with_db) < 12:
    print(f"only {len(with_db)} commands take --db: the help layout no longer parses"); bad += 1
for c in with_db:
    if not helps[c]["db"].endswith("(default $DIPMAP_DB or dipmap.db)"):
        print(f"{c} --db: {helps[c]['db']!r} does not end with the store's default"); bad += 1
def same(opt, in_cmds, whole=False):
    global bad
    seen = {c: helps[c][opt] if whole else default(helps[c][opt]) for c in in_cmds}
    if None in seen.values() or len(set(seen.values())) != 1:
        print(f"--{opt}: {seen}"); bad += 1
same("tolerance", ["compare", "gate", "plan"], whole=True)
same("fail-margin", ["compare", "gate"], whole=True)
same("alpha", ["compare", "plan"], whole=True)
same("alpha", ["compare", "gate", "plan"])
same("tokenizer", ["run", "gate", "serve-sim", "show-prompt"])
same("api-key-env", ["run", "gate", "show-prompt", "tokenize"])
same("max-tokens", ["run", "gate", "show-prompt"])
same("concurrency", ["run", "gate"])
same("round", ["gate", "plan"])
same("lengths", ["run", "gate", "plan"])
same("depths", ["run", "gate", "plan"])
same("template", ["run", "gate", "show-prompt"])
same("rank-p", ["run", "report"])
# the values themselves are spelled once, in the headers that define them: no string of one,
# no assignment of one, and no row of these options with a number for its default
spelled = re.compile(r'"(?:dipmap\.db|cl100k_base|OPENAI_API_KEY|8k,32k|0:100:10|qa)"|'
                     r'\b(?:alpha|tolerance) = 0\.05\b|\b(?:rank|geometric)_p = 0\.5\b|'
                     r'\bconcurrency = 8\b|\bround = 20\b')
rows = re.compile(r'OPT_\w+\(\s*(?:0|\'.\'),\s*"(alpha|tolerance|concurrency|round|max-tokens|'
                  r'lengths|depths|template|rank-p)"'
                  r'.*?\),\n', re.S)
for d in sorted(os.listdir(os.path.join(repo, "harness"))):
    if d == "tokenizer" or not os.path.isdir(os.path.join(repo, "harness", d)):
        continue  # tokenizer/ looks cl100k_base up by its name
    for f in sorted(os.listdir(os.path.join(repo, "harness", d))):
        if not f.endswith(".c"):
            continue
        src = open(os.path.join(repo, "harness", d, f), encoding="utf-8").read()
        for n, line in enumerate(src.split("\n"), 1):
            m = spelled.search(line)
            if m:
                print(f"harness/{d}/{f}:{n}: spells out a shared default: {m.group(0)}"); bad += 1
        for m in rows.finditer(src):
            if f == "cmd_demo.c":
                continue  # demo's --lengths default is scripts/demo.sh's own
            if re.search(r"default (?:\d|qa\b)", m.group(0)):
                n = src.count("\n", 0, m.start()) + 1
                print(f"harness/{d}/{f}:{n}: --{m.group(1)} states its default as a literal, not from its constant"); bad += 1
sys.exit(1 if bad else 0)
PY
# the stated store is the one opened
env -u DIPMAP_DB "$DIPMAP" runs >out 2>err
[ $? = 2 ] || fail "runs without a store should exit 2"
assert_contains err "dipmap.db: no such database"
# plan's power analysis runs at the alpha and tolerance its help states
expect_code 0 "$DIPMAP" plan --questions 40 --gates 0 --iterations 200
assert_contains out "alpha 0.05, tolerance 5.0 pp"
"$DIPMAP" help plan | grep -q -- '--alpha A .*(default 0.05)' || fail "plan --alpha states another default"
