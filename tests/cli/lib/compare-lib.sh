# Helpers for the `dipmap compare` CLI tests (tests/cli/6xx-*.sh), sourced
# after lib.sh. Stores are made by the real runner against serve-sim on
# 127.0.0.1 (port 0, sim-lib.sh's start_sim); the simulator is stopped when the test exits.
. "$TESTS/cli/lib/sim-lib.sh"

# cmp_gen NAME N SEED: a kv golden set NAME.jsonl (N questions) and haystack NAME-hay.jsonl
cmp_gen() {
    "$DIPMAP" gen kv --n "$2" --seed "$3" --out "$1.jsonl" --haystack-out "$1-hay.jsonl" \
        --haystack-size 400 >/dev/null || fail "dipmap gen kv failed"
}

# cmp_sim GOLDEN: serve-sim with two models: "base" (shallow dip) and "deep" (deep dip);
# sets CMP_URL
cmp_sim() {
    start_sim sim --dataset "$1" --model base:edge=0.95,dip=0.05 --model deep:edge=0.95,dip=0.6
    CMP_URL=$SIM_URL
}

# cmp_run RUN MODEL GOLDEN LENGTHS DEPTHS [ARGS...]: one run into t.db (must exit 0); ARGS go
# to `dipmap run` (e.g. --tag nightly)
cmp_run() {
    "$DIPMAP" run --endpoint "$CMP_URL" --model "$2" --dataset "$3.jsonl" --haystack "$3-hay.jsonl" \
        --template "$REPO/prompts/kv.txt" --scorer kv --progress none --lengths "$4" \
        --depths "$5" --db t.db --run "$1" "${@:6}" >"run-$1.out" 2>"run-$1.err" ||
        { cat "run-$1.err" >&2; fail "dipmap run $1 failed"; }
}
