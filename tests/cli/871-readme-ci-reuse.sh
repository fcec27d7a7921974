# docs/ci.md's GitHub Actions example (run + compare, formerly in README) runs as written (smaller matrix, local servers, 160 kv
# questions for its 160 needles: enough for an unchanged model to PASS under the anytime-valid rule, 121): the first
# pull request maps the baseline, the second reuses every baseline answer (nothing sent to the
# baseline server) and compare still gives its verdict.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 160
start_sim base --dataset golden.jsonl --tokenizer cl100k_base
BASE_URL=$SIM_URL
start_sim cand --dataset golden.jsonl --tokenizer cl100k_base
CAND_URL=$SIM_URL
export BASE_URL CAND_URL
# the run: blocks of the "Map baseline and candidate" and "Compare" steps
python3 - "$REPO/docs/ci.md" >ci.sh <<'PY'
import re, sys
text = open(sys.argv[1]).read()
y = text[text.index("name: context-regression"):]
y = y[:y.index("```")]
out = []
for step in ("Map baseline and candidate", "Compare (fails the job on a regression)"):
    blk = y[y.index("- name: " + step):]
    blk = blk[blk.index("run: |") + len("run: |"):]
    lines = []
    for l in blk.split("\n")[1:]:
        if l.strip().startswith("- ") or (l.strip() and not l.startswith(" " * 10)):
            break
        lines.append(l[10:])
    out.append("\n".join(lines))
print("\n".join(out))
PY
grep -q -- '--reuse base.db' ci.sh || fail "the README's CI example does not use --reuse"
# the same commands on this machine: the kv set, a small matrix, the local dipmap
sed -i -e "s|needle-[0-9]*\.jsonl|golden.jsonl|; s|^ *./dipmap gen needle.*$||; s|datasets/nq-haystack.jsonl.gz|hay.jsonl|" \
    -e "s|--lengths 8k,32k --depths 0:100:10 --tokenizer server|--lengths 1k --depths 0:100:25 --template $REPO/prompts/kv.txt --scorer kv|" \
    -e "s|--model my-model|--model dipmap-sim|g" -e "s|\./dipmap|\"\$DIPMAP\"|g" ci.sh
base_sent() { grep -c '/completions' base.log; }
GITHUB_RUN_ID=1 bash -e ci.sh >pr1.out 2>pr1.err || { cat pr1.err >&2; fail "first pull request failed"; }
[ "$(base_sent)" = 800 ] || fail "first pull request: $(base_sent) baseline requests"
rm -f ci.db   # a new job: only the cached base.db is carried over
GITHUB_RUN_ID=2 bash -e ci.sh >pr2.out 2>pr2.err || { cat pr2.err >&2; fail "second pull request failed"; }
[ "$(base_sent)" = 800 ] || fail "the unchanged baseline was paid for again: $(base_sent) requests"
assert_contains pr2.out "reused: 800 trial(s) answered from stored byte-identical requests (not sent)"
assert_contains pr2.out "PASS"
[ "$(n_trials base-2 "reused_from = 'base.db:base-1'" base.db)" = 800 ] ||
    fail "reused trials not marked"
