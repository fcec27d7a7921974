# The cluster examples in examples/ work as shipped: for the Kubernetes Indexed Job, the Slurm
# array and the GitHub Actions matrix, the shard commands (taken from the files, between their
# dipmap-shard-begin/end markers) run once per shard with the variables that scheduler sets,
# and the merge commands (dipmap-merge-begin/end) join the stores into one complete run whose
# trials equal an unsharded run of the same options.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
EX=$REPO/examples
make_kv 4
start_sim sim --dataset golden.jsonl
top=$PWD
cat >run.json <<EOF
{"endpoint": ["$SIM_URL"], "model": "dipmap-sim", "dataset": "$top/golden.jsonl",
 "haystack": "$top/hay.jsonl", "template": "$REPO/prompts/kv.txt", "scorer": "kv",
 "lengths": ["1k"], "depths": "0:100:25", "repeats": 2, "concurrency": 4, "progress": "none"}
EOF
# the reference: the same options, unsharded (4 questions x 5 depths x 2 repeats)
expect_code 0 "$DIPMAP" run --config run.json --run whole --db whole.db
sel="select question_id, length, depth_bp, repeat, outcome, answer, prompt_sha256 from trials order by 1,2,3,4"
q whole.db "$sel" >whole.txt
[ "$(wc -l <whole.txt)" = 40 ] || fail "unsharded run has $(wc -l <whole.txt) trials"

# block FILE NAME: the commands between "# dipmap-NAME-begin" and "# dipmap-NAME-end", dedented
block() {
    awk -v b="# dipmap-$2-begin" -v e="# dipmap-$2-end" '
        { line = $0; sub(/^[ \t]+/, "", line) }
        line == e { inb = 0 }
        inb { if (ind == "") { match($0, /^[ \t]*/); ind = RLENGTH } print substr($0, ind + 1) }
        line == b { inb = 1 }' "$1"
}

# check_merged DB RUN: one complete run whose trials equal the unsharded run's
check_merged() {
    [ "$(q "$1" "select status, trials_planned, (select count(*) from trials) from runs where name = '$2'")" = "complete|40|40" ] ||
        fail "$1: merged run: $(q "$1" "select name, status, trials_planned, shard from runs")"
    q "$1" "$sel" >merged.txt
    diff -u "$top/whole.txt" merged.txt >&2 || fail "$1: merged shards differ from the unsharded run"
}

# clean_env CMD...: run without any scheduler's variables from the outer environment
clean_env() {
    env -u JOB_COMPLETION_INDEX -u JOB_COMPLETIONS -u DIPMAP_SHARD_COUNT -u SLURM_ARRAY_TASK_ID \
        -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN -u CI_NODE_INDEX -u CI_NODE_TOTAL "$@"
}

# ---- Kubernetes: Indexed Job, JOB_COMPLETION_INDEX 0..completions-1 -------------------------
y=$EX/kubernetes/shards-job.yaml
n=$(sed -n 's/^ *completions: *\([0-9]*\)$/\1/p' "$y")
count=$(sed -n 's/.*name: DIPMAP_SHARD_COUNT, value: "\([0-9]*\)".*/\1/p' "$y")
run=$(sed -n 's/.*name: RUN, value: \([^ }]*\)}.*/\1/p' "$y" | head -n 1)
[ "$n" = 4 ] && [ "$count" = "$n" ] && [ -n "$run" ] ||
    fail "kubernetes: completions '$n', DIPMAP_SHARD_COUNT '$count', RUN '$run'"
grep -q 'completionMode: Indexed' "$y" || fail "kubernetes: not an Indexed Job"
mkdir -p k8s/data k8s/etc k8s/work && cp run.json k8s/etc/run.json && ln -s "$DIPMAP" k8s/work/dipmap
# the container's paths: /data (volume), /etc/dipmap (ConfigMap); dipmap on the PATH (the image)
block "$y" shard | sed "s#/data/#$top/k8s/data/#g; s#/etc/dipmap/#$top/k8s/etc/#g" >k8s/shard.sh
block "$EX/kubernetes/merge-job.yaml" merge | sed "s#/data/#$top/k8s/data/#g" >k8s/merge.sh
[ -s k8s/shard.sh ] && [ -s k8s/merge.sh ] || fail "kubernetes: no shard or merge commands found"
grep -q -- '--shard auto' k8s/shard.sh || fail "kubernetes: the shard command does not use --shard auto"
for i in $(seq 0 $((n - 1))); do
    (cd k8s/work && clean_env PATH="$top/k8s/work:$PATH" JOB_COMPLETION_INDEX=$i DIPMAP_SHARD_COUNT=$count RUN=$run \
        /bin/sh "$top/k8s/shard.sh") >k8s/shard$i.log 2>&1 || fail "kubernetes shard $i: $(tail -5 k8s/shard$i.log)"
