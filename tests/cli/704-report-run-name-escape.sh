# A run name cannot steer the default output folder out of reports/: path
# separators and leading dots are replaced, so reports/<name>/ stays inside.
. "$TESTS/cli/lib.sh"
. "$TESTS/cli/7xx-lib.bash"
mkdir -p work/sub && cd work/sub
make_run t.db --run '../../escaped'
make_run t.db --run '/tmp/abs'
make_run t.db --run '..'
expect_code 0 "$DIPMAP" report '../../escaped' --db t.db --no-plots
[ -s 'reports/_._.._escaped/summary.md' ] || fail "not written to reports/_._.._escaped: $(cat out)"
expect_code 0 "$DIPMAP" report '/tmp/abs' --db t.db --no-plots
[ -s 'reports/_tmp_abs/summary.md' ] || fail "not written to reports/_tmp_abs"
expect_code 0 "$DIPMAP" report '..' --db t.db --no-plots
[ -s 'reports/_./summary.md' ] || fail "not written to reports/_."
# nothing was written outside ./reports (the scratch dir holds only work/)
outside=$(cd ../.. && find . -type f ! -path './work/sub/reports/*' ! -path './work/sub/t.db*' \
    ! -name out ! -name err)
[ -z "$outside" ] || fail "files written outside reports/: $outside"
[ -e /tmp/abs/summary.md ] && fail "wrote into /tmp/abs"
exit 0
