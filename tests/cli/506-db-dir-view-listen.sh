# --db naming a directory says so (SQLite says only "disk I/O error"), exit 2, and leaves the
# directory alone; `view --listen 0.0.0.0` prints a URL a browser elsewhere can open (the host's
# name), not http://0.0.0.0:PORT/.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
mkdir d
expect_code 2 "$DIPMAP" runs --db d
assert_contains err "error: d: is a directory; --db names the store file (e.g. d/dipmap.db)"
assert_not_contains err "disk I/O error"
[ -z "$(ls -A d)" ] || fail "files were created in the directory"
"$DIPMAP" view --db d --port 0 >/dev/null 2>verr && fail "view of a directory started"
grep -q "is a directory" verr || fail "view: $(cat verr)"
# a store to serve: one small run against serve-sim
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0 --db e.db --run r
"$DIPMAP" view --db e.db --port 0 --listen 0.0.0.0 >vout 2>verr2 &
pid=$!
wait_for_file vout $pid
kill $pid 2>/dev/null; wait $pid 2>/dev/null
url=$(head -n 1 vout)
[ -n "$url" ] || fail "view did not start: $(cat verr2)"
case $url in http://0.0.0.0:*) fail "unusable URL: $url" ;; "http://$(hostname):"[0-9]*/) ;; *) fail "url '$url', host $(hostname)" ;; esac
