#!/usr/bin/env bash
# The gate study of VALIDATION.md ("The gate: fixed and sequential"), run by validate.sh after
# the calibration study. One serve-sim serves every replicate pair; each pair is mapped with
# the real runner to 100 questions (compare: the fixed design at 100), extended to 200 (the
# fixed design at 200), and `dipmap gate` decides on the same runs round by round (its runs
# are the same runs, so it sends nothing; its decisions and trial counts are those of the
# rounds it needed). Conditions: an unchanged model at ICC 0 and at ICC 0.3 (serve-sim icc=R),
# and a middle-only regression (serve-sim mid=0.10: the middle 10 pp lower, the edges the same,
# all depths 4.5 pp lower). tests/validate/gate_analyse.py computes the rates.
#
# usage: tests/validate/gate_study.sh DIPMAP WORKDIR
# env:   VALIDATE_GATE_REPS (pairs per condition, default 25), VALIDATE_JOBS (default 2),
#        VALIDATE_CONCURRENCY (default 32)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
export DM=$1
work=$2
reps=${VALIDATE_GATE_REPS:-25}
jobs=${VALIDATE_JOBS:-2}
mkdir -p "$work/gate"
cd "$work/gate"

# 200 questions, one length of 1000 tokens (flat=1: the whole dip at this length), 11 depths.
# Baseline: edges 99%, the middle band about 95%; the regression: mid=0.10 (the middle 85%).
base=edge=0.99,dip=0.05,shape=1.6,flat=1
"$DM" gen kv --n 200 --seed 2 --out golden.jsonl --haystack-out hay.jsonl \
    --haystack-size 400 >/dev/null
models=()
for i in $(seq 1 "$reps"); do
    models+=(--model "n0b$i:$base,seed=$((30000 + i))" --model "n0c$i:$base,seed=$((31000 + i))")
    models+=(--model "n3b$i:$base,icc=0.3,seed=$((32000 + i))")
    models+=(--model "n3c$i:$base,icc=0.3,seed=$((33000 + i))")
    models+=(--model "rgb$i:$base,seed=$((34000 + i))" --model "rgc$i:$base,mid=0.1,seed=$((35000 + i))")
done
rm -f sim.out sim.err
"$DM" serve-sim --port 0 --dataset golden.jsonl "${models[@]}" >sim.out 2>sim.err &
sim_pid=$!
trap 'kill $sim_pid 2>/dev/null; wait $sim_pid 2>/dev/null' EXIT
for _ in $(seq 400); do [ -s sim.out ] && break; sleep 0.05; done
[ -s sim.out ] || { cat sim.err >&2; echo "gate study: serve-sim did not start" >&2; exit 3; }
export GURL="http://127.0.0.1:$(head -n1 sim.out)" GCONC=${VALIDATE_CONCURRENCY:-32}
export GTEMPLATE="$repo/prompts/kv.txt"
mkdir -p stores out logs

# gate_pair KIND I: KIND n0 (unchanged, ICC 0), n3 (unchanged, ICC 0.3), rg (regression)
gate_pair() {
    local kind=$1 i=$2 g=$1$2 db=stores/$1$2.db rc n side
    local common=(--endpoint "$GURL" --dataset golden.jsonl --haystack hay.jsonl
        --template "$GTEMPLATE" --scorer kv --lengths 1000 --depths 0:100:10 --seed "$i")
    [ -s "out/$g-gate.json" ] && return 0
    for n in 100 200; do
        for side in b c; do
            "$DM" run "${common[@]}" --model "$kind$side$i" --questions "$n" --progress none \
                --concurrency "$GCONC" --db "$db" --run "$g-$([ $side = b ] && echo baseline || echo candidate)" \
                >"logs/$g-$side$n.out" 2>"logs/$g-$side$n.err" ||
                { echo "gate study: run $g $side $n failed" >&2; cat "logs/$g-$side$n.err" >&2; return 1; }
        done
        rc=0
        "$DM" compare "$g-baseline" "$g-candidate" --db "$db" --json "out/$g-fixed$n.json" \
            >"logs/$g-cmp$n.md" 2>"logs/$g-cmp$n.err" || rc=$?
        case $rc in 0 | 1 | 4) ;; *) echo "gate study: compare $g $n exit $rc" >&2; return 1 ;; esac
    done
    rc=0
    "$DM" gate "${common[@]}" --baseline-model "${kind}b$i" --model "${kind}c$i" --db "$db" \
        --name "$g" --round 20 --max-questions 200 --concurrency "$GCONC" \
        --json "out/$g-gate.json.tmp" >"logs/$g-gate.md" 2>"logs/$g-gate.err" || rc=$?
    case $rc in 0 | 1 | 4) mv "out/$g-gate.json.tmp" "out/$g-gate.json" ;;
    *) echo "gate study: gate $g exit $rc" >&2; cat "logs/$g-gate.err" >&2; return 1 ;; esac
}
export -f gate_pair

t0=$(date +%s)
for i in $(seq 1 "$reps"); do echo "n0 $i"; echo "n3 $i"; echo "rg $i"; done |
    xargs -P "$jobs" -L 1 bash -c 'gate_pair "$0" "$1"'
t1=$(date +%s)
echo "validate: the gate study's runs, comparisons and gates took $((t1 - t0)) s"

# the planner's prediction at 100 and 200 questions (ICC 0 and 0.3): compare's FAIL rate for the
# planted middle drop (10pp@25-75) and with no drop, at the baseline's measured mean accuracy
acc=$(sqlite3 -batch -noheader stores/n01.db "select round(avg(score), 4) from trials t join runs r
    on r.id = t.run_id where r.name = 'n01-baseline' and t.outcome in ('correct', 'wrong')")
for icc in 0 0.3; do
    for n in 100 200; do
        "$DM" plan --questions "$n" --lengths 1000 --depths 0:100:10 --accuracy "$acc" --icc "$icc" \
            --power 10pp@25-75 >"out/plan-icc$icc-$n.txt" 2>&1 || true
    done
done
