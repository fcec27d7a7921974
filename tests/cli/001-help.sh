# `dipmap help` lists the commands and exit codes on stdout and exits 0.
. "$TESTS/cli/lib/lib.sh"
expect_code 0 "$DIPMAP" help
assert_contains out "usage: dipmap <command> [options]"
assert_contains out "exit codes: 0 ok, 1 regression, 2 usage/input error"
assert_contains out "   version "
[ -s err ] && fail "help wrote to stderr"
# no command at all: the same help, exit 2 (usage error)
expect_code 2 "$DIPMAP"
assert_contains out "usage: dipmap <command> [options]"
# --help is an alias for help
expect_code 0 "$DIPMAP" --help
assert_contains out "commands:"
exit 0
