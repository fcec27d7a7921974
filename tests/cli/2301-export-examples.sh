# The README's export examples run as written: the pandas and the DuckDB snippet (taken from
# README.md, between their "export-example" markers) read a real export and print the same
# per-cell accuracies as dipmap's store holds. Each is skipped, with the reason, where its
# tool is missing.
. "$TESTS/cli/lib.sh"
. "$TESTS/data/run/lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.9,dip=0.6,seed=3
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 2k --depths 0:100:50 --repeats 3 --db t.db --run r1
expect_code 0 "$DIPMAP" export r1 --db t.db --out trials.csv
expect_code 0 "$DIPMAP" export r1 --db t.db --format jsonl --out trials.jsonl

# snippet NAME: the fenced block after "<!-- export-example: NAME -->" in README.md
snippet() {
    awk -v m="<!-- export-example: $1 -->" '
        $0 == m { want = 1; next }
        want && /^```/ { if (inblock) exit; inblock = 1; next }
        inblock { print }' "$REPO/README.md"
}
snippet pandas >ex.py
snippet duckdb >ex.sql
[ -s ex.py ] && [ -s ex.sql ] || fail "README lost its export examples"
# the store's own per-cell accuracy, "length depth accuracy"
q t.db "select length, depth_bp / 10000.0, round(avg(outcome = 'correct'), 3) from trials
        where outcome in ('correct', 'wrong') group by 1, 2 order by 1, 2" | tr '|' ' ' >want
[ "$(wc -l <want)" = 3 ] || fail "store has $(wc -l <want) cells"

skipped=""
py=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import pandas' 2>/dev/null; then py=$p; break; fi
done
if [ -n "$py" ]; then
    "$py" ex.py >pandas.out 2>pandas.err || fail "pandas example failed: $(cat pandas.err)"
    # the printed table: "r1 2048 ACC0 ACC50 ACC100"
    row=$(grep -E '^r1 +2048 ' pandas.out | tr -s ' ')
    [ -n "$row" ] || fail "pandas example printed no row for r1 2048: $(cat pandas.out)"
    got=$(echo "$row" | cut -d' ' -f3-)
    exp=$(awk '{ printf "%s%s", sep, $3 + 0; sep = " " }' want)
    norm() { for v in $1; do printf '%.3f ' "$v"; done; }
    [ "$(norm "$got")" = "$(norm "$exp")" ] || fail "pandas accuracies '$got', store '$exp'"
    # the JSON-lines variant of the same snippet gives the same table
    sed 's/pd.read_csv("trials.csv")/pd.read_json("trials.jsonl", lines=True)/' ex.py >ex2.py
    "$py" ex2.py >pandas2.out 2>&1 || fail "pandas jsonl variant failed: $(cat pandas2.out)"
    diff -u pandas.out pandas2.out >&2 || fail "csv and jsonl exports load differently"
else
    skipped="$skipped pandas (python3 with pandas not installed: apt-get install python3-pandas)"
fi

duck=""
if command -v duckdb >/dev/null; then
    duckdb -csv -noheader <ex.sql >duck.out 2>duck.err || fail "duckdb example failed: $(cat duck.err)"
    duck=1
elif [ -n "$py" ] && "$py" -c 'import duckdb' 2>/dev/null; then
    "$py" -c 'import duckdb, sys; [print(",".join(map(str, r))) for r in duckdb.sql(open("ex.sql").read()).fetchall()]' \
        >duck.out 2>duck.err || fail "duckdb example failed: $(cat duck.err)"
    duck=1
else
    skipped="$skipped duckdb (neither the duckdb CLI nor the Python module is installed)"
fi
if [ -n "$duck" ]; then
    awk -F, '{ printf "%s %s %.3f\n", $2, $3 + 0, $4 }' duck.out >duck.got
    awk '{ printf "%s %s %.3f\n", $1, $2 + 0, $3 }' want >duck.want
    diff -u duck.want duck.got >&2 || fail "duckdb accuracies differ from the store"
fi
[ -n "$skipped" ] && echo "skipped:$skipped"
exit 0
