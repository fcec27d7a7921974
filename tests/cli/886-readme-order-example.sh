# docs/ordering.md ("Choose an ordering", formerly in README): its first command, run as written against serve-sim (the endpoint
# and model swapped in, a scratch store), maps the retrieval set it names. It used --k 20 on the
# example's 8-chunk lists and was refused; the refusal now names the longest k every list allows.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
# the command: from the line after "# your retriever's lists" to the first line without a
# trailing backslash
awk '/^# your retriever.s lists/ { on = 1; next } on && /^#/ { next }
     on { print; if ($0 !~ /\\$/) exit }' "$REPO/docs/ordering.md" >cmd.sh
grep -q -- '--experiment order' cmd.sh || fail "README's order command not found: $(cat cmd.sh)"
grep -q 'tests/data/order/retrieval.jsonl' cmd.sh || fail "the command does not name the example file"
start_sim sim --dataset "$TESTS/data/order/retrieval.jsonl" --model my-model:edge=0.92,dip=0.37,flat=1
# run in the scratch folder: the example file by its path in this checkout, the store here
sed -i "s|http://127.0.0.1:8000|$SIM_URL|; s|^\./dipmap|\"\$DIPMAP\"|
        s|tests/data/order/retrieval.jsonl|$TESTS/data/order/retrieval.jsonl|; \$s|\$| --db t.db --progress none|" cmd.sh
DIPMAP=$DIPMAP bash cmd.sh >out 2>err || fail "README's command failed: $(cat err)"
assert_contains out "trials: "
n=$(sqlite3 -batch -noheader t.db "select count(*) from trials") 2>/dev/null ||
    n=$(python3 -c 'import sqlite3; print(sqlite3.connect("t.db").execute("select count(*) from trials").fetchone()[0])')
[ "$n" -gt 0 ] || fail "no trials stored"
# a k past the shortest list: refused with the largest k every list allows
sed -i 's/--k 3,5,8/--k 3,5,20/' cmd.sh
DIPMAP=$DIPMAP bash cmd.sh >out 2>err && fail "--k 20 on 8-chunk lists was accepted"
assert_contains err '"retrieved" has 8 chunks, --k 20 needs 20 (the shortest list has 8: every k must be at most that)'
exit 0
