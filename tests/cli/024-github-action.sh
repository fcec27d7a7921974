# action.yml (the composite GitHub Action) run the way a runner does: its shell steps in order
# with ${{ inputs.* }}, ${{ steps.*.outputs.* }} and ${{ github.* }} filled in, GITHUB_OUTPUT,
# GITHUB_ENV, GITHUB_STEP_SUMMARY and GITHUB_ACTION_PATH set (the `uses:` steps, actions/cache
# and actions/upload-artifact, are GitHub's and are listed, not run). The action runs `dipmap
# gate` (the recommended CI path, issue 43 item 11: it ran run + compare and logged "dipmap gate"):
# against serve-sim, a candidate with a deeper dip gives verdict=fail, exit-code 1, a failing
# Verdict step, the gate's verdict in the step summary and its report in the out folder, and
# stops before mapping every question; the second run takes every baseline answer from the
# reuse cache, which keeps baseline runs only; an unchanged candidate passes with exit 0 on the
# action's default dataset (160 generated needle questions), and 20 questions are INCONCLUSIVE
# (exit 4).
# sanitizers: skip: the GitHub Action's shell steps; 611 and 612 run the gate it calls
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
python3 -c 'import yaml' 2>/dev/null || require_or_skip DIPMAP_REQUIRE_PYYAML "python3-yaml is not installed (reads action.yml)"
# the action generates needle-160.jsonl with the same command; the server answers from it
"$DIPMAP" gen needle --n 160 --seed 1 --out needle-160.jsonl || fail "gen needle"
start_sim sim --dataset needle-160.jsonl \
    --model base:edge=0.95,dip=0.10,shape=1.6,seed=7 --model cand:edge=0.95,dip=0.60,shape=1.6,seed=7
url=$SIM_URL
cat >runner.py <<'PY'
import os, re, subprocess, sys, yaml
action, inputs_kv = sys.argv[1], sys.argv[2:]
spec = yaml.safe_load(open(action))
inputs = {k: str(v.get("default", "")) for k, v in spec["inputs"].items()}
for kv in inputs_kv:
    k, v = kv.split("=", 1)
    assert k in spec["inputs"], f"unknown input {k}"
    inputs[k] = v
for k, v in spec["inputs"].items():
    assert not v.get("required") or inputs[k], f"required input {k} missing"
