# Helpers for the end-to-end acceptance tests (tests/cli/9xx-*.sh), sourced
# after tests/cli/lib/lib.sh and tests/cli/lib/run-lib.sh (start_sim, q). Golden sets
# come from `dipmap gen needle`, the haystack is the shipped NQ one.

# e2e_gen N SEED: golden.jsonl with N needle questions
e2e_gen() {
    "$DIPMAP" gen needle --n "$1" --seed "$2" --out golden.jsonl >/dev/null || fail "dipmap gen needle failed"
}

# e2e_run RUN URL MODEL ARGS...: dipmap run on golden.jsonl + the NQ haystack into t.db;
# stdout/stderr in run-RUN.out/.err; must exit 0 and say "complete".
e2e_run() {
    local run=$1 url=$2 model=$3
    shift 3
    "$DIPMAP" run --endpoint "$url" --model "$model" --dataset golden.jsonl \
        --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --progress none --db t.db --run "$run" "$@" \
        >"run-$run.out" 2>"run-$run.err" || { cat "run-$run.err" >&2; fail "dipmap run $run failed"; }
    assert_contains "run-$run.out" "run $run: complete"
}

# e2e_check ARGS...: tests/cli/lib/e2e_check.py (see its docstring)
e2e_check() {
    python3 "$TESTS/cli/lib/e2e_check.py" "$@"
}
