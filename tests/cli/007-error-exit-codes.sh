# Error messages and exit codes a new user meets: report --dataset with a file that is not a
# golden set (or does not exist) exits 2 with a message and writes nothing (it used to exit 0,
# silently for a missing file); --rank-dist with --rank-p is refused; a "config" key inside a
# config file gets its own message (not the API-key one); gen needle --n 100000 is refused
# before any output file exists (it used to leave an empty file), and a failed import leaves
# no partial output.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db t.db --run r1
expect_code 2 "$DIPMAP" report r1 --db t.db --dataset nope.jsonl --no-plots
assert_contains err "error: nope.jsonl: cannot open: No such file or directory"
assert_contains err "error: report: --dataset nope.jsonl cannot be used (see above); nothing was written"
[ ! -e reports ] || fail "report wrote files: $(find reports)"
printf 'id,question,answer\nq1,what,x\n' >set.csv
expect_code 2 "$DIPMAP" report r1 --db t.db --dataset set.csv --no-plots
assert_contains err "error: set.csv:1: "
assert_contains err "report: --dataset set.csv cannot be used"
[ ! -e reports ] || fail "report wrote files: $(find reports)"
expect_code 2 "$DIPMAP" report r1 --db t.db --rank-dist d.txt --rank-p 0.3
assert_contains err "error: report: give --rank-dist FILE or --rank-p P, not both"
expect_code 0 "$DIPMAP" report r1 --db t.db --dataset golden.jsonl --no-plots
# a config file naming another config file
echo '{"config": "other.json"}' >c.json
expect_code 2 "$DIPMAP" run --config c.json --dataset golden.jsonl --dry-run
assert_contains err 'error: c.json: "config" cannot be set in a config file (a config file cannot name another; give one --config FILE)'
assert_not_contains err "API key"
# gen: too many needles for the entity pool, refused up front, no file
expect_code 2 "$DIPMAP" gen needle --n 100000 --out big.jsonl
assert_contains err "error: gen: needle: --n 100000 with --negatives 4 needs 500000 distinct entities, there are 1920: use --n 384 or less"
[ ! -e big.jsonl ] || fail "gen left big.jsonl"
expect_code 2 "$DIPMAP" gen needle --n 0 --out big.jsonl
assert_contains err "error: gen: --n must be 1 to 100000 (got 0)"
# an existing output file survives a refused gen untouched
echo keep >kept.jsonl
expect_code 2 "$DIPMAP" gen needle --n 100000 --out kept.jsonl
[ "$(cat kept.jsonl)" = keep ] || fail "a refused gen changed kept.jsonl"
# import that fails half-way (a bad record on line 2) leaves no partial output
{ gzip -dc "$TESTS/data/litm/nq-open-oracle.jsonl.gz" | head -1; echo '{"foo": 1}'; } >mixed.jsonl
expect_code 2 "$DIPMAP" import litm mixed.jsonl --out part.jsonl --haystack-out part-hay.jsonl
assert_contains err "mixed.jsonl:2: not a LitM QA record"
[ ! -e part.jsonl ] && [ ! -e part-hay.jsonl ] || fail "import left a partial file: $(ls part*)"
ls | grep -q '\.tmp' && fail "a temporary file was left: $(ls | grep tmp)"
exit 0
