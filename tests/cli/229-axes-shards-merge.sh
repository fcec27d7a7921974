# Shards take whole (length, repeat, question, axes) groups: two shards of a --question-at run
# are disjoint, cover the matrix, keep each group's depths together, and `merge` joins them into
# one run whose trials (axes included) equal an unsharded run's keys.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl"
args=(--endpoint "$SIM_URL" --model dipmap-sim --dataset "$REPO/datasets/needle.jsonl"
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --template qa-both --lengths 1k
    --depths 0,50,100 --question-at end,start --progress none --run s)
expect_code 0 "$DIPMAP" run "${args[@]}" --db a.db --shard 1/2
expect_code 0 "$DIPMAP" run "${args[@]}" --db b.db --shard 2/2
expect_code 0 "$DIPMAP" run "${args[@]}" --db whole.db
na=$(q a.db "select count(*) from trials") nb=$(q b.db "select count(*) from trials")
[ "$na" = 108 ] && [ "$nb" = 108 ] || fail "shards hold $na and $nb trials, not 108 each"
# whole groups: every (question, axes) of a shard has its three depths
[ "$(q a.db "select count(*) from (select question_id, axes from trials group by 1, 2 having count(*) <> 3)")" = 0 ] ||
    fail "a group's depths were split across shards"
expect_code 0 "$DIPMAP" merge m.db a.db b.db
keys() { q "$1" "select question_id || '/' || length || '/' || depth_bp || '/' || repeat || '/' || axes from trials order by 1"; }
keys m.db >m.keys
keys whole.db >w.keys
[ "$(wc -l <m.keys)" = 216 ] || fail "merged run has $(wc -l <m.keys) trials"
cmp -s m.keys w.keys || fail "merged keys differ from the unsharded run's"
[ "$(q m.db "select count(distinct axes) from trials")" = 2 ] || fail "merge lost the axes"
