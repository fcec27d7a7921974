# docs/reference/ is what `dipmap help --markdown` prints from the option tables (make reference):
# one page per command of `dipmap help` plus the index, each equal to a fresh generation and no
# page for a command that is gone. An option added to a table without `make reference` fails
# here; so does a hand edit of a generated page. The pages name every option the parser accepts
# (the same tables), and the man page of a command lists the same options as its reference page.
. "$TESTS/cli/lib/lib.sh"
ref=$REPO/docs/reference
[ -d "$ref" ] || fail "no docs/reference/ (make reference)"
mkdir gen
"$DIPMAP" help --markdown >gen/README.md || fail "help --markdown failed"
for c in $("$DIPMAP" help | sed -n 's/^   \([a-z][a-z-]*\)  .*/\1/p'); do
    "$DIPMAP" help --markdown "$c" >"gen/$c.md" || fail "help --markdown $c failed"
done
[ "$(ls gen | wc -l)" -ge 20 ] || fail "too few commands: $(ls gen)"
diff -ru gen "$ref" >ref.diff || fail "docs/reference/ is not what the option tables generate (make reference): $(head -40 ref.diff)"
# the man page and the reference page list the same options (both from the table)
for c in run compare export; do
    "$DIPMAP" help --man "$c" | sed -n 's/^\.B .*\\-\\-\(\[no\\-\]\)\{0,1\}\([a-z0-9\\-]*\).*/\2/p' | sed 's/\\-/-/g' | sort >man.$c
    sed -n 's/^| `\(-., \)\{0,1\}--\(\[no-\]\)\{0,1\}\([a-z0-9-]*\).*/\3/p' "$ref/$c.md" | sort >md.$c
    [ -s md.$c ] || fail "no options read from docs/reference/$c.md"
    cmp -s man.$c md.$c || fail "man page and reference of $c differ: $(diff man.$c md.$c)"
done
expect_code 2 "$DIPMAP" help --markdown no-such-command
assert_contains err "'no-such-command' is not a dipmap command"
