# The bash completion (dipmap help --completion bash, installed by make install) is made from
# the option tables of `dipmap help`: it completes the commands, each command's options (all
# of them), enumerated values (--schedule cache|shuffle|plan, --format csv|jsonl|eee), files for
# FILE, and run names from the store (--db on the line) for commands that take runs.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" help --completion bash >dipmap.bash || fail "help --completion bash"
bash -n dipmap.bash || fail "the script does not parse"
# complete WORDS...: COMPREPLY for the last word, sorted, one per line, into ./got
complete_line() {
    DIPMAP_BIN=$DIPMAP bash -c '
        . ./dipmap.bash
        COMP_WORDS=("$@"); COMP_WORDS[0]=$DIPMAP_BIN; COMP_CWORD=$(($# - 1))
        _dipmap
        printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$@" >got
}
want() { grep -qxF -- "$1" got || { cat got >&2; fail "'$1' not offered"; }; }
not_want() { ! grep -qxF -- "$1" got || fail "'$1' offered"; }

complete_line dipmap ru
want run; want runs; not_want report
complete_line dipmap --
want --data-dir; want --version
complete_line dipmap run --sch
want --schedule
complete_line dipmap run --schedule ""
[ "$(tr '\n' ' ' <got)" = "cache plan shuffle " ] || fail "schedule values: $(cat got)"
complete_line dipmap run --progress ""
[ "$(tr '\n' ' ' <got)" = "auto bar lines none " ] || fail "progress values: $(cat got)"
complete_line dipmap export --format ""
[ "$(tr '\n' ' ' <got)" = "csv eee jsonl " ] || fail "export formats: $(cat got)"
complete_line dipmap gen ""
[ "$(tr '\n' ' ' <got)" = "assoc hops kv needle ordinal " ] || fail "gen subcommands: $(cat got)"
touch data-file.jsonl
complete_line dipmap run --dataset data-
want data-file.jsonl
complete_line dipmap --data-dir dipmap ru
want run

# every option of every command's help is offered after "--"
for c in $("$DIPMAP" help | sed -n 's/^   \([a-z][a-z-]*\)  .*/\1/p'); do
    [ "$c" = help ] && continue
    complete_line dipmap "$c" --
    "$DIPMAP" help "$c" | sed -n 's/^    \(-[a-zA-Z], \)\{0,1\}--\(\[no-\]\)\{0,1\}\([a-z0-9-]*\).*/--\3/p' |
        while read -r o; do grep -qxF -- "$o" got || fail "$c: $o not completed"; done || exit 1
done

# run names from the store named by --db
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
for n in base-1 cand-1; do
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db t.db --run "$n"
done
complete_line dipmap compare --db t.db ""
[ "$(tr '\n' ' ' <got)" = "base-1 cand-1 " ] || fail "run names: $(cat got)"
complete_line dipmap report --db t.db ca
[ "$(cat got)" = cand-1 ] || fail "run names for ca: $(cat got)"
complete_line dipmap compare --db t.db --against ""
want previous; want base-1
DIPMAP_DB=t.db complete_line dipmap export b
[ "$(cat got)" = base-1 ] || fail "run names from \$DIPMAP_DB: $(cat got)"
# a command that takes files, not runs
complete_line dipmap score data-
want data-file.jsonl
exit 0
