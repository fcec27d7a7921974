# An option one command takes "as" another's states that command's default. Two kinds:
# - dipmap gate maps "as dipmap run": every option of its "what to map" group that run also
#   takes is in 'dipmap help run', and where both helps state a default they state the same one
#   (gate restates run's --lengths, --depths, --repeats, --template, --tokenizer, --scorer,
#   --seed, --concurrency, --max-tokens and --api-key-env defaults; its --api-key-env named
#   none while the run it starts reads OPENAI_API_KEY). --progress is gate's own (none).
# - a help that says "as [dipmap] CMD --OPT" (plan --round as gate's, show-prompt --api-key-env
#   as run's, ...): CMD takes --OPT, and the stated defaults agree.
. "$TESTS/cli/lib/lib.sh"
pylib - "$DIPMAP" <<'PY' || fail "a restated default disagrees with its command's (above)"
import re, sys
from helpopts import commands, default, options as help_options
dipmap = sys.argv[1]
def options(cmd, group=None):
    return help_options(dipmap, cmd, group)
bad, compared = 0, 0
def agree(where, h, cmd, name):
    global bad, compared
    theirs = options(cmd)
    if name not in theirs:
        print(f"{where} restates dipmap {cmd} --{name}, which dipmap {cmd} does not take")
        bad += 1
        return
    g, r = default(h), default(theirs[name])
    if g is not None or r is not None:
        compared += 1
        if g != r:
            print(f"{where}: its help says default {g!r}, dipmap {cmd} --{name}'s says {r!r}")
            bad += 1
for name, h in options("gate", "what to map (as dipmap run)").items():
    if name not in ("baseline-endpoint", "baseline-model", "run-arg", "progress"):
        agree(f"gate --{name}", h, "run", name)
if compared < 10:
    print(f"only {compared} of gate's defaults compared: the help layout no longer parses")
    bad += 1
refs = 0
cmds = commands(dipmap)
for cmd in cmds:
    for name, h in options(cmd).items():
        for other, oname in re.findall(r"\bas (?:dipmap )?([a-z][a-z-]*) --([a-z0-9-]+)", h):
            refs += 1
            agree(f"{cmd} --{name}", h, other, oname)
if refs < 5:
    print(f"only {refs} 'as CMD --OPT' references found: the pattern no longer matches")
    bad += 1
sys.exit(1 if bad else 0)
PY
