# Every numeric run option is checked against its range, with a message naming the option, the
# range and the value (exit 2, nothing stored): --temperature -1, --top-p 2 and negative prices
# used to be accepted; --price-in without --price-out gave no cost at all; --repeats 100000000
# said "must be at least 1"; --tpm -5 named four options; 0:100:33 ended at 99% silently.
. "$TESTS/cli/lib/lib.sh"
set_=$REPO/datasets/needle.jsonl
hay_=$REPO/datasets/nq-haystack.jsonl.gz
bad() {
    local msg=$1
    shift
    expect_code 2 "$DIPMAP" run --dry-run --dataset "$set_" --haystack "$hay_" --lengths 1k "$@"
    assert_contains err "$msg"
    [ "$(grep -c '^error: ' err)" = 1 ] || fail "one error line expected for $*: $(cat err)"
    [ ! -s out ] || fail "nothing on stdout expected for $*"
}
bad "error: run: --temperature must be in [0, 2] (got -1)" --temperature -1
bad "error: run: --temperature must be in [0, 2] (got 2.5)" --temperature 2.5
bad "error: run: --top-p must be in (0, 1] (got 2)" --top-p 2
bad "error: run: --top-p must be in (0, 1] (got 0)" --top-p 0
bad "error: run: --price-in must be at least 0 (got -1)" --price-in -1 --price-out 1
bad "error: run: --price-out must be at least 0 (got -0.5)" --price-in 1 --price-out -0.5
bad "error: run: --price-in needs --price-out too" --price-in 3
bad "error: run: --price-out needs --price-in too" --price-out 3
bad "error: run: --repeats must be 1 to 1000000 (got 100000000)" --repeats 100000000
bad "error: run: --tpm must be at least 0 (got -5)" --tpm -5
assert_not_contains err "max-attempts"
bad "error: run: --rpm must be at least 0 (got -1)" --rpm -1
bad "error: run: --max-attempts must be 1 to 1000 (got 0)" --max-attempts 0
bad "error: run: --concurrency must be 1 to 100000 (got 0)" --concurrency 0
bad "error: run: --timeout must be above 0 (got 0)" --timeout 0
bad "error: run: --max-cost must be at least 0 (got -2)" --max-cost -2
bad "error: run: --max-error-rate must be in [0, 1] (got 1.5)" --max-error-rate 1.5
bad "error: run: --depths: '0:100:33': steps of 33 from 0 end at 99%, not at the stop 100; use a step that divides the span (e.g. 0:100:25)" --depths 0:100:33
# the same ranges apply to a config file's values
echo '{"temperature": -1}' >c.json
bad "error: run: --temperature must be in [0, 2] (got -1)" --config c.json
echo '{"price-in": 2}' >c.json
bad "error: run: --price-in needs --price-out too" --config c.json
# in range: both prices (0 is a free side), the edges of each range
expect_code 0 "$DIPMAP" run --dry-run --dataset "$set_" --haystack "$hay_" --lengths 1k --depths 0,100 --price-in 0 \
    --price-out 2 --temperature 2 --top-p 1 --tpm 0
assert_contains out "cost"
expect_code 0 "$DIPMAP" run --dry-run --dataset "$set_" --haystack "$hay_" --lengths 1k --depths 0:100:25
