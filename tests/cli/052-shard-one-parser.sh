# --shard is parsed by plan_parse_shard alone (the unit-tested parser): I/N with
# 1 <= I <= N <= PLAN_MAX_SHARDS (1000000) whether given as I/N or found by --shard auto;
# a bad spec is exit 2 naming the option and the value.
source "$TESTS/cli/lib/lib.sh"
set_="$REPO/datasets/needle.jsonl"
dry() { "$DIPMAP" run --dry-run --dataset "$set_" --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k --depths 0 "$@"; }
expect_code 0 dry --shard 2/3
assert_contains out "shard 2/3"
expect_code 0 dry --shard 1000000/1000000
for bad in 1/2000000 0/2 3/2 1/0 x/2 2 /2 1/ 1/2/3; do
    expect_code 2 dry --shard "$bad"
    assert_contains err "--shard '$bad'"
done
# the environment of --shard auto obeys the same limit
JOB_COMPLETION_INDEX=0 JOB_COMPLETIONS=2000000 expect_code 2 dry --shard auto
assert_contains err "--shard auto"
assert_contains err "1000000"
JOB_COMPLETION_INDEX=1 JOB_COMPLETIONS=2 expect_code 0 dry --shard auto
assert_contains out "shard 2/2"
