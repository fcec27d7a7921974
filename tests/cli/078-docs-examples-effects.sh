# The effects' pages (docs/ordering.md, lost-in-the-middle.md, effects.md with its needle-absent
# run): every ```sh block runs as written against serve-sim (tests/cli/lib/docs_examples.py; 071
# says how), with the text a marker quotes.
# sanitizers: skip: replays documented commands; their features' own tests (880 order, 800 run, ...) run their code
. "$TESTS/cli/lib/lib.sh"
mkdir all
python3 "$TESTS/cli/lib/docs_examples.py" "$REPO" "$DIPMAP" all --group effects >run.out 2>run.err ||
    fail "an example of docs/ordering.md, lost-in-the-middle.md or effects.md does not run as written: $(cat run.err)"
n=$(sed -n 's/^\([0-9]*\) blocks run, \([0-9]*\) skipped$/\1/p' run.out)
[ "${n:-0}" -ge 5 ] || fail "only ${n:-0} blocks ran: $(tail -3 run.out)"
