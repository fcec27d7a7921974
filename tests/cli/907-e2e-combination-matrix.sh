# The combination matrix: every way a run sends (online, --batch through serve-sim's Batch API,
# --shard 1/2 + 2/2 then merge, --reuse, --tokenizer server, the gate's sequential rounds)
# crossed with every axis value (--layout, --question-at, --needles or --ordinal, --spacing, --hops,
# --haystack-order, --distractors hard/random/none, --repeats, --completions, --needle-tokens, --absent, --arm) in a pairwise
# (covering-array) design generated from the axis table (AXES) and the mode table (MODES) below:
# every pair of values of any two factors is in at least one row, so a new axis or mode joins
# the matrix as one table entry. Each row is one small run (2 two-needle questions, 1k tokens,
# depths 0 and 100) made online and in its mode. Invariants per trial key: the mode's request
# and prompt hashes are the online run's (the same bytes sent; for the gate both of its runs);
# the server counted the run's length (usage.prompt_tokens = realized_length <= length); the
# stored prompt is the bytes hashed (sha256 of the stored text = prompt_sha256); the same bytes
# score the same (outcome and score: serve-sim answers a prompt alike each time, so a mode that
# scored through its own copy of the rule, absent twins included, would differ); every planned
# trial is stored once. Per run: the mode's run records the online run's request probe (the
# whole matrix's first trial and its prompt hash, as `runs --json` shows it), so a resume or
# merge in any mode checks the bytes against the same probe.
# Then every layout over the key-value template (tests/data/old-store's kv data, 1k and 2k):
# the server's count is never above the target and equals it in >= 95% of the prompts.
# The rows are split in two tests so each keeps well inside the 300 s limit on a loaded
# machine or under the sanitizers: this one runs the even rows and the key-value check, 909
# (MATRIX_HALF=1) the odd rows.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
"$DIPMAP" gen hops --n 2 --seed 3 --out hops.jsonl >/dev/null || fail "gen hops"
start_sim sim --dataset hops.jsonl --tokenizer "$TK" --chat-template chatml
MATRIX_HALF=${MATRIX_HALF:-0}
export SIM_URL TK MATRIX_HALF
python3 - <<'PY' || fail "the matrix found a combination that sends or stores other bytes (above)"
import hashlib, itertools, json, os, sqlite3, subprocess, sys

# The axis table: run option -> its values (one per row). "" leaves the option out, "on" gives
# it bare (a switch); any other value is the option's argument. A new axis is one line here.
AXES = {
    "layout": ["documents", "chat", "tools", "tool-long"],
    "question-at": ["end", "both"],
    "needles": ["1", "2", "ordinal:2"],  # ordinal:N is --ordinal N (it places its own needles)
    "spacing": ["", "50"],
    "hops": ["", "2"],
    "haystack-order": ["coherent", "shuffled"],
    "distractors": ["hard", "random", "none"],
    "repeats": ["1", "2"],
    "completions": ["", "on"],
    "needle-tokens": ["", "48"],
    "absent": ["", "0.5"],  # needle-absent twins (the phrase: words qa-both.txt says)
    "arm": ["", "padding", "adjacent"],
}
# Combinations a run refuses: (factor, value) -> the values another factor must take.
NEEDS = [(("completions", "on"), ("layout", ["documents"])),
         (("needles", "ordinal:2"), ("spacing", [""])),  # --ordinal places its own needles
         (("needles", "ordinal:2"), ("hops", [""]))]

def valid(row):
    for (f, v), (g, allowed) in NEEDS:
        if row.get(f) == v and row.get(g, allowed[0]) not in allowed:
            return False
    return True

# Values that stand for other options: needles=ordinal:N is --ordinal N; --absent P also
# needs the abstention phrase said by qa-both.txt.
SPECIAL = {"needles": lambda v: ["--ordinal", v.split(":")[1]] if v.startswith("ordinal:") else None,
           "absent": lambda v: ["--absent", v, "--abstain-phrase", "only the documents"] if v else None}

def axis_args(row):
    out = []
    for opt in AXES:
        v = row[opt]
        special = SPECIAL.get(opt, lambda v: None)(v)
        out += special if special is not None else [] if v == "" else [f"--{opt}"] if v == "on" else [f"--{opt}", v]
    return out