steps, env = {}, dict(os.environ)
def expr(s):
    def one(m):
        e = m.group(1).strip()
        if e.startswith("inputs."): return inputs[e[7:]]
        m2 = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e)
        if m2: return steps.get(m2.group(1), {}).get(m2.group(2), "")
        if e == "github.run_id": return env["GITHUB_RUN_ID"]
        raise SystemExit(f"unhandled expression {e}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(s))
def read_kv(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1); d[k] = v
        os.unlink(path)
    return d
last = 0
for i, st in enumerate(spec["runs"]["steps"]):
    if "uses" in st:
        print(f"uses {st['uses']} (GitHub's; not run here)"); continue
    cond = st.get("if")
    if cond and "always()" not in cond and last != 0: continue
    e = dict(env); e.update({k: expr(v) for k, v in st.get("env", {}).items()})
    e["GITHUB_OUTPUT"] = os.path.abspath(f"out.{i}"); e["GITHUB_ENV"] = os.path.abspath(f"env.{i}")
    assert st["shell"] == "bash"
    rc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", expr(st["run"])], env=e).returncode
    steps[st.get("id", str(i))] = read_kv(e["GITHUB_OUTPUT"])
    env.update(read_kv(e["GITHUB_ENV"]))
    print(f"step {st['name']}: exit {rc}")
    last = rc
    if rc != 0: break
outs = {k: expr(v["value"]) for k, v in spec["outputs"].items()}
for k, v in outs.items(): print(f"output {k}={v}")
sys.exit(last)
PY
# gate NAME CANDIDATE_MODEL [INPUT=VALUE...]: run the action in ./NAME (a workspace sharing
# ./cache.db)
top=$PWD
gate() {
    mkdir -p "$1"
    local name=$1 model=$2
    shift 2
    (cd "$name" && GITHUB_ACTIONS=true GITHUB_RUN_ID=$name GITHUB_RUN_ATTEMPT=1 GITHUB_ACTION_PATH=$REPO \
        GITHUB_STEP_SUMMARY=$PWD/summary.md python3 ../runner.py "$REPO/action.yml" \
        baseline-endpoint="$url" candidate-endpoint="$url" model=base candidate-model="$model" \
        lengths=8k depths=0:100:25 tokenizer="$REPO/datasets/tokenizers/cl100k_base.tiktoken.gz" \
        reuse-cache="$top/cache.db" out=report "$@")
}
gate r1 cand >r1.log 2>&1
rc=$?
[ $rc = 1 ] || { tail -n 30 r1.log >&2; fail "the regressed candidate: runner exit $rc, want 1"; }
grep -qx 'output verdict=fail' r1.log || { tail -n 30 r1.log >&2; fail "verdict not fail"; }
grep -qx 'output exit-code=1' r1.log || fail "exit-code not 1"
grep -qx 'output report-dir=report' r1.log || fail "report-dir"
grep -qx 'step Verdict: exit 1' r1.log || fail "the Verdict step did not fail the job"
grep -q 'uses actions/upload-artifact@v4' r1.log || fail "no upload step"
assert_contains r1/summary.md "dipmap gate: FAIL"
assert_contains r1.log "dipmap gate: fail (exit code 1)"
for f in compare.json junit.xml compare.md; do [ -s "r1/report/$f" ] || fail "no report/$f"; done
grep -q '"sequential"' r1/report/compare.json || fail "compare.json is not the gate's"
# the gate stopped early: fewer baseline trials than 160 questions x 5 depths
n=$(sqlite3 -batch -noheader cache.db "select count(*) from trials t join runs r on r.id = t.run_id where r.name = 'r1-1-baseline'")
[ "$n" -gt 0 ] && [ "$n" -lt 800 ] || fail "the gate mapped $n baseline trials, want an early stop below 800"
[ -z "$(sqlite3 -batch -noheader cache.db "select name from runs where name like '%-candidate'")" ] ||
    fail "the reuse cache keeps a candidate run"

# the second run: every baseline request is answered from the cache (reused_from set)
gate r2 cand >r2.log 2>&1
[ $? = 1 ] || { tail -n 30 r2.log >&2; fail "second run: want exit 1"; }
"$DIPMAP" export r2-1-baseline --db cache.db --format jsonl >base2.jsonl || fail "export r2-1-baseline"
total=$(wc -l <base2.jsonl)
reused=$(grep -c "\"reused_from\":\"$top/cache.db:r1-1-baseline\"" base2.jsonl)
[ "$total" -gt 0 ] && [ "$reused" = "$total" ] || fail "reused $reused of $total baseline trials"

# an unchanged candidate passes
gate r3 base >r3.log 2>&1
[ $? = 0 ] || { tail -n 30 r3.log >&2; fail "unchanged candidate: want exit 0"; }
grep -qx 'output verdict=pass' r3.log || fail "verdict not pass"
grep -qx 'output exit-code=0' r3.log || fail "exit-code not 0"
cmp -s r3/needle-160.jsonl needle-160.jsonl || fail "the action's generated needle set differs"
# 20 questions, fewer than a PASS needs: INCONCLUSIVE fails the job
head -n 20 needle-160.jsonl >needle-20.jsonl
gate r5 base dataset="$top/needle-20.jsonl" reuse-cache= >r5.log 2>&1
[ $? = 4 ] || { tail -n 30 r5.log >&2; fail "20 questions, unchanged: want exit 4"; }
grep -qx 'output verdict=inconclusive' r5.log || fail "verdict not inconclusive"
grep -qx 'step Verdict: exit 4' r5.log || fail "the Verdict step did not fail on INCONCLUSIVE"
# a missing required input is refused before anything runs
(cd r3 && GITHUB_RUN_ID=x python3 ../runner.py "$REPO/action.yml" model=base) >r4.log 2>&1 &&
    fail "missing endpoints accepted"
exit 0
