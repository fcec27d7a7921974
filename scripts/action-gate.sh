#!/usr/bin/env bash
# The gate step of action.yml: `dipmap gate` maps the baseline and the candidate in rounds on the
# same prompts and stops as soon as the verdict is decided (exit 0 PASS, 1 FAIL, 4
# INCONCLUSIVE); it appends its Markdown to $GITHUB_STEP_SUMMARY and writes compare.md,
# compare.json and junit.xml into the out folder. The store is the reuse cache (kept between
# workflow runs by actions/cache): baseline requests byte-identical to an earlier run's take
# its stored answers, and only baseline runs stay in it (a candidate of the same model name
# must never answer for the baseline). Writes the outputs verdict, exit-code and report-dir to
# $GITHUB_OUTPUT and always exits 0 once they are written, so the report is uploaded before
# the Verdict step fails the job. Inputs arrive as DIPMAP_* environment variables
# (action.yml); DIPMAP is the binary.
set -uo pipefail
dipmap=${DIPMAP:?DIPMAP: the dipmap binary}
out=${DIPMAP_OUT:-dipmap-compare}
cache=${DIPMAP_REUSE_CACHE:-}
cand_model=${DIPMAP_CAND_MODEL:-$DIPMAP_MODEL}
name=${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}
db=${cache:-dipmap-gate.db}
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
reuse=()
[ -n "$cache" ] && [ -f "$cache" ] && reuse=(--reuse "$cache")
echo "::group::dipmap gate: $DIPMAP_MODEL at $DIPMAP_BASE_URL against $cand_model at $DIPMAP_CAND_URL"
"$dipmap" gate --endpoint "$DIPMAP_CAND_URL" --baseline-endpoint "$DIPMAP_BASE_URL" \
    --baseline-model "$DIPMAP_MODEL" --model "$cand_model" --dataset "$dataset" \
    --haystack "$DIPMAP_HAYSTACK" --lengths "$DIPMAP_LENGTHS" --depths "$DIPMAP_DEPTHS" \
    --tokenizer "$DIPMAP_TOKENIZER" --tolerance "$DIPMAP_TOLERANCE" --db "$db" --name "$name" \
    "${reuse[@]}" --out "$out" --progress lines
rc=$?
echo "::endgroup::"
# the cache keeps baseline answers only
"$dipmap" rm --yes "$name-candidate" --db "$db" >/dev/null 2>&1 || true
finish $rc
