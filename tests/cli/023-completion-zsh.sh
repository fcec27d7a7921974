# The zsh completion (dipmap help --completion zsh, installed as _dipmap) is made from the
# option tables of `dipmap help`: zsh parses it, and with zsh's completion functions recorded
# (_arguments, _describe, _files) it offers the commands with their summaries, every option of
# a command with its help and value (enumerated values, files, run names from the store).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
need_tool zsh DIPMAP_REQUIRE_ZSH "zsh is not installed"
"$DIPMAP" help --completion zsh >_dipmap || fail "help --completion zsh"
head -n 1 _dipmap | grep -qx '#compdef dipmap' || fail "no #compdef line"
zsh -n _dipmap || fail "zsh cannot parse the script"
# zcomplete WORDS...: run _dipmap on the line with the completion builtins recorded into ./got
zcomplete() {
    DIPMAP_BIN=$DIPMAP zsh -f -c '
        _arguments() { print -rl -- "_arguments" "$@" }
        _describe() { local a; print -r -- "_describe $1 $2"; [[ $1 == -t ]] && shift 2; for a in ${(P)2}; do print -r -- "$a"; done }
        _files() { print -r -- "_files $*" }
        compadd() { print -rl -- "compadd" "$@" }
        source ./_dipmap >/dev/null   # defines _dipmap (its last line calls it once, with no words)
        words=("$@"); words[1]=$DIPMAP_BIN; CURRENT=$#
        _dipmap' _ "$@" >got 2>err
}
want() { grep -qF -- "$1" got || { cat got err >&2; fail "'$1' not offered"; }; }

zcomplete dipmap ""
want "_describe -t commands"
want "compare:paired regression verdict"
zcomplete dipmap run --sch
want "--schedule=[send order"
want ":value:(cache shuffle plan)"
want "--progress=[progress display (default auto)]:value:(auto bar lines none)"
want "--dataset=["
zcomplete dipmap export --format ""
want ":value:(csv jsonl eee)"
zcomplete dipmap --data-dir /tmp run ""
want "--schedule=["
# every option of every command's help is in its _arguments
for c in $("$DIPMAP" help | sed -n 's/^   \([a-z][a-z-]*\)  .*/\1/p'); do
    [ "$c" = help ] && continue
    zcomplete dipmap "$c" ""
    "$DIPMAP" help "$c" | sed -n 's/^    \(-[a-zA-Z], \)\{0,1\}--\(\[no-\]\)\{0,1\}\([a-z0-9-]*\).*/--\3/p' |
        while read -r o; do grep -qE -- "^$o(=|\[)" got || fail "$c: $o not completed"; done || exit 1
done

# run names: _dipmap_runs lists the store's runs (--db on the line)
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db t.db --run zbase
DIPMAP_BIN=$DIPMAP zsh -f -c '
    _describe() { local a; [[ $1 == -t ]] && shift 2; for a in ${(P)2}; do print -r -- "$a"; done }
    source ./_dipmap >/dev/null 2>&1
    words=($DIPMAP_BIN compare --db t.db ""); CURRENT=4
    _dipmap_runs' >got 2>err
[ "$(cat got)" = zbase ] || { cat err >&2; fail "run names: $(cat got)"; }
zcomplete dipmap compare --db t.db ""
want "*:run:_dipmap_runs"
exit 0
