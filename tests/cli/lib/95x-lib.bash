# Helpers for the bad-input catalogue (tests/cli/950-977, tests/bad-inputs.md); source after
# lib.sh. Each case starts from a store holding one complete run ("prior", 6 trials), makes one
# bad attempt, checks its exit code and message, and then that the store is intact.
. "$TESTS/cli/lib/run-lib.sh"

PRIOR_SQL="select count(*), sum(score), group_concat(answer) from trials where run_id = (select id from runs where name = 'prior')"

# setup_prior [DB]: kv set, serve-sim, and a complete run "prior" in DB (default t.db)
setup_prior() {
    DB=${1:-t.db}
    make_kv 3
    start_sim sim --dataset golden.jsonl
    run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db "$DB" --run prior
    PRIOR_SUM=$(q "$DB" "$PRIOR_SQL")
}

# check_store [DB]: integrity_check ok, "prior" still complete with the same trials,
# no run left 'running', no lock left behind.
check_store() {
    local db=${1:-$DB}
    [ "$(q "$db" "pragma integrity_check")" = ok ] || fail "$db: integrity_check failed"
    [ "$(q "$db" "select status from runs where name = 'prior'")" = complete ] ||
        fail "$db: the prior run is gone or changed: $(q "$db" "select name, status from runs")"
    [ "$(q "$db" "$PRIOR_SQL")" = "$PRIOR_SUM" ] ||
        fail "$db: the prior run's trials changed: $(q "$db" "$PRIOR_SQL"), was $PRIOR_SUM"
    [ "$(q "$db" "select count(*) from runs where status = 'running'")" = 0 ] ||
        fail "$db: a run was left running"
    [ "$(q "$db" "select count(*) from locks")" = 0 ] || fail "$db: a lock was left behind"
}

# bad_run CODE MESSAGE ARGS...: `dipmap run` with the common arguments plus ARGS (later flags
# win) into $DB as run "bad" must exit CODE naming MESSAGE on stderr; the store stays intact.
bad_run() {
    local code=$1 msg=$2
    shift 2
    expect_code "$code" "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,100 --db "$DB" \
        --run bad "$@"
    assert_contains err "$msg"
    check_store
}

# as_nobody CMD...: run CMD as uid/gid 65534 when we are root (so file modes apply), else as is.
# The scratch directory is opened to other users for it, and what CMD names inside the
# repository (the dipmap binary, a template) is run from a copy in the scratch directory
# (nobody-data/, also the command's DIPMAP_DATA, holding the default tokenizer): a clone in
# root's home (mode 0700) is out of nobody's reach, and the test must not depend on where the
# clone lies.
as_nobody() {
    local a d=$PWD/nobody-data args=()
    if [ "$(id -u)" != 0 ]; then
        "$@"
        return
    fi
    chmod 755 .
    mkdir -p "$d/bin" "$d/datasets/tokenizers"
    [ -e "$d/bin/dipmap" ] || cp "$DIPMAP" "$d/bin/dipmap"
    [ -e "$d/datasets/tokenizers/cl100k_base.tiktoken.gz" ] ||
        cp "$REPO/datasets/tokenizers/cl100k_base.tiktoken.gz" "$d/datasets/tokenizers/"
    for a in "$@"; do
        if [ ${#args[@]} = 0 ] && [ "$a" = "$DIPMAP" ]; then
            args+=("$d/bin/dipmap")
        elif [[ "$a" == "$REPO"/* ]] && [ -f "$a" ]; then
            mkdir -p "$d/$(dirname "${a#"$REPO"/}")"
            cp "$a" "$d/${a#"$REPO"/}"
            args+=("$d/${a#"$REPO"/}")
        else
            args+=("$a")
        fi
    done
    chmod -R a+rX "$d"
    DIPMAP_DATA=$d setpriv --reuid=65534 --regid=65534 --clear-groups "${args[@]}"
}
