# Helpers for the `dipmap compare` CLI tests (tests/cli/6xx-*.sh), sourced
# after lib.sh. Stores are made by the real runner against serve-sim on
# 127.0.0.1 (port 0); the simulator is killed when the test exits.

CMP_SIM_PID=
trap '[ -n "$CMP_SIM_PID" ] && kill "$CMP_SIM_PID" 2>/dev/null; wait 2>/dev/null' EXIT

# cmp_gen NAME N SEED: a kv golden set NAME.jsonl (N questions) and haystack NAME-hay.jsonl
cmp_gen() {
    "$DIPMAP" gen kv --n "$2" --seed "$3" --out "$1.jsonl" --haystack-out "$1-hay.jsonl" \
        --haystack-size 400 >/dev/null || fail "dipmap gen kv failed"
}

# cmp_sim GOLDEN: serve-sim with two models: "base" (shallow dip) and "deep" (deep dip)
cmp_sim() {
    local i
    "$DIPMAP" serve-sim --port 0 --dataset "$1" --model base:edge=0.95,dip=0.05 \
        --model deep:edge=0.95,dip=0.6 >sim.out 2>sim.err &
    CMP_SIM_PID=$!
    for i in $(seq 200); do
        [ -s sim.out ] && break
        kill -0 "$CMP_SIM_PID" 2>/dev/null || { cat sim.err >&2; fail "serve-sim did not start"; }
        sleep 0.05
    done
    [ -s sim.out ] || fail "serve-sim printed no port"
    CMP_URL="http://127.0.0.1:$(head -n1 sim.out)"
}

# cmp_run RUN MODEL GOLDEN LENGTHS DEPTHS: one run into t.db (must exit 0)
cmp_run() {
    "$DIPMAP" run --endpoint "$CMP_URL" --model "$2" --dataset "$3.jsonl" --haystack "$3-hay.jsonl" \
        --template "$REPO/prompts/kv.txt" --scorer kv --progress none --lengths "$4" \
        --depths "$5" --db t.db --run "$1" >"run-$1.out" 2>"run-$1.err" ||
        { cat "run-$1.err" >&2; fail "dipmap run $1 failed"; }
}