done
[ "$(ls k8s/data/shards | wc -l)" = 4 ] || fail "kubernetes: shard stores: $(ls k8s/data/shards)"
(cd k8s/work && clean_env PATH="$top/k8s/work:$PATH" RUN=$run /bin/sh "$top/k8s/merge.sh") >k8s/merge.log 2>&1 ||
    fail "kubernetes merge: $(tail -5 k8s/merge.log)"
check_merged "k8s/data/$run.db" "$run"
[ -s "k8s/data/reports/$run/report.html" ] || fail "kubernetes: no report written"

# ---- Slurm: job array, SLURM_ARRAY_TASK_ID from the --array range ----------------------------
s=$EX/slurm/shards.sbatch
range=$(sed -n 's/^#SBATCH --array=\([0-9]*-[0-9]*\)$/\1/p' "$s")
lo=${range%-*}
hi=${range#*-}
[ -n "$range" ] && [ $((hi - lo + 1)) = 4 ] || fail "slurm: --array '$range'"
grep -q 'afterany' "$EX/slurm/submit.sh" || fail "slurm: the merge must run after failed shards too"
mkdir -p slurm && cp run.json slurm/run.json && ln -s "$DIPMAP" slurm/dipmap
for i in $(seq "$lo" "$hi"); do
    clean_env SLURM_SUBMIT_DIR="$top/slurm" SLURM_ARRAY_JOB_ID=77 SLURM_ARRAY_TASK_ID=$i \
        SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_MAX=$hi RUN=slurm-run \
        bash "$s" >slurm/shard$i.log 2>&1 || fail "slurm task $i: $(tail -5 slurm/shard$i.log)"
done
clean_env SLURM_SUBMIT_DIR="$top/slurm" SLURM_JOB_ID=78 RUN=slurm-run bash "$EX/slurm/merge.sbatch" \
    >slurm/merge.log 2>&1 || fail "slurm merge: $(tail -5 slurm/merge.log)"
check_merged slurm/slurm-run.db slurm-run
# the same array numbered from 1 (--array=1-4) gives the same shards
mkdir -p slurm1 && cp run.json slurm1/run.json && ln -s "$DIPMAP" slurm1/dipmap
for i in 1 2 3 4; do
    clean_env SLURM_SUBMIT_DIR="$top/slurm1" SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=4 \
        SLURM_ARRAY_TASK_MIN=1 RUN=slurm-run bash "$s" >slurm1/shard$i.log 2>&1 ||
        fail "slurm (1-based) task $i: $(tail -5 slurm1/shard$i.log)"
done
for i in 1 2 3 4; do
    a=$(q "slurm/stores/shard-$((i - 1)).db" "select shard from runs")
    b=$(q "slurm1/stores/shard-$i.db" "select shard from runs")
    [ "$a" = "$b" ] || fail "slurm: task $((i - 1)) of 0-3 is shard $a, task $i of 1-4 is $b"
done

# ---- GitHub Actions: matrix.shard 1..N, explicit --shard I/N ---------------------------------
w=$EX/github-actions/dipmap-shards.yml
shards=$(sed -n 's/^ *shard: *\[\(.*\)\]$/\1/p' "$w" | tr -d ' ')
[ "$shards" = "1,2,3,4" ] || fail "github: matrix shards '$shards'"
block "$w" shard >gh-shard.tmpl
block "$w" merge >gh-merge.sh
[ -s gh-shard.tmpl ] && [ -s gh-merge.sh ] || fail "github: no shard or merge commands found"
mkdir -p gh/.github/dipmap gh/merge/shards && cp run.json gh/.github/dipmap/run.json
ln -s "$DIPMAP" gh/dipmap
ln -s "$DIPMAP" gh/merge/dipmap
for i in 1 2 3 4; do
    # the runner substitutes ${{ }} expressions before the shell sees the script
    sed "s/\${{ matrix.shard }}/$i/g; s/\${{ strategy.job-total }}/4/g" gh-shard.tmpl >gh/shard$i.sh
    grep -q '\${{' gh/shard$i.sh && fail "github: unsubstituted expression in $(cat gh/shard$i.sh)"
    (cd gh && clean_env RUN=nightly-42 GITHUB_ACTIONS=true bash -e "shard$i.sh") >gh/shard$i.log 2>&1 ||
        fail "github shard $i: $(tail -5 gh/shard$i.log)"
    # upload-artifact / download-artifact (merge-multiple) put every shard store in shards/
    cp "gh/shard-$i.db" gh/merge/shards/
done
(cd gh/merge && clean_env RUN=nightly-42 bash -e "$top/gh-merge.sh") >gh/merge.log 2>&1 ||
    fail "github merge: $(tail -5 gh/merge.log)"
check_merged gh/merge/nightly-42.db nightly-42
grep -q "nightly-42 .*complete" gh/merge.log || fail "github: 'dipmap runs' does not show the run complete: $(cat gh/merge.log)"
exit 0
