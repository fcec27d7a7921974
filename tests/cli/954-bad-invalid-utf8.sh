# Bad input: invalid UTF-8 in the golden set and in a plain-text haystack -> exit 2 naming line and byte.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
{ head -n 1 golden.jsonl; printf '{"id": "u", "question": "caf\xe9", "answers": ["a"], "gold": [{"text": "t"}]}\n'; } >u.jsonl
bad_run 2 "error: u.jsonl:2: invalid UTF-8 at byte 29" --dataset u.jsonl
printf 'para one\n\nbad \xff\xfe byte\n' >h.txt
bad_run 2 "error: h.txt:3: invalid UTF-8 at byte 5" --haystack h.txt
# a NUL byte in a plain-text haystack (found by fuzz_haystack) is refused like in JSONL
printf 'para one\n\nnul \0 byte\n' >nul.txt
bad_run 2 "error: nul.txt:3: NUL byte in line" --haystack nul.txt
