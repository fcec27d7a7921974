# The data search order (README "Where dipmap finds its data"): a path given to an option is
# used as given; a bare name is looked up under --data-dir DIR, then $DIPMAP_DATA, then the
# share folder relative to the binary (<bin>/../share/dipmap), then the source tree (the
# binary's folder and its parent). Templates, datasets, haystacks and tokenizers alike, from
# a folder that holds none of them.
. "$TESTS/cli/lib/lib.sh"
real=$(readlink -f "$DIPMAP")
head -c 4 "$real" | grep -q 'ELF' || skip "DIPMAP is a wrapper script, not the binary"

# an installed layout: PREFIX/bin/dipmap and PREFIX/share/dipmap/{prompts,datasets}
mkdir -p pfx/bin pfx/share/dipmap/prompts pfx/share/dipmap/datasets elsewhere
cp "$real" pfx/bin/dipmap
head -n 3 "$REPO/datasets/needle.jsonl" >pfx/share/dipmap/datasets/tiny.jsonl
cp "$REPO/datasets/nq-haystack.jsonl.gz" pfx/share/dipmap/datasets/
cp -r "$REPO/datasets/tokenizers" pfx/share/dipmap/datasets/
mk_template() { # FILE MARK: a template whose system line says MARK
    printf '[system]\n%s\n\n[user]\n{documents}\n\n{question}\n\n[document]\n{text}\n' "$2" >"$1"
}
mk_template pfx/share/dipmap/prompts/mine.txt "from-share"
sp() { # show-prompt with the names only, run from ./elsewhere
    (cd elsewhere && "$@" show-prompt --dataset tiny --haystack nq-haystack --template mine \
        --length 300 --depth 50)
}

# 1. share folder relative to the binary
expect_code 0 sp "$PWD/pfx/bin/dipmap"
assert_contains out "from-share"
assert_contains out "$(head -n 1 "$REPO/datasets/needle.jsonl" | sed 's/.*"question": "\([^"]*\)".*/\1/')"

# 2. $DIPMAP_DATA comes before the share folder
mkdir -p env/prompts
mk_template env/prompts/mine.txt "from-env"
expect_code 0 env DIPMAP_DATA="$PWD/env" bash -c "$(declare -f sp); sp '$PWD/pfx/bin/dipmap'"
assert_contains out "from-env"
assert_not_contains out "from-share"

# 3. --data-dir comes before $DIPMAP_DATA
mkdir -p opt/prompts
mk_template opt/prompts/mine.txt "from-option"
expect_code 0 env DIPMAP_DATA="$PWD/env" "$PWD/pfx/bin/dipmap" --data-dir "$PWD/opt" show-prompt \
    --dataset "$PWD/pfx/share/dipmap/datasets/tiny.jsonl" --haystack "$PWD/pfx/share/dipmap/datasets/nq-haystack.jsonl.gz" \
    --template mine --length 300 --depth 50
assert_contains out "from-option"
expect_code 2 "$PWD/pfx/bin/dipmap" --data-dir
assert_contains err "option '--data-dir' requires a folder"

# 4. a path in the option is used as given, even when a data folder has that name
mk_template elsewhere/mine "from-path"
expect_code 0 sp "$PWD/pfx/bin/dipmap"
assert_contains out "from-path"
rm elsewhere/mine

# 5. the source tree: the repository's binary finds prompts/ and datasets/ beside it
(cd elsewhere && "$DIPMAP" show-prompt --dataset needle --haystack nq-haystack --template needle \
    --length 300 --depth 50) >out 2>err || { cat err >&2; fail "source tree lookup"; }
assert_contains out "It contains some short factual statements"

# not found anywhere: the error names the template and where it looked; a missing dataset names it
(cd elsewhere && "$PWD/../pfx/bin/dipmap" show-prompt --dataset tiny --template nope) >out 2>err
assert_contains err "nope"
(cd elsewhere && "$PWD/../pfx/bin/dipmap" show-prompt --dataset no-such-set) >out 2>err && fail "missing dataset"
assert_contains err "no-such-set: cannot open"

# tokenizer rank files follow the same order: a broken one under $DIPMAP_DATA is the one read
mkdir -p env/datasets/tokenizers
echo "not a rank line" >env/datasets/tokenizers/cl100k_base.tiktoken
echo hi >in.txt
expect_code 2 env DIPMAP_DATA="$PWD/env" "$PWD/pfx/bin/dipmap" tokenize --tokenizer cl100k_base in.txt
assert_contains err "$PWD/env/datasets/tokenizers/cl100k_base.tiktoken:1: not a .tiktoken rank line"
exit 0
