# Nightly alerting that keeps failing (issue 29): with --against previous a regression that
# persists is compared with the regressed night before it and passes; --against last-pass
# takes the newest earlier night whose own comparison passed, so every regressed night fails
# until the model recovers. --latest and the trend take only runs of the newest run's series
# (same inputs and trial matrix): a run of another matrix with the same tag is never the
# baseline and is left out of the trend.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
t=1764000000
# 200 questions: identical nights differ on no question, and the anytime-valid PASS bound
# needs 121 such questions per cell to clear the tolerance (120 are INCONCLUSIVE)
night() { # night NAME DIP: 200 questions, deterministic (identical nights give identical answers)
    t=$((t + 86400))
    make_run t.db --run "$1" --model prod --tag nightly --time $t --dip "$2" --questions 200
}
night n1 0.1
night n2 0.1
expect_code 0 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db
assert_contains err "is 'n2'; baseline 'n1' (last run whose comparison passed)"
night n3 0.6
expect_code 1 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db
assert_contains err "is 'n3'; baseline 'n2' (last run whose comparison passed)"
night n4 0.6
# the old rule: n4 against the regressed n3 passes (the regression is "forgotten") ...
expect_code 0 "$DIPMAP" compare --tag nightly --latest --db t.db
assert_contains err "is 'n4'; baseline 'n3' (previous complete run)"
# ... last-pass still compares with n2 and fails
expect_code 1 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db --json v.json
assert_contains err "is 'n4'; baseline 'n2' (last run whose comparison passed)"
python3 -c 'import json,sys; d=json.load(open("v.json")); sys.exit(d["verdict"] != "FAIL" or d["baseline"]["name"] != "n2")' ||
    fail "v.json: FAIL against n2"
# a run of another trial matrix (other lengths) with the same tag is not of the series
night o5 0.1
sqlite3 t.db "update runs set settings_json = '{\"depths\":\"0:100:25\",\"lengths\":\"4k\"}' where name = 'o5'"
night n6 0.6
expect_code 1 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db
assert_contains err "is 'n6'; baseline 'n2' (last run whose comparison passed)"
expect_code 0 "$DIPMAP" compare --tag nightly --latest --db t.db
assert_contains err "is 'n6'; baseline 'n4' (previous complete run)"
# the trend is one series: o5 is left out, and the plot says so
if has_tool gnuplot DIPMAP_REQUIRE_GNUPLOT; then
    expect_code 0 "$DIPMAP" plot --tag nightly --db t.db --out trend --format svg
    assert_contains err "1 run matching tag nightly is of another series"
    assert_contains trend/trend.svg "n6"
    assert_not_contains trend/trend.svg "o5"
fi
# the newest run alone in its series: nothing to compare with, exit 4 (and the CI files)
night o7 0.1
sqlite3 t.db "update runs set settings_json = '{\"depths\":\"0:100:25\",\"lengths\":\"2k\"}' where name = 'o7'"
expect_code 4 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db --junit j.xml
assert_contains err "'o7' is the only run tagged 'nightly' of its series"
[ "$(xmllint --xpath 'count(//testcase/error)' j.xml)" = 1 ] || fail "no JUnit error testcase"
# recovery: a good night passes against n2 and becomes the next baseline
sqlite3 t.db "pragma foreign_keys = on; delete from runs where name = 'o7'"
night n8 0.1
expect_code 0 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db
assert_contains err "is 'n8'; baseline 'n2' (last run whose comparison passed)"
night n9 0.6
expect_code 1 "$DIPMAP" compare --tag nightly --latest --against last-pass --db t.db
assert_contains err "is 'n9'; baseline 'n8' (last run whose comparison passed)"
exit 0
