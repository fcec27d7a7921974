# Untrusted text: SQL only through bound parameters. Grep level: sqlite3 is used only in
# the store module (store.c, store_*.c behind store-int.h); every sqlite3_prepare*/sqlite3_exec
# call takes a string literal, a store_stmt_sql[]
# entry or a helper argument fed only by literals / migrations[] / an integer PRAGMA; no
# sqlite3_mprintf and no printf-built SQL with %s. Behaviour: a run name and a tag that are
# SQL injections are stored and listed literally, and every table survives.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
others=$(grep -l 'sqlite3_\|<sqlite3\.h>'  "$REPO"/harness/*.[ch] "$REPO"/harness/*/*.[ch] | grep -v '/store\(_[a-z]*\.c\|\.c\|-int\.h\)$' || true)
[ -z "$others" ] || fail "sqlite3 used outside the store module: $others"
python3 - "$REPO"/harness/store/store.c "$REPO"/harness/store/store_*.c <<'PY' || fail "the store builds SQL from data"
import re, sys
src = '\n'.join(open(f).read() for f in sys.argv[1:])
bad = []
if re.search(r'sqlite3_(v?mprintf|snprintf)', src):
    bad.append('sqlite3_mprintf/snprintf used')
for m in re.finditer(r'sqlite3_(prepare(?:_v[23])?|exec)\s*\(\s*[^,]+,\s*([^,]+),', src):
    arg = m.group(2).strip()
    line = src.count('\n', 0, m.start()) + 1
    if arg.startswith('"') or re.fullmatch(r'(store_)?stmt_sql\[[A-Za-z_0-9]+\]', arg) or arg == 'sql':
        continue
    # the trials' SELECT, made by store_trial_select_sql() from the column table's names
    if arg == 'sql.buf' and 'store_trial_select_sql(' in src[max(0, m.start() - 300):m.start()]:
        continue
    bad.append('line %d: %s(%s)' % (line, m.group(1), arg))
# the helpers that take `sql` are called with literals, migrations[i] or the integer pragma
for m in re.finditer(r'\b(exec_const|pragma_int)\s*\(\s*[^,]+,\s*([^,]+),', src):
    arg = m.group(2).strip()
    if arg.startswith('"') or arg in ('migrations[i]', 'pragma', 'const char *sql'):
        continue
    bad.append('%s(%s)' % (m.group(1), arg))
# a format string that builds SQL must not splice strings
for m in re.finditer(r'(snprintf|strbuf_addf)\s*\([^;]*?"((?:[^"\\]|\\.)*)"', src):
    fmt = m.group(2)
    if re.search(r'\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|DROP)\b', fmt, re.I) and re.search(r'%[-0-9.]*[sq]', fmt):
        bad.append('format builds SQL with a string: ' + fmt)
# store_trial_select_sql() appends only literals, its separator and the column table's names
body = re.search(r'void store_trial_select_sql\(int version, struct strbuf \*out\)\n\{(.*?)\n\}', src, re.S)
if body:
    for a in re.finditer(r'strbuf_add(?:str|f)\s*\(\s*out\s*,\s*(.*?)\);', body.group(1), re.S):
        args = re.sub(r'"(?:[^"\\]|\\.)*"', '', a.group(1))
        words = set(re.findall(r'[A-Za-z_][A-Za-z_0-9]*', args))
        if not words <= {'sep', 'version', 'store_trial_cols', 'c', 'since', 'name', 'before'}:
            bad.append('store_trial_select_sql appends something else: ' + a.group(1))
if bad:
    print('\n'.join(bad), file=sys.stderr)
    sys.exit(1)
PY
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
name="x'); DROP TABLE trials; --"
tag="t' OR '1'='1"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run "$name" --tag "$tag"
expect_code 0 "$DIPMAP" runs --db t.db --json
python3 - out "$name" "$tag" <<'PY' || fail "the run is not listed literally"
import json, sys
runs = json.load(open(sys.argv[1]))
runs = runs.get('runs', runs) if isinstance(runs, dict) else runs
r = [r for r in runs if r.get('name') == sys.argv[2]]
assert r, runs
assert sys.argv[3] in json.dumps(r[0], ensure_ascii=False) or sys.argv[3] in str(r[0]), r[0]
PY
[ "$(q t.db "select count(*) from trials")" = 4 ] || fail "trials table damaged"
[ "$(q t.db "select name from runs")" = "$name" ] || fail "run name not stored literally"
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "integrity_check failed"
# filters with quotes select nothing rather than everything
expect_code 0 "$DIPMAP" runs --db t.db --tag "x' OR '1'='1"
assert_not_contains out "DROP TABLE"
