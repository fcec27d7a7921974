# Nightly alerting without scripting run names: `compare --tag T --latest` pairs the newest run
# tagged T with the previous complete one (a failed night in between is skipped) or with a pinned
# `--against RUN`, and exits 1 on a regression, 0 without; nothing to compare yet is 4, a tag
# without runs or a bad combination of flags 2.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
t=1764000000
night() { # night NAME DIP
    t=$((t + 86400))
    make_run t.db --run "$1" --model prod --tag nightly,gpu --time $t --dip "$2" --questions 40
}
night n1 0.1
night n2 0.1
night n3 0.6
expect_code 1 "$DIPMAP" compare --tag nightly --latest --db t.db
assert_contains err "compare: newest run tagged 'nightly' is 'n3'; baseline 'n2' (previous complete run)"
assert_contains out "FAIL"
expect_code 1 "$DIPMAP" compare --tag nightly --latest --against previous --db t.db --json v.json
[ "$(python3 -c 'import json; print(json.load(open("v.json"))["verdict"])')" = FAIL ] || fail "json verdict"
night n4 0.6
expect_code 0 "$DIPMAP" compare --tag nightly --latest --db t.db --pass-rule no-regression
assert_contains err "is 'n4'; baseline 'n3'"
# a night that did not complete is never the baseline
sqlite3 t.db "update runs set status = 'failed' where name = 'n4'"
night n5 0.6
expect_code 0 "$DIPMAP" compare --tag nightly --latest --db t.db --pass-rule no-regression
assert_contains err "is 'n5'; baseline 'n3' (previous complete run)"
# a pinned baseline
expect_code 1 "$DIPMAP" compare --tag nightly --latest --against n1 --db t.db --out cmp
assert_contains err "is 'n5'; baseline 'n1' (--against)"
[ -s cmp/compare.html ] || fail "--out not written with --latest"
# the first night: nothing to compare with yet
make_run t.db --run solo --model prod --tag first --time $((t + 5))
expect_code 4 "$DIPMAP" compare --tag first --latest --db t.db
assert_contains err "'solo' is the only run tagged 'first' of its series (same inputs, lengths, depths and axes) with no complete run before it"
expect_code 2 "$DIPMAP" compare --tag nosuch --latest --db t.db
assert_contains err "no run in t.db is tagged 'nosuch'"
expect_code 2 "$DIPMAP" compare --latest --db t.db
assert_contains err "--tag, --latest and --against go together"
expect_code 2 "$DIPMAP" compare --tag nightly --db t.db
expect_code 2 "$DIPMAP" compare n1 n2 --tag nightly --latest --db t.db
assert_contains err "compare --latest picks the runs itself; drop 'n1'"
expect_code 2 "$DIPMAP" compare --tag nightly --latest --against n5 --db t.db
assert_contains err "--against n5 is the newest run tagged 'nightly' itself"
expect_code 2 "$DIPMAP" compare --tag nightly --latest --against nope --db t.db
assert_contains err "no run named 'nope'"
exit 0
