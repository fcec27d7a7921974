# Small things a new user met (issue 30's nits): no double blank line after the usage of any
# command's help; "1 hard negative" in the singular; the cache-schedule cost line does not say
# "about $X instead of $X" when no cached price was given; a model the server does not serve is
# named once, not "model 'X' is not served: model "X" is not served"; `gen foo` names foo;
# show-prompt's sha256 line is the prompt_sha256 run stores for that trial (it read as the
# tokenizer's); a short option letter means one thing in every command (-n was a number of
# questions in gen, a limit in import and --dry-run in run; -q a question id in show-prompt
# and a number of questions in plan).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
for c in plan run serve-sim report compare show-prompt gen; do
    "$DIPMAP" help "$c" >h.txt 2>&1
    if awk 'prev == "" && $0 == "" && NR > 1 { bad = 1 } { prev = $0 } END { exit !bad }' h.txt; then
        fail "help $c has two blank lines in a row"
    fi
done
expect_code 2 "$DIPMAP" gen foo
assert_contains err "error: gen: unknown kind 'foo': expected 'needle', 'assoc', 'kv', 'hops' or 'ordinal'"
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
# the dry run's power hint names the command whose option it gives (run has no --detect), and
# that command runs as written
assert_contains out "; dipmap plan --detect 10pp gives the questions needed"
expect_code 0 "$DIPMAP" plan --dataset golden.jsonl --lengths 1k --depths 0,50 --detect 10pp
assert_contains out "for a drop of 10.0 pp at 80% power"
# show-prompt prints the prompt_sha256 run stored for the same trial, on its own line
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 50 --db t.db --run sha
qid=$(q t.db "select question_id from trials t join runs r on r.id = t.run_id where r.name = 'sha' order by question_id limit 1")
stored=$(q t.db "select prompt_sha256 from trials t join runs r on r.id = t.run_id where r.name = 'sha' and question_id = '$qid'")
[ -n "$stored" ] || fail "no stored prompt_sha256"
expect_code 0 "$DIPMAP" show-prompt --dataset golden.jsonl --haystack hay.jsonl --template "$REPO/prompts/kv.txt" \
    --length 1k --depth 50 --question "$qid"
assert_contains out "# prompt_sha256 $stored "
assert_not_contains out "; request sha256"
# one meaning per short option letter across every command's option table (help CMD lists them)
for c in $("$DIPMAP" help | awk '/^commands:/ { on = 1; next } on && /^   [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
    "$DIPMAP" help "$c" 2>&1 | grep -oE '^ +-[a-zA-Z], --[a-z-]+' | sed "s/^ *//; s/,//; s/^/$c /"
done >shorts.txt
[ "$(wc -l <shorts.txt)" -ge 20 ] || fail "read only $(wc -l <shorts.txt) short options from help"
# a plural is the same option (--lengths of run, --length of show-prompt)
awk '{ sub(/s$/, "", $3); if (($2 in long) && long[$2] != $3) { print "-" $2 ": " seen[$2] " and " $1 " " $3; bad = 1 }
       long[$2] = $3; seen[$2] = $1 " " $3 } END { exit bad }' shorts.txt >clash.txt ||
    fail "a short option means two things: $(cat clash.txt)"
# a chunk without a title (the needles) renders without an empty "(Title: )" under the default
# template, through its [document_untitled] section, and the prompt is still exactly its length
expect_code 0 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --length 1k --depth 50
assert_contains out "# length: target 1024, realized 1024 "
assert_not_contains out "(Title: )"
grep -qE '^Document \[[0-9]+\] The vault code of ' out || fail "no untitled needle document: $(grep '^Document' out | head -3)"
grep -qE '^Document \[[0-9]+\] \(Title: [^)]' out || fail "titled chunks lost their title"
# a template without that section renders them as before (the paper's litm-qa keeps its format)
expect_code 0 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --length 1k --depth 50 --template litm-qa
assert_contains out "(Title: ) The vault code of "
# [document_untitled] takes no {title} and needs {text}
printf '[user]\n{documents}\nQ: {question}\n[document]\n{title}: {text}\n[document_untitled]\n{title} {text}\n' >t1.txt
expect_code 2 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" --template "$PWD/t1.txt" --length 512
assert_contains err "t1.txt:7: [document_untitled]: unknown placeholder {title}"
printf '[user]\n{documents}\nQ: {question}\n[document]\n{title}: {text}\n[document_untitled]\n- {id}\n' >t2.txt
expect_code 2 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" --template "$PWD/t2.txt" --length 512
assert_contains err "t2.txt:6: [document_untitled] must contain {text} exactly once"
