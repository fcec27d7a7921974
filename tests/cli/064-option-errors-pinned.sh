# The option parsers of serve-sim, report, run, show-prompt, plan and rescore keep their
# behaviour (issue 15 rewrote them as named phases): for every option `dipmap help CMD` lists,
# a missing value (or a value given to a flag) and each bad value in the table below is refused
# with the exit code and first error line pinned in 064-option-errors-pinned.out (made with the
# parsers before the rewrite); an option in the help with no case here fails the test, so a new
# option gets its cases. show-prompt --axes question-at=middle crashed (read past the value names). serve-sim starts with a good value for every one of its options.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db t.db --run pin
printf '0.5\n0.3\n0.2\n' >rank.txt
printf 'half\n' >bad-rank.txt
TOK="$REPO/datasets/tokenizers/cl100k_base.tiktoken.gz"
python3 - "$DIPMAP" "$REPO" "$TOK" "$SIM_URL" <<'PY' || fail "option cases (above)"
import os, re, subprocess, sys
dipmap, repo, tok, url = sys.argv[1:5]
cwd = os.getcwd()
kv = os.path.join(repo, "prompts", "kv.txt")
base = {
    "serve-sim": ["--port", "0", "--tokenizer", tok],
    "report": ["pin", "--db", "t.db", "--no-plots", "--out", "rep"],
    "run": ["--endpoint", url, "--model", "dipmap-sim", "--dataset", "golden.jsonl",
            "--haystack", "hay.jsonl", "--template", kv, "--scorer", "kv", "--progress", "none",
            "--lengths", "1k", "--depths", "0:100:100", "--db", "t.db", "--run", "pin2",
            "--dry-run"],
    "show-prompt": ["--dataset", "golden.jsonl", "--haystack", "hay.jsonl", "--template", kv,
                    "--tokenizer", tok, "--length", "1k"],
    "plan": ["--questions", "10"],
    "rescore": ["pin", "--db", "t.db", "--scorer", "kv", "--as", "pin3"],
}
# option -> bad values (each refused); [] = only the missing-value case (any text is valid)
bad = {
    "serve-sim": {
        "host": ["256.1.1.1"], "port": ["70000", "-1", "x"], "api-key": [],
        "api-key-env": ["DIPMAP_PIN_UNSET"], "log": ["nodir/x.log"],
        "dataset": ["missing.jsonl"], "haystack": ["missing.jsonl"],
        "model": ["m:edge=2", "m:bogus=1", "m:dip=x"], "tokenizer": ["nope"],
        "ctx": ["x", "-1"], "shift-ctx": ["x"], "template-overhead": ["-1", "100001", "x"],
        "chat-template": ["jinja"], "tokenize-api": ["sglang"], "reject-max-tokens": [],
        "min-max-tokens": ["-1", "1000001"], "reasoning": ["1.5", "-0.1", "x"],
        "think": ["x", "-5"], "think-form": ["block"], "think-stop": [],
        "prefix-cache": ["x"], "slots": ["-1", "1025"], "timings": [], "owned-by": [],
        "prefill-ms-per-1k": ["-1", "2e6"], "decode-ms-per-token": ["-1", "x"],
        "prefill-throughput": ["-1", "2e9", "x"],
        "faults": ["429=2", "boom=0.1", "429"], "fault-seed": ["-1"], "latency-ms": ["-1"],
        "tokenize-latency-ms": ["-1"], "slow-ms": ["-1"], "retry-after-ms": ["-1"],
        "batch-delay-ms": ["-1"], "batch-expire": ["2", "x"], "batch-errors": ["-0.1"],
        "batch-malformed": ["1.5"], "batch-max-requests": ["-1"], "batch-max-bytes": ["-1"],
    },
    "report": {
        "db": ["missing.db"], "out": [], "format": ["pdf", "", "md,pdf"], "no-plots": [],
        "exclude-known": [], "dataset": ["missing.jsonl"],
        "rank-dist": ["missing.txt", "bad-rank.txt"], "rank-p": ["0", "1.5", "x"],
        "price-in": ["-1", "x"], "price-out": ["-1"], "axis-pair": ["a", "a,a", "x,y"],
        "ruler-threshold": ["150", "x"], "nolima-base": ["lots"],
    },
    "run": {
        "repeats": ["0"], "concurrency": ["0"], "temperature": ["3"], "top-p": ["0"],
        "max-tokens": ["0", "x"], "schedule": ["fifo"], "special": ["both"],
        "progress": ["fancy"], "max-tokens-field": ["tokens"], "reasoning-effort": ["max"],
        "experiment": ["width"], "template-overhead": ["x"], "shard": ["3/2"],
        "price-in": ["-1"], "rank-p": ["2"], "max-error-rate": ["2"], "questions": ["-1", "x"],
        "batch-max-requests": ["0"], "batch-max-bytes": ["10"], "batch-fallback": ["never"],
        "batch-poll": ["0"], "price-batch-in": ["1"], "price-batch-out": ["1"],
        "layout": ["forum", "chat,chat"], "hops": ["3", "x"], "depths-b": ["150", "x"],
        "needle-tokens": ["0", "x"],
        "absent": ["0", "1.5", "x"], "abstain-phrase": [], "abstain-regex": ["("],
        "ordinal": ["1"],
        "arm": ["oracle", "padding,padding"],
        # parse_run_options is only the table: the rest have their own tests (824, ...)
        **{o: [] for o in "endpoint model dataset haystack lengths depths controls question-at "
           "distractors haystack-order needles spacing template tokenizer scorer extra-body "
           "reuse reasoning-tags seed api-key-env header timeout connect-timeout rpm tpm "
           "latency-s max-attempts retry-base-ms drain-seconds progress-interval db run tag "
           "price-out price-cached-in max-cost config policies k budget rank-dist "
           "allow-tokenizer-mismatch completions insecure verbose no-cache-reuse probe "
           "context-check store-prompts dry-run group-by-doc batch batch-window "
           "batch-cancel".split()},
    },
    "show-prompt": {
        "dataset": ["missing.jsonl"], "haystack": ["missing.jsonl"], "question": ["nope"],
        "length": ["x", "0"], "depth": ["101", "-1", "x"], "repeat": ["-1"], "seed": ["-1"],
        "template": ["nope"], "tokenizer": ["nope"], "special": ["both"], "max-tokens": ["x"],
        "template-overhead": ["-1", "2000"], "turn-overhead": ["x"],
        "turn-suffix": ["\\q", "abcdef"], "completions": [], "json": [], "axes": ["bogus", "question-at=middle", "needles=x"],
        "endpoint": ["x"], "model": [], "api-key-env": [],
    },
    "plan": {
        "dataset": ["missing.jsonl"], "questions": ["-1", "x"], "lengths": ["x"],
        "depths": ["x"], "repeats": ["0", "10001"], "alpha": ["0", "1"], "tolerance": ["1", "5"],
        "accuracy": ["1.5"], "discordance": ["2"], "icc": ["-0.1"], "pilot": ["nope"],
        "db": [], "detect": ["0pp", "x", "10"], "power": ["x"], "gate": ["x"], "iterations": ["99"],
        "seed": ["x", "0"], "round": ["0"], "gates": ["-1"],
    },
    "rescore": {
        "scorer": ["nope"], "as": ["pin"], "db": ["missing.db"], "dataset": ["missing.jsonl"],
        "reasoning-tags": ["x"],
    },
}
# serve-sim: one good value for every option, all at once
good = {
    "host": "127.0.0.1", "port": "0", "api-key": "k", "api-key-env": "DIPMAP_PIN_KEY",
    "log": "pin.log", "dataset": "golden.jsonl", "haystack": "hay.jsonl",
    "model": "m:edge=0.9,dip=0.3,shuffled=0.1", "tokenizer": tok, "ctx": "32k", "shift-ctx": "16k",
    "template-overhead": "3", "chat-template": "chatml", "tokenize-api": "vllm",
    "reject-max-tokens": None, "min-max-tokens": "16", "reasoning": "0.1", "think": "64",
    "think-form": "field", "think-stop": None, "prefix-cache": "1m", "slots": "2",
    "timings": None, "owned-by": "vllm", "prefill-ms-per-1k": "1", "decode-ms-per-token": "0.5",
    "prefill-throughput": "1e6",
    "faults": "429=0.01", "fault-seed": "3", "latency-ms": "1", "tokenize-latency-ms": "1",
    "slow-ms": "10", "retry-after-ms": "10", "batch-delay-ms": "10", "batch-expire": "0.1",
    "batch-errors": "0.1", "batch-malformed": "0.1", "batch-max-requests": "100",
    "batch-max-bytes": "100000",
}
env = dict(os.environ, DIPMAP_PIN_KEY="k")
env.pop("DIPMAP_PIN_UNSET", None)

