# Bad input: --depths outside 0..100 (101, -1, 0:120:10, 50:10:10, x) -> exit 2 naming the flag.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
bad_run 2 "error: run: --depths: '101' is not a percentage in 0..100" --depths 101
bad_run 2 "error: run: --depths: '-1' is not a percentage in 0..100" --depths -1
for v in 0:120:10 50:10:10 x 0:100:0; do
    bad_run 2 "error: run: --depths:" --depths "$v"
done
