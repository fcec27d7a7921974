# Bad input: disk full during a run (RLIMIT_FSIZE, SIGXFSZ ignored so writes fail with EFBIG) -> exit 3 naming the database; the summary says how many trials are stored (not "done") and how to resume; the store stays intact (the run failed, or stalled when even its status did not fit) and resumes once there is room.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
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
# the summary says what is stored (the trials of the failed commit were answered, not stored) and
# how to resume
stored=$(n_trials bad "t.outcome <> 'pending'")
assert_contains out "trials: $stored of 189 stored ("
assert_contains out "of them not stored"
grep -q " done (" out && fail "the summary says done: $(cat out)"
assert_contains err "hint: the stored trials are kept; make room for t.db"
assert_contains err "hint: resume with: dipmap run "
# the store is intact; the run is marked failed, or, when even that write did not fit (its
# status and lock could not be updated: said on stderr), `dipmap runs` shows it as stalled
[ "$(q t.db "pragma integrity_check")" = ok ] || fail "integrity_check failed"
[ "$(q t.db "$PRIOR_SQL")" = "$PRIOR_SUM" ] || fail "the prior run changed"
expect_code 0 "$DIPMAP" runs --db t.db
if [ "$(q t.db "select status from runs where name = 'bad'")" != failed ]; then
    grep -q '^bad .* stalled ' out || fail "the disk-full run is neither failed nor shown as stalled: $(cat out)"
    assert_contains err "note: 'stalled' runs were left running by a process that is gone"
fi
# with room again, the same run resumes and completes
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:5 --repeats 3 --store-prompts --db t.db --run bad --concurrency 2
assert_contains out "run bad: complete"
# the resume's outcomes are this invocation's, its accuracy the whole run's, and it says so
assert_contains out "kept from before)"
assert_contains out "outcomes this time: correct"
assert_contains out "scored trials in the run)"
check_store
