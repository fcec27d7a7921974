#!/usr/bin/env bash
# make validate: the simulation study of VALIDATION.md. One real serve-sim
# serves every replicate model (each its own seed) over HTTP; the real runner
# maps each replicate into a real SQLite store; report, compare and plan are
# the real commands; tests/validate/analyse.py computes the figures against
# the probabilities the server logged for every request.
#
# usage: tests/validate/validate.sh [DIPMAP]
# env:   VALIDATE_DIR (work directory; default a new /tmp/dipmap-validate.*; an existing one
#        is reused: stores that are complete are not run again), VALIDATE_RUNS (replicate runs
#        with 1 repeat, default 200 = 100 null pairs), VALIDATE_PAIRS3 (null pairs with 3
#        repeats, default 100), VALIDATE_POWER (pairs with a planted drop, default 100),
#        VALIDATE_JOBS (parallel pair jobs, default 2), VALIDATE_CONCURRENCY (per run, 32),
#        VALIDATE_GATE_REPS (pairs per condition of the HTTP gate study, default 25; 0 skips it)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dipmap=${1:-$repo/dipmap}
n_runs=${VALIDATE_RUNS:-200}
n_pairs3=${VALIDATE_PAIRS3:-100}
n_power=${VALIDATE_POWER:-100}
jobs=${VALIDATE_JOBS:-2}
conc=${VALIDATE_CONCURRENCY:-32}
work=${VALIDATE_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/dipmap-validate.XXXXXX")}
mkdir -p "$work"
cd "$work"
echo "validate: work directory $work"

# The study design (VALIDATION.md): 60 questions, 11 depths, one length of
# 3000 tokens. Baseline curve edge 0.9, dip 0.6 (at T = 3000 the planted
# mid-context drop is 0.6 * log2(3000/1500)/4 = 15 pp); the power candidate
# has dip 1.0: 10 pp lower in the middle of the context, equal at the edges.
base_model=edge=0.9,dip=0.6,shape=1.6
cand_model=edge=0.9,dip=1.0,shape=1.6
n_pairs=$((n_runs / 2))
export DM="$dipmap"
"$DM" gen kv --n 60 --seed 1 --out golden.jsonl --haystack-out hay.jsonl \
    --haystack-size 400 >/dev/null

models=()
for i in $(seq 1 "$n_runs"); do models+=(--model "b$i:$base_model,seed=$i"); done
for i in $(seq 1 $((2 * n_pairs3))); do models+=(--model "r$i:$base_model,seed=$((10000 + i))"); done
for i in $(seq 1 "$n_power"); do models+=(--model "c$i:$cand_model,seed=$((20000 + i))"); done
rm -f sim.out sim.err
"$DM" serve-sim --port 0 --dataset golden.jsonl --log sim.log "${models[@]}" >sim.out 2>sim.err &
sim_pid=$!
trap 'kill $sim_pid 2>/dev/null; wait $sim_pid 2>/dev/null' EXIT
for _ in $(seq 400); do [ -s sim.out ] && break; sleep 0.05; done
[ -s sim.out ] || { cat sim.err >&2; echo "validate: serve-sim did not start" >&2; exit 3; }
export VURL="http://127.0.0.1:$(head -n1 sim.out)" VCONC=$conc VTEMPLATE="$repo/prompts/kv.txt"
mkdir -p stores reports cmp logs

# one_run DB RUN SEED REPEATS: map one replicate (skipped when already complete)
one_run() {
    "$DM" run --endpoint "$VURL" --model "$2" --dataset golden.jsonl --haystack hay.jsonl \
        --template "$VTEMPLATE" --scorer kv --progress none --lengths 3000 --depths 0:100:10 \
        --repeats "$4" --seed "$3" --concurrency "$VCONC" --db "$1" --run "$2" \
        >"logs/run-$2.out" 2>"logs/run-$2.err" ||
        { echo "validate: run $2 failed" >&2; cat "logs/run-$2.err" >&2; return 1; }
}
# pair_job KIND K: the runs of pair K, then their reports and comparisons
pair_job() {
    local kind=$1 k=$2 db a b c
    if [ "$kind" = b ]; then
        db=stores/b$k.db a=b$((2 * k - 1)) b=b$((2 * k))
        one_run "$db" "$a" "$k" 1 && one_run "$db" "$b" "$k" 1 || return 1
        if [ "$k" -le "$VPOWER" ]; then
            c=c$k
            one_run "$db" "$c" "$k" 1 || return 1
        fi
    else
        db=stores/r$k.db a=r$((2 * k - 1)) b=r$((2 * k))
        one_run "$db" "$a" "$((1000 + k))" 3 && one_run "$db" "$b" "$((1000 + k))" 3 || return 1
    fi
    stats_job "$kind" "$k"
}
# stats_job KIND K: reports and comparisons of pair K (cheap; rerun on every validate)
stats_job() {
    local kind=$1 k=$2 db=stores/$1$2.db r
    for r in $(sqlite3 -batch -noheader "$db" "select name from runs order by name"); do
        "$DM" report "$r" --db "$db" --format json --no-plots --out "reports/$r" >/dev/null ||
            { echo "validate: report $r failed" >&2; return 1; }
    done
    if [ "$kind" = b ]; then
        cmp_one "$db" "b$((2 * k - 1))" "b$((2 * k))" "null1-$k"
        [ "$k" -le "$VPOWER" ] && cmp_one "$db" "b$((2 * k - 1))" "c$k" "power-$k"
    else
        cmp_one "$db" "r$((2 * k - 1))" "r$((2 * k))" "null3-$k"
    fi
    return 0
}
# cmp_one DB BASE CAND NAME: compare --json into cmp/NAME.json (exit 0, 1 and 4 are verdicts)
cmp_one() {
    local rc=0
    "$DM" compare "$2" "$3" --db "$1" --json "cmp/$4.json" >"logs/cmp-$4.md" 2>"logs/cmp-$4.err" ||
        rc=$?
    case $rc in 0 | 1 | 4) return 0 ;; *) echo "validate: compare $4 exit $rc" >&2; return 1 ;; esac
}
export -f one_run pair_job stats_job cmp_one
export VPOWER=$n_power

t0=$(date +%s)
{
    for k in $(seq 1 "$n_pairs"); do echo "b $k"; done
    for k in $(seq 1 "$n_pairs3"); do echo "r $k"; done
} | xargs -P "$jobs" -L 1 bash -c 'pair_job "$0" "$1"'
t1=$(date +%s)
echo "validate: runs, reports and comparisons took $((t1 - t0)) s"
kill $sim_pid 2>/dev/null || true
wait $sim_pid 2>/dev/null || true
trap - EXIT
rc=0
python3 "${VALIDATE_ANALYSE:-$repo/tests/validate/analyse.py}" "$work" "$DM" "$n_pairs" "$n_pairs3" "$n_power" ||
    rc=1
# the gate study (VALIDATION.md "The gate"): fixed and sequential verdicts, VALIDATE_GATE_REPS=0 skips
if [ "${VALIDATE_GATE_REPS:-25}" -gt 0 ]; then
    "$repo/tests/validate/gate_study.sh" "$DM" "$work"
    python3 "$repo/tests/validate/gate_analyse.py" "$work" "${VALIDATE_GATE_REPS:-25}" || rc=1
fi
exit $rc
