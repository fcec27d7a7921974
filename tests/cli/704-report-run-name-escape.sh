# A run name cannot steer the default output folder out of reports/: path
# separators and leading dots are replaced (plus a hash of the name, which then is not the
# folder name), so reports/<folder>/ stays inside.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
mkdir -p work/sub && cd work/sub
make_run t.db --run '../../escaped'
make_run t.db --run '/tmp/abs'
make_run t.db --run '..'
expect_code 0 "$DIPMAP" report '../../escaped' --db t.db --no-plots
[ -s 'reports/_._.._escaped-ea03bc47/summary.md' ] || fail "not written to reports/_._.._escaped-ea03bc47: $(cat out)"
expect_code 0 "$DIPMAP" report '/tmp/abs' --db t.db --no-plots
[ -s 'reports/_tmp_abs-13caa5c4/summary.md' ] || fail "not written to reports/_tmp_abs-13caa5c4"
expect_code 0 "$DIPMAP" report '..' --db t.db --no-plots
[ -s 'reports/_.-5ec1f7e7/summary.md' ] || fail "not written to reports/_.-5ec1f7e7"
# nothing was written outside ./reports (the scratch dir holds only work/)
outside=$(cd ../.. && find . -type f ! -path './work/sub/reports/*' ! -path './work/sub/t.db*' \
    ! -name out ! -name err)
[ -z "$outside" ] || fail "files written outside reports/: $outside"
[ -e /tmp/abs/summary.md ] && fail "wrote into /tmp/abs"
exit 0
