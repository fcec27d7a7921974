# make install PREFIX=/usr/local DESTDIR=DIR puts the binary, the prompts, datasets and
# tokenizers under share/dipmap, a man page per command and the bash and zsh completions;
# the installed binary finds its data from another folder (the share folder relative to
# the binary, nothing from the source tree), `man` finds its pages, and make uninstall with
# the same variables leaves nothing behind.
. "$TESTS/cli/lib/lib.sh"
real=$(readlink -f "$DIPMAP")
head -c 4 "$real" | grep -q 'ELF' || skip "DIPMAP is a wrapper script, not the binary"
command -v make >/dev/null || skip "make is not installed"
bdir=$(dirname "$real")
if [ "$bdir" = "$REPO" ]; then build=build bin=dipmap; else build=${bdir#"$REPO"/} bin=$build/dipmap; fi
root=$PWD/root
# -o BIN: the binary under test is used as it is (never relinked by this test)
make -s -C "$REPO" BUILD="$build" -o "$bin" install DESTDIR="$root" PREFIX=/usr/local >make.log 2>&1 ||
    { cat make.log >&2; fail "make install"; }
p=$root/usr/local
for f in bin/dipmap share/dipmap/prompts/qa.txt share/dipmap/prompts/needle.txt \
    share/dipmap/datasets/needle.jsonl share/dipmap/datasets/nq-haystack.jsonl.gz \
    share/dipmap/datasets/README.md share/dipmap/datasets/tokenizers/cl100k_base.tiktoken.gz \
    share/dipmap/datasets/tokenizers/SOURCE.md share/man/man1/dipmap.1 share/man/man1/dipmap-run.1 \
    share/man/man1/dipmap-compare.1 share/bash-completion/completions/dipmap \
    share/zsh/site-functions/_dipmap share/doc/dipmap/LICENSE; do
    [ -f "$p/$f" ] || fail "not installed: $f"
done
cmp -s "$real" "$p/bin/dipmap" || fail "the installed binary is not the built one"
# one page per command of `dipmap help`
for c in $("$DIPMAP" help | sed -n 's/^   \([a-z][a-z-]*\)  .*/\1/p'); do
    [ -f "$p/share/man/man1/dipmap-$c.1" ] || fail "no man page for $c"
done

# from another folder, by name only: the installed data
mkdir elsewhere
(cd elsewhere && "$p/bin/dipmap" show-prompt --dataset needle --haystack nq-haystack \
    --template needle --length 400 --depth 50) >out 2>err || { cat err >&2; fail "installed show-prompt"; }
assert_contains out "It contains some short factual statements"
(cd elsewhere && echo "hello world" | "$p/bin/dipmap" tokenize --tokenizer o200k_base) >out 2>err ||
    { cat err >&2; fail "installed tokenize"; }
[ "$(cat out)" = 3 ] || fail "tokenize counted '$(cat out)'"
# man finds the pages in the installed man folder
if command -v man >/dev/null; then
    (cd elsewhere && MANPAGER=cat MANWIDTH=100 man -M "$p/share/man" dipmap-compare) >out 2>err ||
        { cat err >&2; fail "man dipmap-compare"; }
    assert_contains out "BASELINE CANDIDATE"
fi

# uninstall removes every file it installed
make -s -C "$REPO" BUILD="$build" -o "$bin" uninstall DESTDIR="$root" PREFIX=/usr/local >make.log 2>&1 ||
    { cat make.log >&2; fail "make uninstall"; }
left=$(find "$root" -type f)
[ -z "$left" ] || fail "left after uninstall: $left"
exit 0
