# merge refuses two disjoint shards of one run whose dipmap binaries build other bytes for the
# same trial, though they share no trial key to compare (522 needs a shared key): every part
# records the run's request probe, the prompt_sha256 it built for the first trial of the whole
# matrix (kv-0001|1024|0|0|layout=chat here), and merge compares them. Shard 1/2 and 2/2 are
# run by this binary with the inputs of tests/data/old-store; s2-old.db stands in for shard
# 2/2 run by the older binary that wrote tests/data/old-store: a copy of s2.db whose
# runs.request_probe is rewritten with sqlite3 to the prompt hash that binary stored for that
# very key (its chat-layout prompts were cut elsewhere: 1045 tokens for 1k). Merged into a new
# store or into the store holding shard 1, merge names the run, both files, the probe's trial
# key and both hashes and exits 2 with nothing written (before: merged silently, exit 0). The
# shards of one binary (equal probes) still merge into the complete run, which keeps the probe.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
TK=$REPO/tests/data/tokenizer/qwen3/tokenizer.json.gz
cp "$REPO"/tests/data/old-store/{old.db,golden.jsonl,hay.jsonl} .
start_sim sim --dataset golden.jsonl --tokenizer "$TK" --chat-template chatml
ARGS=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
    --template "$REPO/prompts/kv.txt" --scorer kv --progress none --tokenizer "$TK" --lengths 1k
    --depths 0,100 --layout chat --run r)
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --shard 1/2 --db s1.db
expect_code 0 "$DIPMAP" run "${ARGS[@]}" --shard 2/2 --db s2.db
key='kv-0001|1024|0|0|layout=chat'
new=$(q s1.db "select request_probe from runs where request_probe_key = '$key'")
[ ${#new} = 64 ] || fail "s1.db: no request probe of $key: $(q s1.db "select request_probe_key, request_probe from runs")"
[ "$(q s2.db "select request_probe_key || ' ' || request_probe from runs")" = "$key $new" ] ||
    fail "s2.db records another probe than s1.db"
# the shards are disjoint: no shared key for the prompt comparison of 522
q s1.db "select question_id from trials" | sort -u >k1
q s2.db "select question_id from trials" | sort -u >k2
[ -s k1 ] && [ -s k2 ] && [ -z "$(comm -12 k1 k2)" ] || fail "the shards share a question"
old=$(q old.db "select t.prompt_sha256 from trials t join runs r on r.id = t.run_id
    where r.name = 'online' and t.question_id || '|' || t.length || '|' || t.depth_bp || '|' ||
    t.repeat || '|' || t.axes = '$key'")
[ ${#old} = 64 ] && [ "$old" != "$new" ] || fail "the older binary's prompt of $key: '$old' (this binary: $new)"
cp s2.db s2-old.db
q s2-old.db "update runs set request_probe = '$old'"
refused() { # OUT: the file merge names for shard 1
    assert_contains err "error: merge: $1 and s2-old.db hold parts of run 'r' recorded by dipmap binaries that build other bytes for the same trial: the run's request probe, trial $key, is prompt ${new:0:12}... in $1 and ${old:0:12}... in s2-old.db"
    assert_contains err "refusing to merge parts that sent other bytes"
}
expect_code 2 "$DIPMAP" merge all.db s1.db s2-old.db
refused s1.db
[ "$(q all.db "select count(*) from runs")" = 0 ] || fail "all.db: runs written by a refused merge"
cp s1.db into.db
expect_code 2 "$DIPMAP" merge into.db s2-old.db
refused into.db
[ "$(q into.db "select count(*) || ' ' || shard from trials, runs group by shard")" = "$(q s1.db "select count(*) || ' ' || shard from trials, runs group by shard")" ] ||
    fail "into.db: changed by a refused merge"
# a part without a probe (as an older binary records it) is not checked, but the parts that
# have one are still held to each other
cp s1.db s1-unknown.db
q s1-unknown.db "update runs set request_probe_key = null, request_probe = null"
expect_code 2 "$DIPMAP" merge all.db s1-unknown.db s2.db s2-old.db
assert_contains err "error: merge: s2.db and s2-old.db hold parts of run 'r' recorded by dipmap binaries that build other bytes for the same trial: the run's request probe, trial $key, is prompt ${new:0:12}... in s2.db and ${old:0:12}... in s2-old.db"
[ "$(q all.db "select count(*) from runs")" = 0 ] || fail "all.db: runs written by a refused merge"
# one binary's shards merge as before, and the merged run keeps their probe
expect_code 0 "$DIPMAP" merge all.db s1.db s2.db
assert_contains out "r: 6/6 trials, complete"
[ "$(q all.db "select request_probe_key || ' ' || request_probe from runs")" = "$key $new" ] ||
    fail "all.db: the merged run's probe is $(q all.db "select request_probe_key, request_probe from runs")"
echo ok
