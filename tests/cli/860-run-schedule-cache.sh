# run --schedule cache: per group (question, length, repeat) the deepest gold goes first and
# the group's other depths only after its answer, deepest first; on serve-sim with a prefix
# cache the server computes fewer prompt tokens than with --schedule shuffle (each schedule
# on a fresh server whose cache holds a few prompts), while every trial's outcome, answer and prompt are identical; with
# --slots the server's /props makes the run pin each group to one llama.cpp slot (id_slot);
# the default schedule is cache when the server says it caches prefixes, plan otherwise.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 6
for s in cache shuffle; do
    # a cache of 24k tokens: what is still cached depends on the order (72 prompts, 110k tokens)
    start_sim "sim-$s" --dataset golden.jsonl --prefix-cache 24k
    url[${#url[@]}]=$SIM_URL
done
SIM_URL=${url[0]} run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:20 \
    --db t.db --run rc --schedule cache -c 4
assert_contains out "schedule: cache; prompt tokens sent"
cp out cache.out
SIM_URL=${url[1]} run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:20 \
    --db t.db --run rs --schedule shuffle -c 4
assert_contains out "schedule: shuffle"

# identical outcomes, answers and prompts, trial by trial
diff <(q t.db "select question_id, length, depth_bp, outcome, answer, prompt_sha256 from trials
               where run_id = (select id from runs where name = 'rc') order by 1, 2, 3") \
     <(q t.db "select question_id, length, depth_bp, outcome, answer, prompt_sha256 from trials
               where run_id = (select id from runs where name = 'rs') order by 1, 2, 3") >/dev/null ||
    fail "outcomes differ between the cache and shuffle schedules"
[ "$(q t.db "select count(*) from trials")" = 144 ] || fail "expected 2 x 72 trials"

# the cache schedule: the server computed fewer prompt tokens (reported cached_tokens)
computed() { q t.db "select sum(usage_prompt_tokens - cached_tokens) from trials t join runs r on r.id = t.run_id where r.name = '$1'"; }
c=$(computed rc)
s=$(computed rs)
total=$(q t.db "select sum(usage_prompt_tokens) from trials t join runs r on r.id = t.run_id where r.name = 'rc'")
python3 -c "import sys; c, s, t = map(int, sys.argv[1:]); sys.exit(0 if c < 0.9 * s and c < 0.72 * t else 1)" \
    "$c" "$s" "$total" || fail "cache schedule computed $c prompt tokens, shuffle $s, of $total sent"
assert_contains cache.out "from the server's cache"

# order: in every group the deepest trial was sent first, and the others after its answer
[ "$(q t.db "select count(*) from trials f join trials l on l.run_id = f.run_id
        and l.question_id = f.question_id and l.length = f.length and l.repeat = f.repeat
        and l.depth_bp = 10000 and f.depth_bp < 10000
        where f.run_id = (select id from runs where name = 'rc') and f.sent_at < l.finished_at")" = 0 ] ||
    fail "a shallower trial was sent before its group's deepest one was answered"
[ "$(q t.db "select count(*) from trials where sent_at is null")" = 0 ] || fail "sent_at missing"
# shuffled: some group sends a shallower depth first
[ "$(q t.db "select count(*) from trials f join trials l on l.run_id = f.run_id
        and l.question_id = f.question_id and l.length = f.length and l.repeat = f.repeat
        and l.depth_bp = 10000 and f.depth_bp < 10000
        where f.run_id = (select id from runs where name = 'rs') and f.sent_at < l.sent_at")" -gt 0 ] ||
    fail "shuffle sent every group deepest first"
assert_contains cache.out "send time by depth (mean s after the start): 0% "

# slots: each group pinned to one slot; default schedule cache (the server caches prefixes)
start_sim slots --dataset golden.jsonl --prefix-cache 1m --slots 2
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 \
    --db t.db --run rslot -c 4
assert_contains err "schedule: cache (server llama.cpp, caches prompt prefixes), groups pinned to llama.cpp slots"
python3 - slots.log <<'EOF' || fail "id_slot pinning"
import json, sys
groups = {}
for line in open(sys.argv[1]):
    l = json.loads(line)
    if l["route"] != "/v1/chat/completions":
        continue
    slot = l.get("extra", {}).get("id_slot")
    assert slot in (0, 1), l
    assert l["slot"] == slot, l                    # the server used the slot asked for
    groups.setdefault(l["question_id"], set()).add(slot)
assert len(groups) == 6 and all(len(s) == 1 for s in groups.values()), groups
assert {next(iter(s)) for s in groups.values()} == {0, 1}, groups  # both slots used
EOF
# no prefix cache on the server: plan order, no hints
start_sim plain --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 \
    --db t.db --run rplain
assert_contains err "schedule: plan (server llama.cpp, no prefix cache)"
assert_not_contains plain.log "id_slot"
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --schedule fast --db t.db
assert_contains err "--schedule must be cache, shuffle or plan, not 'fast'"
