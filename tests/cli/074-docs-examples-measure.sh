# The measuring pages (docs/axes.md, layouts-and-imports.md; ordering.md, lost-in-the-middle.md
# and effects.md are 078's, split off when this test reached the 300 s limit at load 20):
# every ```sh block runs as written against serve-sim (tests/cli/lib/docs_examples.py; 071 says
# how), each axis's example included, with the text a marker quotes (the lengths in %).
# sanitizers: skip: replays documented commands; their features' own tests (800 run, 611 gate, ...) run their code
. "$TESTS/cli/lib/lib.sh"
mkdir all
python3 "$TESTS/cli/lib/docs_examples.py" "$REPO" "$DIPMAP" all --group measure >run.out 2>run.err ||
    fail "an example of docs/axes.md or layouts-and-imports.md does not run as written: $(cat run.err)"
n=$(sed -n 's/^\([0-9]*\) blocks run, \([0-9]*\) skipped$/\1/p' run.out)
[ "${n:-0}" -ge 5 ] || fail "only ${n:-0} blocks ran: $(tail -3 run.out)"
