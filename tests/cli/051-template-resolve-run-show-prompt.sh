# --template is resolved by one rule (prompt_template_resolve) in run and show-prompt: from a
# folder without prompts/, NAME and NAME.txt find the shipped template, a file of that name in
# the current folder wins, and a missing one is refused the same way by both commands.
source "$TESTS/cli/lib/lib.sh"
set_="$REPO/datasets/needle.jsonl"; hay="$REPO/datasets/nq-haystack.jsonl.gz"
[ ! -e prompts ] || fail "the scratch folder has a prompts/ folder"
show() { "$DIPMAP" show-prompt --dataset "$set_" --haystack "$hay" --question needle-0003 \
    --length 1k --depth 0 --seed 1 --template "$@"; }
dry() { "$DIPMAP" run --dry-run --dataset "$set_" --haystack "$hay" --lengths 1k --depths 0 \
    --template "$@"; }
for t in needle needle.txt; do
    expect_code 0 show "$t"
    cp out "show-$t"
    expect_code 0 dry "$t"
done
cmp -s show-needle show-needle.txt || fail "show-prompt: 'needle' and 'needle.txt' differ"
# a template file in the current folder, named without a slash, is that file in both commands
sed 's/^\[system\]$/[system]\nLOCAL-TEMPLATE-MARKER/' "$REPO/prompts/needle.txt" >needle.txt
grep -q LOCAL-TEMPLATE-MARKER needle.txt || fail "could not make the local template"
expect_code 0 show needle.txt
assert_contains out LOCAL-TEMPLATE-MARKER
expect_code 0 dry needle.txt
cp needle.txt mine
expect_code 0 show mine
assert_contains out LOCAL-TEMPLATE-MARKER
expect_code 0 dry mine
# not found: exit 2 from both, naming the template
expect_code 2 show no-such-template
assert_contains err "template 'no-such-template' not found"
expect_code 2 dry no-such-template
assert_contains err "template 'no-such-template' not found"
