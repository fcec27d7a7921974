# Helpers for the CLI tests that run `dipmap run` against serve-sim (most of 2xx and 5xx-9xx),
# sourced after tests/cli/lib/lib.sh: the server helpers of sim-lib.sh, a kv golden set, the
# common run arguments and store queries.
. "$TESTS/cli/lib/sim-lib.sh"

# make_kv [N]: a seeded kv golden set (golden.jsonl) and haystack (hay.jsonl)
make_kv() {
    "$DIPMAP" gen kv --n "${1:-4}" --seed 1 --out golden.jsonl --haystack-out hay.jsonl \
        --haystack-size 400 >/dev/null || fail "dipmap gen kv failed"
}

# The common run arguments against $SIM_URL with the kv set; more args may follow.
run_args() {
    RUN_ARGS=(--endpoint "$SIM_URL" --model dipmap-sim --dataset golden.jsonl --haystack hay.jsonl
        --template "$REPO/prompts/kv.txt" --scorer kv --progress none)
}

# wait_for_query DB SQL [PID]: wait (up to 60 s, polling the store) until SQL answers 1 in DB;
# fails when PID (when given) exits first. For "once N trials are stored" and the like.
wait_for_query() {
    local i
    for i in $(seq 1200); do
        [ "$(q "$1" "$2" 2>/dev/null)" = 1 ] && return 0
        if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
            [ "$(q "$1" "$2" 2>/dev/null)" = 1 ] && return 0
            fail "pid $3 exited before $1 answered 1 to: $2"
        fi
        sleep 0.05
    done
    fail "$1 did not answer 1 within 60 s to: $2"
}

# q DB SQL: run one query with the sqlite3 CLI
q() {
    sqlite3 -batch -noheader "$1" "$2"
}

# n_trials RUN [WHERE] [DB]: how many of run RUN's trials in DB (default t.db) match the SQL
# condition WHERE (default: all of them)
n_trials() {
    q "${3:-t.db}" "select count(*) from trials t join runs r on r.id = t.run_id
        where r.name = '$1' and (${2:-1})"
}
