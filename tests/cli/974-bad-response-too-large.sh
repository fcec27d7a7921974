# Bad input: a response bigger than the 64 MiB cap -> the trial ends in error, exit 3 naming the cap.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
. "$TESTS/servers/fake.sh"
setup_prior
start_fake fake "{\"/v1/models\":[$(models_json dipmap-sim)],\"/v1/chat/completions\":[{\"status\":200,\"body_size\":70000000}]}"
RUN_ARGS[1]=$FAKE_URL
bad_run 3 "response bigger than the 67108864-byte cap" --max-attempts 1 --concurrency 1 --depths 0
