# dipmap gate maps "as dipmap run": every option of its "what to map" group that run also takes
# is listed by 'dipmap help run', and where both helps state a default they state the same one
# (gate restates run's --lengths, --depths, --repeats, --template, --tokenizer, --scorer, --seed,
# --concurrency and --max-tokens defaults; a default changed in run alone would leave gate's help
# naming the old one). --progress is gate's own (none: it prints a line per round).
. "$TESTS/cli/lib/lib.sh"
python3 - "$DIPMAP" <<'PY' || fail "gate's and run's helps disagree (above)"
import re, subprocess, sys
dipmap = sys.argv[1]
def options(cmd, group=None):
    text = subprocess.run([dipmap, "help", cmd], capture_output=True, text=True, check=True).stdout
    if group:
        start = text.index(group + "\n")
        text = text[start:text.index("\n\n", start)]
    # one entry per option: its name and its help, continuation lines joined
    out, name = {}, None
    for line in text.split("\n"):
        m = re.match(r"^\s+(?:-\w, )?--(?:\[no-\])?([a-z0-9-]+)(.*)$", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2)
        elif name and line.startswith("                              "):
            out[name] += " " + line.strip()
    return out
def default(h):
    m = re.search(r"\(default ([^;)]*)", h)
    return m.group(1).strip() if m else None
gate = options("gate", "what to map (as dipmap run)")
run = options("run")
bad, compared = 0, 0
for name, h in gate.items():
    if name in ("baseline-endpoint", "baseline-model", "run-arg", "progress"):
        continue  # gate's own: the baseline's side, the pass-through, its progress
    if name not in run:
        print(f"gate --{name} is in 'what to map (as dipmap run)' but dipmap run has no --{name}")
        bad += 1
        continue
    g, r = default(h), default(run[name])
    if g is not None or r is not None:
        compared += 1
        if g != r:
            print(f"--{name}: gate's help says default {g!r}, run's says {r!r}")
            bad += 1
if compared < 9:
    print(f"only {compared} defaults compared: the help layout no longer parses")
    bad += 1
sys.exit(1 if bad else 0)
PY
