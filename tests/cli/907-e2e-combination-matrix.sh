# The combination matrix: every way a run sends (online, --batch through serve-sim's Batch API,
# --shard 1/2 + 2/2 then merge, --reuse, --tokenizer server) crossed with every axis value
# (--layout, --question-at, --needles, --haystack-order, --distractors, --repeats,
# --completions, --arm) in a pairwise (covering-array) design generated from the two tables below:
# every pair of values of any two factors is in at least one row, so a new axis or mode joins
# the matrix as one table entry. Each row is one small run (2 two-needle questions, 1k tokens,
# depths 0 and 100) made online and in its mode. Invariants per trial key: the mode's request
# and prompt hashes are the online run's (the same bytes sent); the server counted the run's
# length (usage.prompt_tokens = realized_length <= length); the stored prompt is the bytes
# hashed (sha256 of the stored text = prompt_sha256); every planned trial is stored once.
# Then every layout over the key-value template (tests/data/old-store's kv data, 1k and 2k):
# the server's count is never above the target and equals it in >= 95% of the prompts.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
"$DIPMAP" gen hops --n 2 --seed 3 --out hops.jsonl >/dev/null || fail "gen hops"
start_sim sim --dataset hops.jsonl --tokenizer "$TK" --chat-template chatml
export SIM_URL TK
python3 - <<'PY' || fail "the matrix found a combination that sends or stores other bytes (above)"
import hashlib, itertools, json, os, sqlite3, subprocess, sys

AXES = {  # run option -> values (one per row); "" = the option left out
    "layout": ["documents", "chat", "tools", "tool-long"],
    "question-at": ["end", "both"],
    "needles": ["1", "2"],
    "haystack-order": ["coherent", "shuffled"],
    "distractors": ["hard", "random"],
    "repeats": ["1", "2"],
    "completions": ["no", "yes"],
    "arm": ["haystack", "padding", "adjacent"],
}
MODES = ["batch", "shard", "reuse", "server"]
FACTORS = dict(AXES, mode=MODES)

def valid(row):
    return not (row.get("completions") == "yes" and row.get("layout", "documents") != "documents")

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
            best = max(factors[n], key=lambda v: (valid(dict(row, **{n: v})) and
                sum(((n, v), (m, row[m])) in todo or ((m, row[m]), (n, v)) in todo for m in row),
                -factors[n].index(v)))
            row[n] = best
        if not valid(row):
            row["completions"] = "no"
        rows.append(row)
        for (x, vx), (y, vy) in itertools.combinations(sorted(row.items(), key=lambda kv: names.index(kv[0])), 2):
            todo.discard(((x, vx), (y, vy)))
    return rows

ROWS = pairwise(FACTORS)
print(f"matrix: {len(ROWS)} rows cover every pair of {len(FACTORS)} factors", file=sys.stderr)
dm, repo, url, tk = os.environ["DIPMAP"], os.environ["REPO"], os.environ["SIM_URL"], os.environ["TK"]

def run(args, check=True):
    p = subprocess.run([dm] + args, capture_output=True, text=True)
    if check and p.returncode != 0:
        print(f"FAILED ({p.returncode}): dipmap {' '.join(args)}\n{p.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    return p

def keyed(db, run_name):
    c = sqlite3.connect(db)
    rows = c.execute("select question_id, length, depth_bp, repeat, axes, prompt_sha256, request_sha256,"
                     " usage_prompt_tokens, realized_length, reused_from from trials t join runs r"
                     " on r.id = t.run_id where r.name = ?", (run_name,)).fetchall()
    prompts = dict(c.execute("select sha256, text from prompts").fetchall())
    return {r[:5]: r[5:] for r in rows}, len(rows), prompts

bad = 0
for i, row in enumerate(ROWS):
    db = f"m{i}.db"
    tok = tk if row["mode"] != "server" else "server"
    base = ["run", "--endpoint", url, "--model", "dipmap-sim", "--dataset", "hops.jsonl",
            "--haystack", f"{repo}/datasets/nq-haystack.jsonl.gz", "--template",
            f"{repo}/prompts/qa-both.txt", "--progress", "none", "--lengths", "1k",
            "--depths", "0,100", "--store-prompts", "--db", db]
    for opt, vals in AXES.items():
        v = row[opt]
        if opt == "completions":
            base += ["--completions"] if v == "yes" else []
        elif opt == "repeats":
            base += ["--repeats", v]
        else:
            base += [f"--{opt}", v]
    on = base + ["--tokenizer", tk, "--run", "on"]
    run(on)
    ref, n_ref, prompts = keyed(db, "on")
    mode = row["mode"]
    if mode == "batch":
        run(base + ["--tokenizer", tk, "--run", "m", "--batch", "--batch-poll", "0.05"])
    elif mode == "shard":
        for s in ("1/2", "2/2"):
            run([a if a != db else f"s{s[0]}-{db}" for a in base] + ["--tokenizer", tk, "--run", "m", "--shard", s])
        run(["merge", db, f"s1-{db}", f"s2-{db}"])
    elif mode == "reuse":
        run(base + ["--tokenizer", tk, "--run", "m", "--reuse", "on"])
    else:
        run(base + ["--tokenizer", "server", "--run", "m"])
    got, n_got, prompts = keyed(db, "m")
    why = []
    if n_got != n_ref or set(got) != set(ref):
        why.append(f"{n_got} trials stored, {n_ref} planned")
    for k, (psha, rsha, usage, realized, reused) in got.items():
        o = ref.get(k)
        if o and (psha, rsha) != o[:2]:
            why.append(f"{k}: other bytes than online (prompt {psha[:8]} vs {o[0][:8]}, request {rsha[:8]} vs {o[1][:8]})")
        if usage != realized or realized > k[1]:
            why.append(f"{k}: the server counted {usage}, the run {realized} for {k[1]}")
        if psha not in prompts or hashlib.sha256(prompts[psha] if isinstance(prompts[psha], bytes) else prompts[psha].encode()).hexdigest() != psha:
            why.append(f"{k}: the stored prompt is not the bytes hashed")
        if mode == "reuse" and not reused:
            why.append(f"{k}: sent again, not reused")
    if why:
        bad += 1
        print(f"row {i} {row}:\n  " + "\n  ".join(why[:6]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
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
