# rescore and the client decide "starved or empty" for a reply with no answer by one rule
# (reasoning_starved): an older store's answer that was only an empty <think></think> block,
# with reasoning tokens spent at finish_reason length, is starved after rescore as the client
# classifies such a reply, not empty (rescore's own copy looked at the reasoning text alone).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=1,dip=0
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r
sqlite3 t.db "update trials set answer = '<think></think>', reasoning = NULL, finish_reason = 'length',
              completion_tokens = 16, reasoning_tokens = 16, outcome = 'wrong'
              where question_id = 'kv-0001' and depth_bp = 0;
              update trials set answer = '<think></think>', reasoning = NULL, finish_reason = 'stop',
              completion_tokens = 3, reasoning_tokens = 0, outcome = 'wrong'
              where question_id = 'kv-0001' and depth_bp = 10000"
expect_code 0 "$DIPMAP" rescore r --scorer kv --db t.db
o() { q t.db "select group_concat(outcome) from trials where question_id = 'kv-0001' and depth_bp = $1"; }
[ "$(o 0)" = starved ] || fail "reasoning tokens spent, no answer: $(o 0), expected starved"
[ "$(o 10000)" = empty ] || fail "nothing spent on reasoning, no answer: $(o 10000), expected empty"
echo ok
