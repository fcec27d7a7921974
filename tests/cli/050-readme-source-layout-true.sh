# The table of every file (docs/design.md "Every file"; docs/development.md "Source layout" gives the folders)
# states facts about the code; they stay true: it names every source file, main.c is the only
# file that calls exit() (usage.c's unused die() did too), the fuzz row names every libFuzzer
# target (it listed 3 of 8), and plan.c holds the --shard I/N and --shard auto parsers it is
# credited with.
. "$TESTS/cli/lib/lib.sh"
readme=$REPO/docs/design.md
table=$(sed -n '/^## Every file/,$p' "$readme")
[ -n "$table" ] || fail "docs/design.md has no 'Every file' section"
for f in "$REPO"/harness/main.c "$REPO"/harness/*/*.c; do
    b=$(basename "$f")
    case "$b:$table" in cmd_*'harness/cmd/cmd_*.c'*) continue ;; esac # one row for the commands
    case "$table" in *"$b"*) ;; *) fail "docs/design.md's file table does not name $b" ;; esac
done
grep -q '^| `harness/main.c`, `harness/cmd/` | the subcommand dispatch table (the only file that calls `exit()`)' "$REPO/docs/development.md" ||
    fail "docs/development.md's Source layout lost its main.c row"
assert_contains "$readme" '| `harness/main.c` | subcommand dispatch table; the only file that calls `exit()` |'
others=$(grep -l -E '(^|[^_a-z])exit\(' "$REPO"/harness/*.c "$REPO"/harness/*/*.c | grep -v '/main\.c$')
[ -z "$others" ] || fail "files other than main.c call exit(): $others"
row=$(grep '^| `tests/fuzz/` |' "$readme") || fail "no tests/fuzz row"
n=0
for f in "$REPO"/tests/fuzz/fuzz_*.c; do
    t=$(basename "$f" .c)
    n=$((n + 1))
    case "$row" in *"\`$t\`"*) ;; *) fail "README's fuzz row does not name $t" ;; esac
done
case "$row" in *"| $n libFuzzer targets"*) ;; *) fail "README's fuzz row does not say $n targets: $row" ;; esac
grep -q '^int plan_parse_shard(' "$REPO/harness/run/plan.c" || fail "plan.c has no --shard parser"
assert_contains "$readme" '`--shard I/N` parsing (`--shard auto` reads the scheduler'"'"'s variables: `plan_shard_auto`)'
grep -q '^int plan_shard_auto(' "$REPO/harness/run/plan.c" || fail "plan.c has no --shard auto"
