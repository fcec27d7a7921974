#!/usr/bin/env bash
# Runs every unit test binary and every numbered CLI test, prints one line per
# test and ends with exactly one summary line "N passed, N failed, N skipped in TIME".
#
# usage: tests/run.sh BUILD_DIR DIPMAP_BINARY [PATTERN]
#
# A CLI test is tests/cli/NNN-name.sh, run in a fresh scratch directory with
# DIPMAP (the binary), REPO (the repository) and TESTS ($REPO/tests) exported;
# its data is in the repository (tests/data/, datasets/). When NNN-name.out /
# .err exist, stdout / stderr must equal them; when NNN-name.code exists the
# exit code must equal it, otherwise it must be 0.
#
# Skips: a test that needs something optional that is missing (chromium,
# gnuplot, a python3 module, $LLAMA_SERVER) does not pass silently. A CLI test
# calls `skip "why"` (tests/cli/lib/lib.sh: prints "skip: why" on stderr, exits 77);
# a unit test calls TEST_SKIP("why") (tests/unit/test.h: "ok - name # skip why").
# Both are listed as "skip - NAME (why)" and counted apart. CI (.ci/run) sets
# DIPMAP_REQUIRE_* variables that turn those skips into failures.
# Under the sanitizers (make test-asan sets DIPMAP_SANITIZED=1) a CLI test with the line
# "# sanitizers: skip: REASON" is listed "skip - cli/NAME (under the sanitizers: REASON)".
#
# Times: a CLI test's line ends with its wall time, "[1.2 s]", a unit test binary's cases
# are followed by "# unit/NAME [1.2 s]", the slowest ten are listed before the summary line,
# which ends with the suite's time, "in 9 min 48 s" (tests/README.md "Running tests" has the
# measured total).
set -u
build=$1
bin=$2
pattern=${3:-${TESTS:-}}
repo=$(cd "$(dirname "$0")/.." && pwd)
export DIPMAP="$bin" REPO="$repo" TESTS="$repo/tests"
# VALGRIND=1: every $DIPMAP the CLI tests start runs under memcheck (slow; not part of
# `make test`). Logs go to $VALGRIND_LOGS (default a new /tmp/dipmap-valgrind.* directory);
# a process with an invalid access or a definite leak exits 99, which fails its test.
if [ -n "${VALGRIND:-}" ]; then
    VALGRIND_LOGS=${VALGRIND_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/dipmap-valgrind.XXXXXX")}
    mkdir -p "$VALGRIND_LOGS"
    chmod 1777 "$VALGRIND_LOGS" # tests that run dipmap as another user log here too
    vg=$(command -v valgrind) || { echo "VALGRIND=1: valgrind is not installed" >&2; exit 1; }
    cat >"$VALGRIND_LOGS/dipmap" <<EOF_VG
#!/bin/sh
exec "$vg" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \\
    --show-leak-kinds=definite --log-file="$VALGRIND_LOGS/vg.%p.log" "$bin" "\$@"
EOF_VG
    chmod +x "$VALGRIND_LOGS/dipmap"
    ln -sfn "$(dirname "$bin")/tests" "$VALGRIND_LOGS/tests" # tests that use $(dirname $DIPMAP)/tests
    export DIPMAP="$VALGRIND_LOGS/dipmap"
fi
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
results=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-tests.XXXXXX")
trap 'rm -rf "$results"' EXIT

# secs START: seconds since START ($EPOCHREALTIME), one decimal
secs() {
    awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

run_unit() {
    local t=$1 name out rc start
    name=$(basename "$t")
    start=$EPOCHREALTIME
    out=$("$t" 2>"$results/$name.stderr")
    rc=$?
    secs "$start" >"$results/$name.time"
    printf '%s\n' "$out" >"$results/$name.unit"
    if [ $rc -ne 0 ] && ! grep -q '^not ok' <<<"$out"; then
        echo "not ok - $name (exited $rc)" >>"$results/$name.unit"
    fi
}

run_cli() {
    local t=$1 name base scratch rc want=0 ok=1 msg="" start
    base=${t%.sh}
    name=$(basename "$base")
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-cli-$name.XXXXXX")
    # under the sanitizers (make test-asan), a test that says "# sanitizers: skip: REASON" is
    # skipped with its reason: statistics that run one path hundreds of times and replays of
    # documented commands, whose code the other tests run under the sanitizers too
    if [ -n "${DIPMAP_SANITIZED:-}" ] && msg=$(sed -n 's/^# sanitizers: skip: //p' "$t" | head -n 1) &&
        [ -n "$msg" ]; then
        echo "skip - cli/$name (under the sanitizers: $msg)" >"$results/$name.cli"
        echo 0.0 >"$results/$name.time"
        rm -rf "$scratch"
        return
    fi
    start=$EPOCHREALTIME
    (cd "$scratch" && timeout "${CLI_TIMEOUT:-300}" bash "$t" >"$results/$name.stdout" 2>"$results/$name.stderr")
    rc=$?
    secs "$start" >"$results/$name.time"
    [ -f "$base.code" ] && want=$(cat "$base.code")
    if [ "$rc" = 77 ] && [ "$want" != 77 ]; then
        msg=$(sed -n 's/^skip: //p' "$results/$name.stderr" | tail -n 1)
        echo "skip - cli/$name (${msg:-no reason given})" >"$results/$name.cli"
        rm -rf "$scratch"
        return
    fi
    if [ "$rc" != "$want" ]; then ok=0; msg="exit code $rc, expected $want"; fi
    if [ -f "$base.out" ] && ! diff -u "$base.out" "$results/$name.stdout" >"$results/$name.diff" 2>&1; then
        ok=0; msg="$msg${msg:+; }stdout differs"
    fi
    if [ -f "$base.err" ] && ! diff -u "$base.err" "$results/$name.stderr" >>"$results/$name.diff" 2>&1; then
        ok=0; msg="$msg${msg:+; }stderr differs"
    fi
    if [ $ok = 1 ]; then
        echo "ok - cli/$name" >"$results/$name.cli"
        rm -rf "$scratch"
    else
        {
            echo "not ok - cli/$name ($msg)"
            [ -s "$results/$name.diff" ] && sed 's/^/    /' "$results/$name.diff"
            if [ ! -f "$base.err" ]; then tail -n 30 "$results/$name.stderr" | sed 's/^/    stderr: /'; fi
            echo "    scratch dir kept: $scratch"
        } >"$results/$name.cli"
    fi
}
export -f secs run_unit run_cli
export results

units=()
for t in "$build"/tests/unit/test_*; do
    case "$t" in *.o | *.d) continue ;; esac
    [ -x "$t" ] || continue
    [ -n "$pattern" ] && [[ "$(basename "$t")" != *$pattern* ]] && continue
    units+=("$t")
done
clis=()
for t in "$repo"/tests/cli/[0-9]*.sh; do
    [ -f "$t" ] || continue
    [ -n "$pattern" ] && [[ "$(basename "$t")" != *$pattern* ]] && continue
    clis+=("$t")
done

suite_start=$EPOCHREALTIME
if [ ${#units[@]} -gt 0 ]; then
    printf '%s\0' "${units[@]}" | xargs -0 -n1 -P "$jobs" bash -c 'run_unit "$0"'
fi
if [ ${#clis[@]} -gt 0 ]; then
    printf '%s\0' "${clis[@]}" | xargs -0 -n1 -P "$jobs" bash -c 'run_cli "$0"'
fi

pass=0
fail=0
skipped=0
for f in "$results"/*.unit "$results"/*.cli; do
    [ -f "$f" ] || continue
    tm=$(cat "${f%.*}.time" 2>/dev/null)
    first=1
    while IFS= read -r line; do
        # a CLI test's time on its line (its first: the failure's details follow)
        if [ $first = 1 ] && [ -n "$tm" ] && [[ "$f" == *.cli ]]; then line="$line [$tm s]"; fi
        first=0
        case "$line" in
        "ok - "*" # skip "*)
            skipped=$((skipped + 1))
            why=${line#* # skip }
            name=${line#ok - }
            echo "skip - ${name%% # skip *} ($why)"
            ;;
        "skip - "*) skipped=$((skipped + 1)); echo "$line" ;;
        "ok - "*) pass=$((pass + 1)); echo "$line" ;;
        "not ok - "*) fail=$((fail + 1)); echo "$line" ;;
        *) echo "$line" ;;
        esac
    done <"$f"
    # a unit test binary's time after its cases
    if [[ "$f" == *.unit ]] && [ -n "$tm" ]; then echo "# unit/$(basename "${f%.unit}") [$tm s]"; fi
    if [[ "$f" == *.unit ]] && grep -q '^not ok' "$f"; then
        sed 's/^/    /' "${f%.unit}.stderr"
    fi
done
if [ -n "${VALGRIND:-}" ]; then
    vg_bad=$(find "$VALGRIND_LOGS" -name 'vg.*.log' -size +0 | wc -l) # -q: only errors are logged
    echo "valgrind: $(ls "$VALGRIND_LOGS"/vg.*.log 2>/dev/null | wc -l) processes, $vg_bad logs with errors; logs in $VALGRIND_LOGS"
fi
total=$(secs "$suite_start")
echo "slowest:"
for f in "$results"/*.time; do
    [ -f "$f" ] && printf '%s %s\n' "$(cat "$f")" "$(basename "${f%.time}")"
done | sort -rn | head -n 10 | awk '{ printf "  %6.1f s  %s\n", $1, $2 }'
echo "$pass passed, $fail failed, $skipped skipped in $(awk -v t="$total" 'BEGIN { m = int(t / 60); printf (m ? "%d min %d s" : "%.1f s"), (m ? m : t), t - 60 * m }')"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
