# Bad input: disk full during a run (RLIMIT_FSIZE, SIGXFSZ ignored so writes fail with EFBIG) -> exit 3 naming the database; the store stays intact and the run resumes once there is room.
. "$TESTS/cli/lib.sh"
. "$TESTS/cli/95x-lib.bash"
setup_prior
size=$(stat -c %s t.db)
(
    trap "" XFSZ
    ulimit -f $(((size + 40000) / 1024))
    exec "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:5 --repeats 3 --store-prompts --db t.db --run bad --concurrency 2
) >out 2>err
rc=$?
[ $rc = 3 ] || { cat err >&2; fail "disk-full run exited $rc, expected 3"; }
assert_contains err "error: t.db: cannot commit: disk I/O error"
assert_contains err "error: run: cannot commit trials to t.db"
check_store
[ "$(q t.db "select status from runs where name = 'bad'")" = failed ] || fail "the disk-full run is not marked failed"
# with room again, the same run resumes and completes
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:5 --repeats 3 --store-prompts --db t.db --run bad --concurrency 2
assert_contains out "run bad: complete"
check_store
