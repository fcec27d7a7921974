#!/usr/bin/env bash
# make test-package: the slow packaging tests, apart from make test (CI runs both). Each
# tests/package/NAME.sh runs in a fresh scratch folder with DIPMAP, REPO and TESTS set, like
# a CLI test (exit 0 pass, 77 skip with "skip: why" on stderr), and its time is printed, with
# the lines it printed as "measured: ...".
# Ends with "N passed, N failed, N skipped". usage: tests/package/run.sh DIPMAP [PATTERN]
set -u
bin=$1
pattern=${2:-${TESTS_PACKAGE:-}}
repo=$(cd "$(dirname "$0")/../.." && pwd)
export DIPMAP="$bin" REPO="$repo" TESTS="$repo/tests"
pass=0 failed=0 skipped=0
for t in "$repo"/tests/package/[a-z]*.sh; do
    name=$(basename "$t" .sh)
    [ "$name" = run ] && continue
    case $name in *"$pattern"*) ;; *) continue ;; esac
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-package-$name.XXXXXX")
    start=$(date +%s)
    (cd "$scratch" && bash "$t") >"$scratch.log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    if [ $rc = 0 ]; then
        echo "ok - package/$name (${secs} s)"
        sed -n 's/^measured: /    /p' "$scratch.log" # a figure the test measured (image size)
        pass=$((pass + 1))
        rm -rf "$scratch" "$scratch.log"
    elif [ $rc = 77 ]; then
        echo "skip - package/$name ($(sed -n 's/^skip: //p' "$scratch.log" | tail -n 1))"
        skipped=$((skipped + 1))
        rm -rf "$scratch" "$scratch.log"
    else
        echo "not ok - package/$name (exit code $rc, ${secs} s)"
        tail -n 40 "$scratch.log" | sed 's/^/    /'
        echo "    log: $scratch.log, scratch dir kept: $scratch"
        failed=$((failed + 1))
    fi
done
echo "$pass passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
