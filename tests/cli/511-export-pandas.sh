# docs/schemas.md's pandas export example runs as written: the snippet (docs/schemas.md, after its
# "export-example: pandas" marker) reads a real export -- CSV, and JSON lines with the reader
# swapped -- and prints the per-cell accuracies the store holds. Skipped without pandas.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
. "$TESTS/cli/lib/export-lib.bash"
readme_snippet pandas >ex.py
[ -s ex.py ] || fail "docs/schemas.md lost its pandas export example"
py=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import pandas' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] ||
    require_or_skip DIPMAP_REQUIRE_PANDAS "python3 with pandas is not installed (apt-get install python3-pandas)"
export_fixture
"$py" ex.py >pandas.out 2>pandas.err || fail "pandas example failed: $(cat pandas.err)"
# the printed table: "r1 2048 ACC@0 ACC@0.5 ACC@1"
row=$(grep -E '^r1 +2048 ' pandas.out | tr -s ' ')
[ -n "$row" ] || fail "pandas example printed no row for r1 2048: $(cat pandas.out)"
norm() { for v in $1; do printf '%.3f ' "$v"; done; }
got=$(echo "$row" | cut -d' ' -f3-)
exp=$(awk '{ printf "%s ", $3 }' want)
[ "$(norm "$got")" = "$(norm "$exp")" ] || fail "pandas accuracies '$got', store '$exp'"
grep -q 'pd.read_csv("trials.csv")' ex.py || fail "the example no longer reads trials.csv"
sed 's/pd.read_csv("trials.csv")/pd.read_json("trials.jsonl", lines=True)/' ex.py >ex2.py
"$py" ex2.py >pandas2.out 2>&1 || fail "pandas jsonl variant failed: $(cat pandas2.out)"
diff -u pandas.out pandas2.out >&2 || fail "the csv and jsonl exports load differently"
exit 0
