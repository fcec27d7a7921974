# An option row's value pointer has the C type its kind writes through (base/opt.h): OPT_LONG
# takes a long *, OPT_BOOL an int *, OPT_STRING a const char **, ... and any other pointer is a
# compile error. The rows were brace lists over `void *value`, where an OPT_LONG row pointing at
# an int compiled and parse_options() wrote 8 bytes into 4. Each kind is compiled once with its
# own type (the control: it must build) and once with another (it must not).
. "$TESTS/cli/lib/lib.sh"
command -v cc >/dev/null 2>&1 || skip "no C compiler (the check is a compile)"
check() { # check TYPE ROW EXPECT(ok|error)
    cat >row.c <<C
#include <stddef.h>
#include "base/opt.h"
#include "base/strvec.h"
int row_check(void);
int row_check(void)
{
    $1 v;
    struct option opts[] = {$2, OPT_END()};
    (void)v;
    return opts[0].type;
}
C
    if cc -std=c11 -Wall -Werror -fsyntax-only -I"$REPO/harness" row.c 2>err; then
        [ "$3" = ok ] || fail "$2 with a $1 value compiled; it must not"
    else
        [ "$3" = error ] || fail "$2 with a $1 value did not compile: $(cat err)"
        grep -q "_Generic" err || fail "$2 with a $1 value failed for another reason: $(cat err)"
    fi
}
check long 'OPT_LONG(0, "n", &v, "N", "h")' ok
check int 'OPT_LONG(0, "n", &v, "N", "h")' error
check int 'OPT_BOOL(0, "b", &v, "h")' ok
check long 'OPT_BOOL(0, "b", &v, "h")' error
check double 'OPT_DOUBLE(0, "x", &v, "X", "h")' ok
check float 'OPT_DOUBLE(0, "x", &v, "X", "h")' error
check double 'OPT_POINTS(0, "p", &v, "P", "h")' ok
check long 'OPT_POINTS(0, "p", &v, "P", "h")' error
check 'const char *' 'OPT_STRING(0, "s", &v, "S", "h")' ok
check 'char *' 'OPT_STRING(0, "s", &v, "S", "h")' error
check 'struct strvec' 'OPT_LIST(0, "l", &v, "L", "h")' ok
check 'const char *' 'OPT_LIST(0, "l", &v, "L", "h")' error
