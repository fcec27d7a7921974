# merge refuses two parts of one run that sent other prompts for the trial keys they share,
# though their identities (inputs, model, settings) are equal: tests/data/old-store's 'batch'
# run, recorded by an older dipmap whose batch path sent chat-layout trials as one system and
# one user message, renamed 'online' in a second store, and that store's 'online' run (what
# the older online path sent). Merged into a new store or into the store holding 'online',
# merge names the run, both files and the first differing trial key and exits 2 with nothing
# written (before: merged, "27 trial(s) were present in more than one input", exit 0, the
# first input's answers silently kept). The same store merged again is still idempotent.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
cp "$REPO"/tests/data/old-store/old.db a.db
chmod u+w a.db
cp a.db b.db
expect_code 0 "$DIPMAP" rm online --db b.db --yes
expect_code 0 "$DIPMAP" rename batch online --db b.db
refused() {
    assert_contains err "error: merge: $1 and b.db hold parts of run 'online' and they sent other prompts for the same trials: 6 of 12 shared trial keys (first kv-0001|1024|0|0|layout=chat: prompt bd235c654b74"
    assert_contains err "refusing to merge parts that sent other bytes"
    assert_not_contains err "present in more than one input"
}
expect_code 2 "$DIPMAP" merge new.db a.db b.db
refused a.db
[ "$(q new.db "select count(*) from runs")" = 0 ] || fail "new.db: runs written by a refused merge"
cp a.db into.db
sum=$(q into.db "select group_concat(prompt_sha256 || outcome, ',') from trials")
expect_code 2 "$DIPMAP" merge into.db b.db
refused into.db
[ "$(q into.db "select group_concat(prompt_sha256 || outcome, ',') from trials")" = "$sum" ] ||
    fail "into.db: trials changed by a refused merge"
# parts that sent the same bytes still merge (the same run twice: idempotent)
expect_code 0 "$DIPMAP" merge into.db a.db
assert_contains out "online: 12/12 trials, complete"
echo ok
