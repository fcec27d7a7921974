# Bad input: a TLS endpoint with a self-signed certificate -> exit 3 naming the problem; --insecure allows it explicitly.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
command -v openssl >/dev/null || fail "openssl is needed"
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=127.0.0.1 2>/dev/null ||
    fail "openssl could not make a certificate"
python3 "$TESTS/servers/tls_proxy.py" --cert cert.pem --key key.pem --backend "${SIM_URL##*:}" --port-file tls.port 2>tls.err &
SIM_PIDS+=($!)
wait_for_file tls.port $!
url="https://127.0.0.1:$(cat tls.port)"
RUN_ARGS[1]=$url
bad_run 3 "error: run: endpoint unreachable: $url/v1/models: SSL certificate problem: self-signed certificate"
[ "$(cat tls.port.fail)" -ge 1 ] || fail "no TLS handshake was refused"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run tls --insecure
assert_contains out "run tls: complete"
check_store
