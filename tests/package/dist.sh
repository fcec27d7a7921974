# make dist writes dipmap-RELEASE.tar.gz; unpacked in a folder outside any git checkout it
# holds every committed file (and nothing else but .tarball-version), builds, says its release
# and commit from .tarball-version (dipmap --version), and passes there what can differ outside
# a checkout: the unit tests, the end-to-end acceptance tests (90x, -e2e-) and every CLI test that calls
# git (002 version, 056, 066; a test that needs a checkout says so and skips). Not the whole
# make test: the tarball is git archive of the same commit, so the file list check above covers
# what the rest would, and CI runs the whole suite on the clone (a second whole suite here cost
# 10 more minutes of CI). The git-calling set is found by grep, so a new one is run here too.
. "$TESTS/cli/lib/lib.sh"
command -v git >/dev/null || skip "git is not installed"
git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1 || skip "the source is not a git checkout"
work=$PWD
# a clean clone of the committed tree, so the test never writes into the caller's checkout
git clone -q "$REPO" src || fail "git clone"
release=$(git -C src describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//')
release=${release:-$(sed -n 's/^VERSION := //p' src/Makefile)-dev}
(cd src && make -s dist BUILD=build-dist) >dist.log 2>&1 || { cat dist.log >&2; fail "make dist"; }
tarball=$(ls src/dipmap-*.tar.gz) || fail "no tarball"
name=$(basename "$tarball" .tar.gz)
[ "$name" = "dipmap-$release" ] || fail "tarball $name, release $release"
mkdir out && tar -xzf "$tarball" -C out || fail "tar -x"
cd "out/$name"
git rev-parse --git-dir >/dev/null 2>&1 && fail "the unpacked tarball is inside a git checkout"
[ -f .tarball-version ] || fail "no .tarball-version"
[ ! -e .git ] || fail ".git in the tarball"
commit=$(git -C "$work/src" rev-parse --short=12 HEAD)
# the same files as the commit
git -C "$work/src" ls-files | sort >"$work/committed"
find . -type f ! -name .tarball-version | sed 's|^\./||' | sort >"$work/packed"
diff "$work/committed" "$work/packed" >&2 || fail "the tarball's files differ from the commit's"
[ "$(cat .tarball-version)" = "$release $commit" ] || fail ".tarball-version: $(cat .tarball-version)"
make -j2 >build.log 2>&1 || { tail -n 30 build.log >&2; fail "make in the tarball"; }
./dipmap --version >v.txt || fail "--version"
head -n 1 v.txt | grep -qxF "dipmap $release (commit $commit)" || fail "version line: $(head -n 1 v.txt)"
# run.sh's TESTS (this checkout's tests folder) would be read there as a name pattern
# (and under make test-package, the parent make's MAKEFLAGS would add "Leaving directory" lines)
sets="test_ -e2e- $(grep -lw git tests/cli/*.sh | sed 's|.*/||; s|\.sh$||' | tr '\n' ' ')"
case " $sets " in *" 002-version "*) ;; *) fail "the git-calling tests were not found: $sets" ;; esac
passed=0
for set in $sets; do
    # (make test exits 1 also when a set only skipped: judged by its summary line below)
    env -u TESTS -u DIPMAP -u REPO -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make test TESTS=$set \
        >test.log 2>&1
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' test.log | tail -n 1)
    echo "$summary" | grep -Eq '^[0-9]+ passed, 0 failed' ||
        { grep -v '^ok' test.log | tail -n 40 >&2; fail "make test TESTS=$set in the tarball: $summary"; }
    # a skip here must be a test that needs a checkout saying so
    # (run.sh ends each line with the test's time: "(not a git checkout) [1.3 s]")
    if grep '^skip - ' test.log | grep -vE '\(not a git checkout\)( \[[0-9.]+ s\])?$' >&2; then
        fail "$set: skipped in the tarball for another reason"
    fi
    passed=$((passed + ${summary%% *}))
    echo "$set: $summary"
done
[ "$passed" -ge 30 ] || fail "only $passed tests passed in the tarball"
exit 0
