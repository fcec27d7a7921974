# Report folders are unique per run: "a b" and "a/b" used to both write reports/a_b (the second
# overwrote the first); a name escape_filename keeps is its own folder, any other name gets its
# slug plus 8 hex digits of its SHA-256. `runs` aligns non-ASCII names by terminal columns; a run
# name that starts with '-' is reported after '--', and the unknown-option error says so.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 2
start_sim sim --dataset golden.jsonl
run_args
for n in "a b" "a/b" "🚀run" "plain-1.x"; do
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db t.db --run "$n"
done
h() { printf '%s' "$1" | sha256sum | cut -c1-8; }
for n in "a b" "a/b" "🚀run" "plain-1.x"; do
    expect_code 0 "$DIPMAP" report "$n" --db t.db --no-plots --format json
done
[ -f "reports/a_b-$(h 'a b')/summary.json" ] || fail "no reports/a_b-$(h 'a b')"
[ -f "reports/a_b-$(h 'a/b')/summary.json" ] || fail "no reports/a_b-$(h 'a/b')"
[ -f "reports/____run-$(h '🚀run')/summary.json" ] || fail "no reports/____run-$(h '🚀run')"
[ -f "reports/plain-1.x/summary.json" ] || fail "a name kept as is needs no hash"
[ ! -e reports/a_b ] || fail "reports/a_b must not exist"
for n in "a b" "a/b"; do
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["run"]["name"] == sys.argv[2]' \
        "reports/a_b-$(h "$n")/summary.json" "$n" || fail "$n's folder holds another run"
done
# plot uses the same folder rule
expect_code 0 "$DIPMAP" plot "a b" --db t.db --format svg
[ -f "reports/a_b-$(h 'a b')/ucurve.svg" ] || fail "plot wrote elsewhere: $(cat out)"
# runs: the MODEL column starts at the same terminal column on every line ("🚀run" is 5
# columns in 7 bytes)
expect_code 0 "$DIPMAP" runs --db t.db
python3 - <<'PY' || fail "runs columns not aligned: $(cat out)"
import unicodedata
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)
lines = open("out", encoding="utf-8").read().splitlines()
starts = {cols(l[: l.index("dipmap-sim")]) if "dipmap-sim" in l else cols(l[: l.index("MODEL")]) for l in lines}
assert len(starts) == 1, (starts, lines)
PY
# a name that starts with '-': the error says how to pass it
expect_code 2 "$DIPMAP" report -x --db t.db
assert_contains err "error: report: unknown option '-x'"
assert_contains err "an argument that starts with '-' goes after '--': dipmap report -- -x"
expect_code 2 "$DIPMAP" report --db t.db -- -x
assert_contains err "no run named '-x'"
# a new run may not be named '-x' (other commands would read it as an option); nothing stored
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:100 --db t.db --run -x
assert_contains err "error: run: a new run name may not start with '-' (got '-x')"
[ "$(q t.db "select count(*) from runs where name = '-x'")" = 0 ] || fail "run -x was stored"
