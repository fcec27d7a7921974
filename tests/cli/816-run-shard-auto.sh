# --shard auto reads Kubernetes, Slurm and GitLab job indices; the same index gives the same share.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
B=(--dataset golden.jsonl --haystack hay.jsonl --lengths 1k --depths 0:100:10 --dry-run)
A=("${B[@]}" --shard auto)
expect_code 0 "$DIPMAP" run "${B[@]}" --shard 2/3
assert_contains out "shard"
cp out want
expect_code 0 env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID CI_NODE_INDEX=2 CI_NODE_TOTAL=3 \
    "$DIPMAP" run "${A[@]}"
grep -q "trials: 11 " out || fail "shard size"
diff -u want out >&2 || fail "GitLab CI_NODE_INDEX=2 (1-based) differs from --shard 2/3"
expect_code 0 env -u CI_NODE_INDEX -u SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX=1 DIPMAP_SHARD_COUNT=3 \
    "$DIPMAP" run "${A[@]}"
diff -u want out >&2 || fail "Kubernetes JOB_COMPLETION_INDEX=1 differs from --shard 2/3"
expect_code 0 env -u CI_NODE_INDEX -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 \
    "$DIPMAP" run "${A[@]}"
diff -u want out >&2 || fail "Slurm SLURM_ARRAY_TASK_ID=1 differs from --shard 2/3"
expect_code 2 env -u CI_NODE_INDEX -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID "$DIPMAP" run "${A[@]}"
assert_contains err "--shard auto: none of"
expect_code 2 env -u CI_NODE_INDEX -u SLURM_ARRAY_TASK_ID -u DIPMAP_SHARD_COUNT -u JOB_COMPLETIONS \
    JOB_COMPLETION_INDEX=0 "$DIPMAP" run "${A[@]}"
assert_contains err "DIPMAP_SHARD_COUNT"
