# docs/schemas.md's DuckDB export example runs as written (docs/schemas.md, after its "export-example:
# duckdb" marker) on a real CSV export and gives the per-cell accuracies the store holds.
# Skipped where neither the duckdb CLI nor the Python module is installed.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/export-lib.bash"
readme_snippet duckdb >ex.sql
[ -s ex.sql ] || fail "docs/schemas.md lost its DuckDB export example"
how=""
if command -v duckdb >/dev/null; then
    how=cli
else
    for p in python3 /usr/bin/python3; do
        if command -v "$p" >/dev/null && "$p" -c 'import duckdb' 2>/dev/null; then how=$p; break; fi
    done
fi
[ -n "$how" ] || require_or_skip DIPMAP_REQUIRE_DUCKDB "neither the duckdb CLI nor the duckdb Python module is installed"
export_fixture
if [ "$how" = cli ]; then
    duckdb -csv -noheader <ex.sql >duck.out 2>duck.err || fail "duckdb example failed: $(cat duck.err)"
else
    "$how" -c 'import duckdb; [print(",".join(map(str, r))) for r in duckdb.sql(open("ex.sql").read()).fetchall()]' \
        >duck.out 2>duck.err || fail "duckdb example failed: $(cat duck.err)"
fi
awk -F, '{ printf "%s %s %.3f\n", $2, $3 + 0, $4 }' duck.out >got
awk '{ printf "%s %s %.3f\n", $1, $2 + 0, $3 }' want >exp
diff -u exp got >&2 || fail "duckdb accuracies differ from the store"
exit 0
