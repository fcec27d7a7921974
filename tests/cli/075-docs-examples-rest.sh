# Every other page of docs/ (statistics, schemas with the Every Eval Ever export, formats,
# troubleshooting with exit 2 and its message, batch and cost, clusters, and any page added later
# that no other group names): every ```sh block runs as written (tests/cli/lib/docs_examples.py).
# sanitizers: skip: replays documented commands; their features' own tests (800 run, 611 gate, ...) run their code
. "$TESTS/cli/lib/lib.sh"
mkdir all
python3 "$TESTS/cli/lib/docs_examples.py" "$REPO" "$DIPMAP" all --group rest >run.out 2>run.err ||
    fail "an example of the other docs/ pages does not run as written: $(cat run.err)"
n=$(sed -n 's/^\([0-9]*\) blocks run, \([0-9]*\) skipped$/\1/p' run.out)
[ "${n:-0}" -ge 8 ] || fail "only ${n:-0} blocks ran: $(tail -3 run.out)"
