# Small things a new user met (issue 30's nits): no double blank line after the usage of any
# command's help; "1 hard negative" in the singular; the cache-schedule cost line does not say
# "about $X instead of $X" when no cached price was given; a model the server does not serve is
# named once, not "model 'X' is not served: model "X" is not served"; `gen foo` names foo.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/data/run/lib.sh"
for c in plan run serve-sim report compare show-prompt gen; do
    "$DIPMAP" help "$c" >h.txt 2>&1
    if awk 'prev == "" && $0 == "" && NR > 1 { bad = 1 } { prev = $0 } END { exit !bad }' h.txt; then
        fail "help $c has two blank lines in a row"
    fi
done
expect_code 2 "$DIPMAP" gen foo
assert_contains err "error: gen: unknown kind 'foo': expected 'needle', 'assoc', 'kv' or 'hops'"
# one hard negative
cat >one.jsonl <<'J'
{"id": "q1", "question": "What is the code?", "answers": ["AZ-7"], "gold": [{"id": "g", "text": "The code is AZ-7."}], "distractors": [{"id": "d1", "text": "The code is not known here."}]}
J
expect_code 0 "$DIPMAP" show-prompt --dataset one.jsonl --haystack "$REPO/datasets/nq-haystack.jsonl.gz" \
    --template needle --length 512
assert_contains out "; 1 hard negative, "
make_kv 3
start_sim sim --dataset golden.jsonl
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --model nope --lengths 1k --depths 0 --db t.db --run m
[ "$(grep -o 'nope' err | wc -l)" -le 2 ] || fail "the model is named more than once: $(cat err)"
assert_not_contains err "is not served: model"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50 --db t.db --run c --dry-run \
    --schedule cache --price-in 3 --price-out 15
if grep -q 'about \$\([0-9.]*\) instead of \$\1 ' out; then fail "$(grep 'instead of' out)"; fi
