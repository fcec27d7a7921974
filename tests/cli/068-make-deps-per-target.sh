# Each make target installs only the packages it needs when they are missing (issue 31, build):
# plain make the build's (compiler, library headers), make demo those and gnuplot, make test
# (bench, validate) everything, make deps everything. Read from make -n with the "found"
# variables emptied, so nothing is installed: the recipes name the right deps target and the
# deps targets the right packages (no chromium or pandas for a plain build). A target whose
# packages are still missing after the install stops with exit 2 instead of looping.
. "$TESTS/cli/lib/lib.sh"
command -v make >/dev/null || skip "make is not installed"
# the make that runs this suite passes its command-line variables down in MAKEFLAGS (DEPS_TRIED=1
# when make test installed packages first): the makes below start from none of them
unset MAKEFLAGS MFLAGS MAKELEVEL DEPS_TRIED
mk() { make -s -n -C "$REPO" BUILD="$PWD/b" "$@" 2>&1; }
build=$(mk deps-build)
case $build in *"apt-get install"*build-essential*libpcre2-dev*) ;; *) fail "deps-build: $build" ;; esac
for p in chromium python3-pandas gnuplot-nox clang-format; do
    case $build in *" $p"*) fail "deps-build installs $p" ;; esac
done
plot=$(mk deps-plot)
case $plot in *"apt-get install"*gnuplot-nox*) ;; *) fail "deps-plot: $plot" ;; esac
case $plot in *chromium*) fail "deps-plot installs chromium" ;; esac
all=$(mk deps)
for p in build-essential gnuplot-nox chromium python3-pandas libxml2-utils clang-format; do
    case $all in *" $p"*) ;; *) fail "make deps does not install $p: $all" ;; esac
done
# which deps target each goal runs when its packages are missing
out=$(mk all HAVE_BUILD_DEPS=)
case $out in *"make deps-build"*"make DEPS_TRIED=1 all"*) ;; *) fail "make with no build packages: $out" ;; esac
case $out in *"make deps "* | *"make deps"$'\n'*) fail "plain make installs everything: $out" ;; esac
out=$(mk demo HAVE_PLOT_DEPS=)
case $out in *"make deps-build deps-plot"*"make DEPS_TRIED=1 demo"*) ;; *) fail "make demo without gnuplot: $out" ;; esac
out=$(mk test HAVE_DEPS=)
case $out in *"make deps"*"make DEPS_TRIED=1 test"*) ;; *) fail "make test without its tools: $out" ;; esac
# found: the targets build as usual
out=$(mk all)
case $out in *"make deps"*) fail "make installs although everything is there: $out" ;; esac
# still missing after the install: stop, do not loop
make -s -C "$REPO" BUILD="$PWD/b" all HAVE_BUILD_DEPS= DEPS_TRIED=1 >out 2>err && fail "make went on without its packages"
assert_contains err "dipmap: packages still missing after installing them: deps-build"
exit 0
