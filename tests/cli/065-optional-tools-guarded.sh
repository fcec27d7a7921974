# The programs CI requires (.ci/run exports DIPMAP_REQUIRE_GNUPLOT, _CHROMIUM, _ZSH) are checked
# through lib.sh's one guard (need_tool, has_tool, require_or_skip), which fails where CI set the
# variable: 750 and 741 fell back to a skip of their own that exited 0, 715 and 716 skipped
# without gnuplot whatever DIPMAP_REQUIRE_GNUPLOT said, so CI could pass without running them.
# No test defines its own skip().
. "$TESTS/cli/lib/lib.sh"
cd "$REPO" || fail "no repository"
tools=$(grep -o 'DIPMAP_REQUIRE_[A-Z]*' .ci/run | sort -u | sed 's/DIPMAP_REQUIRE_//' | tr 'A-Z' 'a-z')
[ -n "$tools" ] || fail ".ci/run names no DIPMAP_REQUIRE_ variable"
bad=
for t in $tools; do
    # the tools that are programs; chromium has several names (7xx-lib.bash: chromium_bin)
    hits=$(grep -nE "command -v ($t|$t-browser)( |\$)|which $t( |\$)" tests/cli/*.sh)
    [ -z "$hits" ] || bad="$bad$hits"$'\n'
done
own=$(grep -nE '^[[:space:]]*(type skip[^|]*\|\| *)?skip\(\)' tests/cli/*.sh)
[ -z "$own" ] || bad="$bad$own"$'\n'
[ -z "$bad" ] || fail "optional tools checked outside lib.sh's guard (need_tool, has_tool, require_or_skip):
$bad"
echo ok
