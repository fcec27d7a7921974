# Two processes creating the same new store at the same moment both succeed:
# the switch to WAL waits for the other process's lock instead of failing with
# "cannot switch to WAL mode: database is locked" (seen in CI as a 983 flake).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/7xx-lib.bash"
make_run in.db --run r1 --golden gold.jsonl
for i in $(seq 25); do
    rm -f new.db new.db-wal new.db-shm
    "$DIPMAP" merge new.db in.db >/dev/null 2>e1 &
    pid=$!
    "$DIPMAP" merge new.db in.db >/dev/null 2>e2
    rc2=$?
    wait $pid
    rc1=$?
    if grep -q "WAL" e1 e2; then cat e1 e2 >&2; fail "round $i: WAL switch failed under a concurrent open"; fi
    # one merge wins; the other either also completes or finds the run already there
    { [ $rc1 = 0 ] || [ $rc2 = 0 ]; } || { cat e1 e2 >&2; fail "round $i: merge exited $rc1 / $rc2"; }
    for f in e1 e2; do
        if grep -v "a run named 'r1' already exists" $f | grep -q '^error:'; then cat $f >&2; fail "round $i: unexpected error"; fi
    done
    [ "$(sqlite3 new.db 'PRAGMA journal_mode')" = wal ] || fail "round $i: new.db is not in WAL mode"
done
exit 0
