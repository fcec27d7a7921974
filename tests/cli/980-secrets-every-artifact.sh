# Secrets: a real run with a recognisable API key (from the environment only, checked by
# serve-sim --api-key-env) plus a credential header; then report, runs, compare, plot. The key
# must appear in no artifact: store (db, WAL, SHM), stdout, stderr, --verbose output
# (Authorization and the header redacted), reports directory, the resume hint, and the
# process arguments; the process disables core dumps. `--api-key VALUE` and a config-file key are refused without echoing it.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
KEY=sk-dipmap-h11-SECRET-5f1e2d3c4b5a6978
HDR=hdr-dipmap-h11-SECRET-0a9b8c7d
export SIMKEY=$KEY
start_sim sim --dataset golden.jsonl --api-key-env SIMKEY --latency-ms 60
run_args
export OPENAI_API_KEY=$KEY
# 1. the flag is refused, and so is the key in a config file; neither echoes it
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --api-key "$KEY" --db s.db
assert_contains err "--api-key is not accepted"
assert_not_contains err "$KEY"
echo "{\"api-key\": \"$KEY\"}" >cfg.json
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --config cfg.json --db s.db
assert_contains err "cfg.json: \"api-key\" cannot be set in a config file"
assert_not_contains err "$KEY"
# 2. a real run with --verbose and --store-prompts; look at its command line while it runs
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:25 --db s.db --run sec --verbose \
    --store-prompts -H "X-Api-Key: $HDR" --concurrency 2 >run.out 2>run.err &
pid=$!
for i in $(seq 200); do
    [ -r /proc/$pid/cmdline ] && tr '\0' ' ' </proc/$pid/cmdline >cmdline.txt && [ -s cmdline.txt ] && break
    sleep 0.02
done
# once the key is loaded the process makes no core file (and is not dumpable)
for i in $(seq 200); do
    grep -q '^Max core file size *0 *0 ' /proc/$pid/limits 2>/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.02
done
grep '^Max core file size' /proc/$pid/limits >limits.txt 2>/dev/null || true
wait $pid || { cat run.err >&2; fail "the run failed"; }
assert_contains run.out "run sec: complete"
[ -s cmdline.txt ] || fail "could not read the run's command line"
assert_not_contains cmdline.txt "$KEY"
grep -q '^Max core file size *0 *0 ' limits.txt || fail "core dumps not disabled: $(cat limits.txt)"
rm cmdline.txt # (it holds the -H value we passed ourselves)
# --verbose logged the requests with the credentials redacted
assert_contains run.err "Authorization: <redacted>"
assert_contains run.err "X-Api-Key: <redacted>"
# 3. a failing run prints a resume hint: no header value in it
closed_port
expect_code 3 "$DIPMAP" run "${RUN_ARGS[@]}" --endpoint "http://127.0.0.1:$CLOSED_PORT" --lengths 1k \
    --db s.db --run sec2 -H "X-Api-Key: $HDR"
cp err hint.err
# 4. everything that reads the store
expect_code 0 "$DIPMAP" report sec --db s.db --out reports/sec --format md,json,html
cp out report.out
cp err report.err
expect_code 0 "$DIPMAP" runs --db s.db --json
cp out runs.out
expect_code 0 "$DIPMAP" plot sec --db s.db --out plots
cp out plot.out
# 5. grep every artifact, the whole key and a distinctive part of it
ls s.db >/dev/null || fail "no store"
found=0
while IFS= read -r -d '' f; do
    for secret in "$KEY" "${KEY:14}" "$HDR"; do
        if grep -qaF -- "$secret" "$f"; then
            echo "secret '$secret' found in $f" >&2
            found=1
        fi
    done
done < <(find . -type f ! -name '*.sh' ! -name 'cfg.json' -print0)
[ $found = 0 ] || fail "a secret leaked into an artifact"
# the store holds the run, its prompts and its trials (so there was something to leak)
[ "$(n_trials sec "" s.db)" = 30 ] ||
    fail "unexpected trial count"
[ "$(q s.db "select count(*) from prompts")" -ge 1 ] || fail "--store-prompts stored nothing"
ls reports/sec/summary.md reports/sec/report.html reports/sec/summary.json >/dev/null ||
    fail "report files missing"
