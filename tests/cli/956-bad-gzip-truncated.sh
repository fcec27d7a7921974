# Bad input: a truncated .gz golden set (mid-stream, and cut only in the trailer) -> exit 2, never a silently shorter set.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
gzip -c golden.jsonl >full.jsonl.gz
head -c 300 full.jsonl.gz >cut.jsonl.gz
bad_run 2 "error: cut.jsonl.gz: truncated gzip file (unexpected end of file" --dataset cut.jsonl.gz
head -c $(($(stat -c %s full.jsonl.gz) - 4)) full.jsonl.gz >trailer.jsonl.gz
bad_run 2 "error: trailer.jsonl.gz: truncated gzip file (unexpected end of file after line 3)" --dataset trailer.jsonl.gz
gzip -c hay.jsonl | head -c 2000 >hay-cut.jsonl.gz
bad_run 2 "error: hay-cut.jsonl.gz: truncated gzip file" --haystack hay-cut.jsonl.gz
# the whole file works
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --dataset full.jsonl.gz --lengths 1k --depths 0 --db "$DB" --run gz
