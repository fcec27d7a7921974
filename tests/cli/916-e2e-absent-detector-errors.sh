# run --absent's inputs and its abstention detector. Bad input is exit 2 naming the option: a
# share outside (0, 1], a template that never tells the model what to say when the answer is
# missing (naming the template and the phrase), a pattern that does not compile, a detector
# option without --absent. The detector is the phrase and the patterns: with a phrase that
# serve-sim's abstention ("The answer is not in the documents.") lacks, every absent twin counts
# as a hallucination; an --abstain-regex matching it makes them abstentions again.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model m
args=(--endpoint "$SIM_URL" --model m --dataset "$REPO/datasets/needle.jsonl"
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k --depths 0,50,100 --progress none)
for bad in 0 1.5 x; do
    expect_code 2 "$DIPMAP" run "${args[@]}" --template qa-absent --absent "$bad" --db e.db
    assert_contains err "--absent: '$bad' is not a share in (0, 1]"
done
expect_code 2 "$DIPMAP" run "${args[@]}" --template qa --absent 0.5 --db e.db
assert_contains err "qa.txt never tells the model what to say when the answer is missing"
assert_contains err '"not in the documents"'
expect_code 2 "$DIPMAP" run "${args[@]}" --template qa-absent --absent 0.5 --abstain-regex '(' --db e.db
assert_contains err "--abstain-regex '(':"
expect_code 2 "$DIPMAP" run "${args[@]}" --template qa-absent --abstain-phrase nothing --db e.db
assert_contains err "--abstain-phrase and --abstain-regex need --absent P"
[ ! -e e.db ] || [ "$(q e.db 'select count(*) from trials')" = 0 ] || fail "a refused run stored trials"
# the detector: a phrase the template says but the model's abstention lacks, then a pattern
phrase=(--template qa-absent --absent 1 --abstain-phrase "do not contain the answer")
expect_code 0 "$DIPMAP" run "${args[@]}" "${phrase[@]}" --db p.db --run p
[ "$(q p.db "select count(*) from trials where axes = 'absent=yes' and outcome = 'wrong'")" = 108 ] ||
    fail "without a matching phrase every absent twin should be a hallucination"
expect_code 0 "$DIPMAP" run "${args[@]}" "${phrase[@]}" --abstain-regex '(?i)NOT IN THE documents' \
    --abstain-regex 'never matched' --db r.db --run r
[ "$(q r.db "select count(*) from trials where axes = 'absent=yes' and outcome = 'correct'")" = 108 ] ||
    fail "--abstain-regex did not make the abstentions correct"
[ "$(q r.db "select count(*) from trials where axes = ''")" = 108 ] || fail "the present trials"
