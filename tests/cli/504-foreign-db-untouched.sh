# A valid SQLite file of another application is refused (exit 2, "not a dipmap database") and
# left byte-identical: no WAL switch, no -wal/-shm file. It used to be switched to WAL mode
# (header bytes 18-19 and the change counter changed) before the refusal.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
python3 - <<'PY'
import sqlite3
a = sqlite3.connect("tables.db")          # another app's tables, user_version 0
a.execute("create table notes(id integer primary key, body text)")
a.execute("insert into notes(body) values ('keep me')")
a.commit(); a.close()
b = sqlite3.connect("appid.db")           # another app's application id and schema version
b.execute("pragma application_id = 1234"); b.execute("pragma user_version = 3")
b.execute("create table t(x)"); b.commit(); b.close()
c = sqlite3.connect("appid-empty.db")     # an application id but no tables yet
c.execute("pragma application_id = 99"); c.commit(); c.close()
PY
for f in tables.db appid.db appid-empty.db; do
    sum=$(sha256sum <"$f")
    expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db "$f" --run r1
    assert_contains err "error: $f: not a dipmap database"
    [ "$(sha256sum <"$f")" = "$sum" ] || fail "$f was modified by run"
    [ ! -e "$f-wal" ] && [ ! -e "$f-shm" ] && [ ! -e "$f-journal" ] || fail "$f got a side file"
    expect_code 2 "$DIPMAP" runs --db "$f"
    [ "$(sha256sum <"$f")" = "$sum" ] || fail "$f was modified by runs"
done
assert_contains err "not a dipmap database"
# an empty SQLite file (no tables, no application id) is still a fine new store
python3 -c 'import sqlite3; sqlite3.connect("empty.db").execute("pragma user_version = 0")'
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db empty.db --run r1
