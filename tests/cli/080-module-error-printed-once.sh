# A module reports its failure through strbuf *err and prints nothing; the command prints it
# once (issue 46 item 2). report_make_dirs() used to print "error: ... is not a folder" itself;
# now report and plot print the message they got back, exactly once, with the usage exit code.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/e2e-lib.sh"
e2e_gen 2 7
start_sim s --dataset golden.jsonl --model m:seed=1
e2e_run r "$SIM_URL" m --lengths 1k --depths 0,100
: >a-file
expect_code 2 "$DIPMAP" report r --db t.db --out a-file --format json --no-plots
assert_contains err "error: a-file is not a folder"
[ "$(grep -c "is not a folder" err)" = 1 ] || fail "the message is not printed once: $(cat err)"
expect_code 2 "$DIPMAP" plot r --db t.db --out a-file/sub
assert_contains err "error: cannot create a-file/sub: "
[ "$(grep -c "cannot create" err)" = 1 ] || fail "the message is not printed once: $(cat err)"
