# Every example runs (issue 44 item 4): every ```sh block of README.md and docs/ runs as written
# (README.md here, docs/ in 073-075 and 078, split so each test runs in its time limit; the "rest"
# group takes every page the others do not name, so a new page is never left out) in a scratch
# folder per page (tests/cli/lib/docs_examples.py), against serve-sim where a
# "docs-test: sim" marker asks for it, with the exit code and the text its markers name; a block
# is left out only by a "docs-test: skip: REASON" marker that says why (a GPU server, a paid API,
# a system install). README's `dipmap gate` example lacked --haystack and exited 2 (issue 43
# item 9); the harness catches that: the same block without --haystack fails here, naming the
# page and line, as does a skip marker without a reason.
# sanitizers: skip: replays README's documented commands; their features' own tests (800 run, 611 gate, ...) run their code
. "$TESTS/cli/lib/lib.sh"
mkdir all
python3 "$TESTS/cli/lib/docs_examples.py" "$REPO" "$DIPMAP" all --group readme >run.out 2>run.err ||
    fail "an example of README.md does not run as written: $(cat run.err)"
grep -q '^run README.md:' run.out || fail "no README block ran"
[ "$(grep -c '^run README.md:' run.out)" -ge 4 ] || fail "too few README blocks ran: $(cat run.out)"
# the harness fails a block that fails: README's gate block without --haystack (exit 2)
mkdir -p neg/docs
awk '/docs-test: sim --model my-model --dataset needle-[0-9]+\.jsonl/ { on = 1 } on { print } on && /^```$/ && ++n == 2 { exit }' \
    "$REPO/README.md" | sed 's/ --haystack nq-haystack//' >neg/gate.md
grep -q 'dipmap gate' neg/gate.md || fail "README's gate block not found"
{ printf '```sh\n./dipmap gen needle --n 160 --out needle-160.jsonl\n```\n\n'; cat neg/gate.md; } >neg/docs/gate.md
printf '<!-- docs-test: skip -->\n```sh\ntrue\n```\n' >neg/docs/skip.md
mkdir negrun
for d in datasets prompts tests examples; do ln -s "$REPO/$d" "neg/$d"; done
expect_code 1 python3 "$TESTS/cli/lib/docs_examples.py" "$PWD/neg" "$DIPMAP" negrun docs/gate.md docs/skip.md
assert_contains err "FAIL docs/gate.md:"
assert_contains err "exit 2, the page says 0"
assert_contains err "FAIL docs/skip.md:2: a skip marker must say why"
