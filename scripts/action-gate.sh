#!/usr/bin/env bash
# The gate step of action.yml: map the baseline (taking stored answers from the reuse cache
# when it exists) and the candidate with the same inputs, compare them (compare appends its
# Markdown verdict to $GITHUB_STEP_SUMMARY and annotates the worst regressions), and write
# the outputs verdict, exit-code and report-dir to $GITHUB_OUTPUT. Always exits 0 once the
# outputs are written, so the report is uploaded before the Verdict step fails the job.
# Inputs arrive as DIPMAP_* environment variables (action.yml); DIPMAP is the binary.
set -uo pipefail
dipmap=${DIPMAP:?DIPMAP: the dipmap binary}
out=${DIPMAP_OUT:-dipmap-compare}
cache=${DIPMAP_REUSE_CACHE:-}
cand_model=${DIPMAP_CAND_MODEL:-$DIPMAP_MODEL}
run_id=${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}
base_db=${cache:-dipmap-baseline.db}
cand_db=dipmap-candidate.db
mkdir -p "$out"
dataset=${DIPMAP_DATASET:-}
output() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }
finish() { # CODE: the outputs, then exit 0 (the Verdict step exits CODE)
    local v
    case $1 in 0) v=pass ;; 1) v=fail ;; 4) v=inconclusive ;; *) v=error ;; esac
    output verdict "$v"
    output exit-code "$1"
    output report-dir "$out"
    echo "dipmap gate: $v (exit code $1); report in $out"
    exit 0
}
if [ -z "$dataset" ]; then
    # the same seed gives the same file, so the baseline's requests stay byte-identical (reuse)
    dataset=needle-${DIPMAP_QUESTIONS:-100}.jsonl
    "$dipmap" gen needle --n "${DIPMAP_QUESTIONS:-100}" --seed 1 --out "$dataset" ||
        { echo "::error::dipmap gen needle --n ${DIPMAP_QUESTIONS:-100} failed"; finish 2; }
fi
common=(--dataset "$dataset" --haystack "$DIPMAP_HAYSTACK" --lengths "$DIPMAP_LENGTHS"
    --depths "$DIPMAP_DEPTHS" --tokenizer "$DIPMAP_TOKENIZER" --progress lines)
reuse=()
[ -n "$cache" ] && [ -f "$cache" ] && reuse=(--reuse "$cache")
echo "::group::map the baseline ($DIPMAP_BASE_URL)"
"$dipmap" run "${common[@]}" --endpoint "$DIPMAP_BASE_URL" --model "$DIPMAP_MODEL" --db "$base_db" \
    --run "base-$run_id" "${reuse[@]}"
rc=$?
echo "::endgroup::"
[ $rc = 0 ] || { echo "::error::mapping the baseline failed (exit code $rc)"; finish "$rc"; }
echo "::group::map the candidate ($DIPMAP_CAND_URL)"
rm -f "$cand_db"
"$dipmap" run "${common[@]}" --endpoint "$DIPMAP_CAND_URL" --model "$cand_model" --db "$cand_db" \
    --run "cand-$run_id"
rc=$?
echo "::endgroup::"
[ $rc = 0 ] || { echo "::error::mapping the candidate failed (exit code $rc)"; finish "$rc"; }
"$dipmap" compare "base-$run_id" "cand-$run_id" --baseline-db "$base_db" --db "$cand_db" \
    --tolerance "$DIPMAP_TOLERANCE" --pass-rule "${DIPMAP_PASS_RULE:-bound}" --json "$out/compare.json" --junit "$out/junit.xml" \
    --out "$out" >"$out/compare-stdout.md"
finish $?
