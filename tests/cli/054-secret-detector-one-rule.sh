# One secret detector (secret.c) for the client's -v log, the resume hint and the store: a name
# ending in key/token/auth/password/secret/cookie/bearer/credential(s), or holding secret, passw,
# cookie, bearer or credential anywhere, is a credential. Before, the store let a
# "session_token" in --extra-body through to the settings, and -v and the resume hint
# printed an X-Amz-Credential header in clear.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run a \
    --extra-body '{"session_token":"tok-S3CRET-VALUE-1"}'
assert_contains err "refusing to store the settings"
if [ -e t.db ]; then
    ! grep -a -q 'S3CRET-VALUE-1' t.db || fail "the session token reached the store"
fi
# a credential header: redacted in the -v request log and in the resume hint
"$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:25 --db t.db --run b -v \
    -H 'X-Amz-Credential: AKIA-S3CRET-VALUE-2' --price-in 1000 --price-out 1000 \
    --max-cost 0.001 --concurrency 1 >out 2>err
rc=$?
[ $rc = 4 ] || { cat err >&2; fail "budget stop exited $rc, expected 4"; }
assert_contains err "hint: resume with:"
assert_contains err "X-Amz-Credential: <redacted>"
assert_not_contains err "S3CRET-VALUE-2"
assert_not_contains out "S3CRET-VALUE-2"
! grep -a -q 'S3CRET-VALUE-2' t.db || fail "the credential header reached the store"
# the run's own settings are not credentials (max-tokens, max-tokens-field)
q t.db "select settings_json from runs where name='b'" | grep -q '"max-tokens"' ||
    fail "settings lost max-tokens"
