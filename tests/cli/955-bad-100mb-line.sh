# Bad input: a 100 MB single line (generated here, not committed) -> exit 2 naming the line; the reader stops at the 1 MiB line limit.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
{ head -n 1 golden.jsonl; printf '{"id": "big", "question": "'; head -c 100000000 /dev/zero | tr '\0' x; echo '"}'; } >big.jsonl
[ "$(stat -c %s big.jsonl)" -gt 100000000 ] || fail "test setup: big.jsonl too small"
bad_run 2 "error: big.jsonl:2: line is longer than 1048576 bytes" --dataset big.jsonl
# the same line in a haystack
{ head -n 1 hay.jsonl; tail -n 1 big.jsonl; } >bighay.jsonl
bad_run 2 "error: bighay.jsonl:2: line is longer than 1048576 bytes" --haystack bighay.jsonl
rm -f big.jsonl bighay.jsonl