dm, repo, url, tk = os.environ["DIPMAP"], os.environ["REPO"], os.environ["SIM_URL"], os.environ["TK"]
INPUTS = ["--dataset", "hops.jsonl", "--haystack", f"{repo}/datasets/nq-haystack.jsonl.gz",
          "--template", f"{repo}/prompts/qa-both.txt", "--lengths", "1k", "--depths", "0,100"]

def run(args, ok=(0,)):
    p = subprocess.run([dm] + args, capture_output=True, text=True)
    if p.returncode not in ok:
        print(f"FAILED ({p.returncode}): dipmap {' '.join(args)}\n{p.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    return p

# The mode table: name -> how a row's run is made in that mode, into db, as the runs it names.
# run_args: the online run's arguments without --tokenizer and --run. A new mode is one function.
def mode_batch(run_args, db, row):
    run(run_args + ["--tokenizer", tk, "--run", "m", "--batch", "--batch-poll", "0.05"])
    return ["m"]

def mode_shard(run_args, db, row):
    for s in ("1/2", "2/2"):
        run([a if a != db else f"s{s[0]}-{db}" for a in run_args] + ["--tokenizer", tk, "--run", "m", "--shard", s])
    run(["merge", db, f"s1-{db}", f"s2-{db}"])
    return ["m"]

def mode_reuse(run_args, db, row):
    run(run_args + ["--tokenizer", tk, "--run", "m", "--reuse", "on"])
    return ["m"]

def mode_server(run_args, db, row):
    run(run_args + ["--tokenizer", "server", "--run", "m"])
    return ["m"]

def mode_gate(run_args, db, row):
    # the gate's sequential rounds (one question each) run both models through `run`; the
    # axes and --store-prompts go through --run-arg, --repeats is the gate's own option.
    # Two questions of one model decide nothing: INCONCLUSIVE (4) after every round.
    args = ["gate", "--endpoint", url, "--baseline-model", "dipmap-sim", "--model", "dipmap-sim",
            "--tokenizer", tk, "--round", "1", "--progress", "none", "--db", db, "--name", "g",
            "--repeats", row["repeats"]] + INPUTS
    rest = axis_args(dict(row, repeats=""))
    args += [f"--run-arg={a}" for a in rest + ["--store-prompts"]]
    run(args, ok=(0, 1, 4))
    return ["g-baseline", "g-candidate"]

MODES = {"batch": mode_batch, "shard": mode_shard, "reuse": mode_reuse, "server": mode_server,
         "gate": mode_gate}
FACTORS = dict(AXES, mode=list(MODES))

def pairwise(factors):
    """Greedy covering array: rows until every valid pair of values of two factors is covered."""
    names = list(factors)
    todo = set()
    for a, b in itertools.combinations(names, 2):
        for va in factors[a]:
            for vb in factors[b]:
                if valid({a: va, b: vb}):
                    todo.add(((a, va), (b, vb)))
    rows = []
    while todo:
        (a, va), (b, vb) = min(todo)
        row = {a: va, b: vb}
        for n in names:
            if n in row:
                continue
            row[n] = max(factors[n], key=lambda v: (valid(dict(row, **{n: v})) and
                sum(((n, v), (m, row[m])) in todo or ((m, row[m]), (n, v)) in todo for m in row),
                -factors[n].index(v)))
        for (f, v), (g, allowed) in NEEDS:
            if row[f] == v and row[g] not in allowed:
                row[f] = factors[f][0]
        rows.append(row)
        for (x, vx), (y, vy) in itertools.combinations(sorted(row.items(), key=lambda kv: names.index(kv[0])), 2):
            todo.discard(((x, vx), (y, vy)))
    return rows

ROWS = pairwise(FACTORS)
print(f"matrix: {len(ROWS)} rows cover every pair of {len(FACTORS)} factors", file=sys.stderr)

def keyed(db, run_name):
    c = sqlite3.connect(db)
    rows = c.execute("select question_id, length, depth_bp, repeat, axes, prompt_sha256, request_sha256,"
                     " usage_prompt_tokens, realized_length, reused_from, outcome, score from trials t join runs r"
                     " on r.id = t.run_id where r.name = ?", (run_name,)).fetchall()
    prompts = dict(c.execute("select sha256, text from prompts").fetchall())
    return {r[:5]: r[5:] for r in rows}, len(rows), prompts

def probe(db, run_name):
    """The run's request probe as `runs --json` shows it (inputs.request_probe)."""
    p = run(["runs", "--db", db, "--json"])
    return {r["name"]: r["inputs"]["request_probe"] for r in json.loads(p.stdout)}.get(run_name)

bad = 0
for i, row in enumerate(ROWS):
    if i % 2 != int(os.environ["MATRIX_HALF"]):
        continue
    db = f"m{i}.db"
    base = ["run", "--endpoint", url, "--model", "dipmap-sim", "--progress", "none",
            "--store-prompts", "--db", db] + INPUTS + axis_args(row)
    run(base + ["--tokenizer", tk, "--run", "on"])
    ref, n_ref, _ = keyed(db, "on")
    ref_probe = probe(db, "on")
    mode = row["mode"]
    why = [] if ref_probe else ["on: no request probe recorded"]
    for name in MODES[mode](base, db, row):
        got, n_got, prompts = keyed(db, name)
        got_probe = probe(db, name)
        if got_probe != ref_probe:
            why.append(f"{name}: request probe {got_probe}, online {ref_probe}")
        if n_got != n_ref or set(got) != set(ref):
            why.append(f"{name}: {n_got} trials stored, {n_ref} planned")
        for k, (psha, rsha, usage, realized, reused, outcome, score) in got.items():
            o = ref.get(k)
            if o and (psha, rsha) != o[:2]:
                why.append(f"{name} {k}: other bytes than online (prompt {psha[:8]} vs {o[0][:8]}, request {rsha[:8]} vs {o[1][:8]})")
            # serve-sim answers a prompt the same way each time: one scoring path in every mode
            if o and (psha, rsha) == o[:2] and (outcome, score) != o[5:7]:
                why.append(f"{name} {k}: scored {outcome} {score}, online {o[5]} {o[6]}")
            if usage != realized or realized > k[1]:
                why.append(f"{name} {k}: the server counted {usage}, the run {realized} for {k[1]}")
            text = prompts.get(psha)
            if text is None or hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest() != psha:
                why.append(f"{name} {k}: the stored prompt is not the bytes hashed")
            if mode == "reuse" and not reused:
                why.append(f"{name} {k}: sent again, not reused")
    if why:
        bad += 1
        print(f"row {i} {row}:\n  " + "\n  ".join(why[:6]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
[ "$MATRIX_HALF" = 0 ] || { echo ok; exit 0; }
# The length invariant on a key-value template too: its hard negatives fill nearly the whole
# target, so a layout's turns must take their tokens from the selection itself (the rows above,
# a QA template with haystack fillers, always had fillers to give back and never exceeded it).
# Every layout of the table: the server counted the target, never more, in >= 95% exactly.
KV=$REPO/tests/data/old-store
start_sim kvsim --dataset "$KV/golden.jsonl" --tokenizer "$TK" --chat-template chatml
"$DIPMAP" run --endpoint "$SIM_URL" --model dipmap-sim --dataset "$KV/golden.jsonl" \
    --haystack "$KV/hay.jsonl" --template "$REPO/prompts/kv.txt" --scorer kv --tokenizer "$TK" \
    --lengths 1k,2k --depths 0,50,100 --layout documents,chat,tools,tool-long --progress none \
    --db kv.db --run kv 2>kv.err || { cat kv.err >&2; fail "the kv run failed"; }
python3 - <<'PY' || fail "a kv-template prompt is not the target length as the server counts it (above)"
import sqlite3, sys
rows = sqlite3.connect("kv.db").execute(
    "select question_id, axes, length, depth_bp, realized_length, usage_prompt_tokens from trials").fetchall()
over = [r for r in rows if r[5] > r[2] or r[4] != r[5]]
exact = sum(r[5] == r[2] for r in rows)
for r in over[:8]:
    print(f"{r[0]} {r[1]} depth {r[3]}: the server counted {r[5]} (the run {r[4]}) for {r[2]}", file=sys.stderr)
if len(rows) != 72 or over or exact < 0.95 * len(rows):
    print(f"{len(rows)} trials, {len(over)} over the target or miscounted, {exact} exact", file=sys.stderr)
    sys.exit(1)
PY
echo ok
