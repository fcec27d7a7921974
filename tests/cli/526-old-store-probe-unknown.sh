# A store written before request probes (tests/data/old-store: schema 11, by an older dipmap)
# still merges and resumes, and an unknown probe is never taken for a checked one:
#  - merged read-only into a new store: exit 0, its three runs copied with no probe, the input
#    left at schema 11;
#  - its budget-stopped run 'partial' resumes (the store migrates to schema 12) and records this
#    binary's probe, because the older binary's stored prompt of the probe trial
#    (kv-0001|1024|0|0|layout=documents) is the one this binary builds: checked, not assumed;
#  - merged with its own older part, which records no probe, it merges as before and the merged
#    run records none (what the older part sent was not checked by a probe);
#  - `runs --json` (every recorded field; summary.json's run object) shows the recorded probe
#    as inputs.request_probe {trial, prompt_sha256} and an unknown one as null.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
cp "$REPO"/tests/data/old-store/{old.db,golden.jsonl,hay.jsonl} .
chmod u+w old.db
cp old.db orig.db
[ "$(q orig.db "pragma user_version")" = 11 ] || fail "tests/data/old-store is not schema 11"
expect_code 0 "$DIPMAP" merge copy.db orig.db
assert_contains out "online: 12/12 trials, complete"
[ "$(q copy.db "select group_concat(name || ':' || ifnull(request_probe, 'unknown'), ',') from runs")" = \
    "online:unknown,partial:unknown,batch:unknown" ] ||
    fail "copy.db: $(q copy.db "select name, request_probe from runs")"
[ "$(q orig.db "pragma user_version")" = 11 ] || fail "merge migrated its read-only input"
start_sim sim --dataset golden.jsonl --tokenizer "$TK" --chat-template chatml
ARGS=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
    --template "$REPO/prompts/kv.txt" --scorer kv --progress none --tokenizer "$TK" --lengths 1k
    --depths 0,100 --layout documents,chat --price-in 2 --price-out 4)
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --db old.db --run partial --max-cost 1
assert_contains err "resuming run 'partial'"
assert_contains out "run partial: complete"
[ "$(q old.db "pragma user_version")" = 12 ] || fail "old.db was not migrated to schema 12"
key='kv-0001|1024|0|0|layout=documents'
sent=$(q orig.db "select t.prompt_sha256 from trials t join runs r on r.id = t.run_id
    where r.name = 'partial' and t.question_id || '|' || t.length || '|' || t.depth_bp || '|' ||
    t.repeat || '|' || t.axes = '$key'")
[ ${#sent} = 64 ] || fail "orig.db: 'partial' holds no prompt of $key"
[ "$(q old.db "select request_probe_key || ' ' || request_probe from runs where name = 'partial'")" = "$key $sent" ] ||
    fail "old.db: partial's probe is $(q old.db "select request_probe_key, request_probe from runs where name = 'partial'"), not the checked $key $sent"
# the runs it did not resume keep an unknown probe
[ "$(q old.db "select count(*) from runs where request_probe is null")" = 2 ] ||
    fail "old.db: probes recorded for runs that were not resumed"
"$DIPMAP" runs --db old.db --json >runs.json || fail "runs --json failed"
python3 - runs.json "$key" "$sent" <<'PY' || fail "runs --json does not show the request probes"
import json, sys
runs = {r["name"]: r["inputs"]["request_probe"] for r in json.load(open(sys.argv[1]))}
want = {"online": None, "batch": None, "partial": {"trial": sys.argv[2], "prompt_sha256": sys.argv[3]}}
if runs != want:
    sys.exit(f"runs --json request_probe: {runs}, expected {want}")
PY
# the resumed run merged with its older part (no probe): as before, the merged probe unknown
expect_code 0 "$DIPMAP" merge both.db old.db orig.db
assert_contains out "partial: 12/12 trials"
[ "$(q both.db "select ifnull(request_probe, 'unknown') from runs where name = 'partial'")" = unknown ] ||
    fail "both.db: the merged run took a probe its older part never recorded"
echo ok
