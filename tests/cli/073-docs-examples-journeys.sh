# The journeys' pages (docs/map.md, servers.md, ci.md, nightly.md): every ```sh block runs as
# written (tests/cli/lib/docs_examples.py; 071 says how, and runs README's). docs/ci.md's
# dipmap gate example PASSes an unchanged model and, run again, prints its decision again.
# sanitizers: skip: replays documented commands; their features' own tests (800 run, 611 gate, ...) run their code
. "$TESTS/cli/lib/lib.sh"
mkdir all
python3 "$TESTS/cli/lib/docs_examples.py" "$REPO" "$DIPMAP" all --group journeys >run.out 2>run.err ||
    fail "an example of docs/map.md, servers.md, ci.md and nightly.md does not run as written: $(cat run.err)"
n=$(sed -n 's/^\([0-9]*\) blocks run, \([0-9]*\) skipped$/\1/p' run.out)
[ "${n:-0}" -ge 4 ] || fail "only ${n:-0} blocks ran: $(tail -3 run.out)"