def options(cmd):
    h = subprocess.run([dipmap, "help", cmd], capture_output=True, text=True).stdout
    return [(m.group(2), bool(m.group(1)) or not m.group(3))
            for m in re.finditer(r"^\s+(?:-\w, )?--(\[no-\])?([a-z0-9-]+)( \S+)?", h, re.M)]

def run(argv):
    p = subprocess.Popen([dipmap] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:  # a server that started: the value was accepted
        p.terminate()
        out, err = p.communicate()
        return "started", out, err
    return p.returncode, out, err

def first_error(err):
    lines = [l for l in err.splitlines() if l.startswith("error:")] or err.splitlines() or [""]
    return lines[0].replace(cwd, "CWD").replace(repo, "REPO").replace(url, "URL")

failed = 0
for cmd, cases in bad.items():
    for opt, flag in options(cmd):
        if opt not in cases:
            print(f"FAIL: {cmd} --{opt} has no case in this test: add its bad values", file=sys.stderr)
            failed = 1
            continue
        tries = [[f"--{opt}=1"]] if flag else [[f"--{opt}"]] + [[f"--{opt}", v] for v in cases[opt]]
        for t in tries:
            rc, out, err = run([cmd] + base[cmd] + t)
            if rc == "started" or rc == 0:
                print(f"FAIL: {cmd} {' '.join(t)} was accepted", file=sys.stderr)
                failed = 1
            elif rc < 0 or rc > 4:
                print(f"FAIL: {cmd} {' '.join(t)} crashed (exit {rc})", file=sys.stderr)
                failed = 1
            print(f"{cmd} {' '.join(t)}: exit {rc}: {first_error(err)}")
# every serve-sim option with a good value: the server starts
argv = ["serve-sim"]
for opt, flag in options("serve-sim"):
    argv += [f"--{opt}"] if flag else [f"--{opt}", good[opt]]
p = subprocess.Popen([dipmap] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
port = p.stdout.readline().strip()
p.terminate()
out, err = p.communicate()
if not port.isdigit() or p.returncode != 0:
    print(f"FAIL: serve-sim with every option: port '{port}', exit {p.returncode}: {err}", file=sys.stderr)
    failed = 1
sys.exit(failed)
PY
