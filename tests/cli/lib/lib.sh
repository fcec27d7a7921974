# Helpers sourced by CLI tests (tests/cli/NNN-*.sh). Each test runs in its own
# scratch directory; DIPMAP, REPO and TESTS are exported by tests/run.sh.

# fail MESSAGE: print and exit 1
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# skip REASON: this test cannot run here (an optional tool is missing); tests/run.sh
# lists it as "skip - cli/NAME (REASON)" and counts it apart. Exit code 77.
skip() {
    echo "skip: $*" >&2
    exit 77
}

# require_or_skip VAR REASON: skip, unless $VAR is set (CI sets DIPMAP_REQUIRE_*), then fail
require_or_skip() {
    if [ -n "${!1:-}" ]; then fail "$2 ($1 is set)"; fi
    skip "$2"
}

# The one guard for optional programs (gnuplot, zsh, ...): CI sets DIPMAP_REQUIRE_* (.ci/run), so
# it cannot pass without running what a test checks.
# need_tool CMD VAR REASON: the whole test needs CMD: skip without it, or fail when $VAR is set.
need_tool() {
    command -v "$1" >/dev/null 2>&1 || require_or_skip "$2" "$3"
}
# has_tool CMD VAR: a part of a test needs CMD: 0 when it is on PATH, 1 when not, and a failure
# when not and $VAR is set.
has_tool() {
    command -v "$1" >/dev/null 2>&1 && return 0
    if [ -n "${!2:-}" ]; then fail "$1 not installed ($2 is set)"; fi
    return 1
}

# sqlite3: the CLI waits (up to 10 s) for a lock instead of failing at once. Two queries
# run side by side (a diff of two process substitutions) both open a WAL store whose last
# writer has exited; the first runs WAL recovery under an exclusive lock, and without a
# busy timeout the second prints "database is locked" and returns nothing.
sqlite3() {
    command sqlite3 -cmd ".timeout 10000" "$@"
}

# expect_code N CMD...: run CMD, capture stdout/stderr into ./out ./err, check its exit code
expect_code() {
    local want=$1 rc
    shift
    "$@" >out 2>err
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "--- stdout" >&2; head -c 4000 out >&2
        echo "--- stderr" >&2; head -c 4000 err >&2
        fail "'$*' exited $rc, expected $want"
    fi
}

# assert_contains FILE TEXT: FILE contains TEXT literally
assert_contains() {
    grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; head -c 4000 "$1" >&2; fail "$1 does not contain '$2'"; }
}

# assert_not_contains FILE TEXT
assert_not_contains() {
    if grep -qF -- "$2" "$1"; then fail "$1 contains '$2'"; fi
}

# Waiting on state, never on time: each wait polls for something a program writes (a file,
# a line) and fails after 60 s or as soon as PID (when given) has exited without writing it.
# wait_for_file FILE [PID]: FILE exists and is not empty
wait_for_file() {
    local i
    for i in $(seq 1200); do
        [ -s "$1" ] && return 0
        if [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null; then
            [ -s "$1" ] && return 0
            fail "pid $2 exited before it wrote $1"
        fi
        sleep 0.05
    done
    fail "$1 was not written within 60 s"
}

# wait_for_line FILE TEXT [PID]: FILE holds TEXT (a fixed string)
wait_for_line() {
    local i
    for i in $(seq 1200); do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
            grep -qF -- "$2" "$1" 2>/dev/null && return 0
            echo "--- $1:" >&2; tail -c 2000 "$1" >&2
            fail "pid $3 exited before '$2' appeared in $1"
        fi
        sleep 0.05
    done
    fail "'$2' did not appear in $1 within 60 s"
}

# free_port: a TCP port on 127.0.0.1 that was free a moment ago (bound, then released: another
# process may take it before it is used). Only for a server that cannot bind port 0 itself and
# is started again on a taken port (llama-server: tests/llama/lib.sh llama_start); a CLI test
# starts its servers on port 0 and reads the port they print (start_sim, start_fake), and uses
# closed_port (sim-lib.sh) for a port that refuses connections.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# pylib ARGS...: python3 with tests/cli/lib on the module path (simclient.py, gnuplot_svg.py)
pylib() {
    PYTHONPATH="$TESTS/cli/lib${PYTHONPATH:+:$PYTHONPATH}" python3 "$@"
}
