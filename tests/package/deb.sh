# make deb builds a Debian package (packaging/deb/mkdeb.sh). Checked here: its control fields
# (the version from the release, Depends naming the package of every library the binary links,
# gnuplot recommended), its files (stripped hardened binary, compressed man pages, copyright,
# changelogs), lintian (no error or warning); then dpkg installs it into a scratch root whose
# package database is a copy of this system's (dpkg checks the Depends against what is really
# installed here), and from another folder the installed dipmap prints its release, runs
# `dipmap demo` on the installed data, man shows dipmap(1) and dipmap-demo(1), the bash
# completion loads; dpkg --purge then removes it and nothing of it is left. The system's own
# dpkg database and /usr are never touched. DIPMAP_REQUIRE_DEB=1 (CI) fails instead of
# skipping when a tool is missing.
. "$TESTS/cli/lib/lib.sh"
for t in dpkg dpkg-deb dpkg-buildflags dpkg-shlibdeps lintian readelf git make; do
    command -v "$t" >/dev/null ||
        require_or_skip DIPMAP_REQUIRE_DEB "$t is not installed (apt-get install dpkg-dev lintian binutils)"
done
[ -f /var/lib/dpkg/status ] || require_or_skip DIPMAP_REQUIRE_DEB "not a Debian system (no /var/lib/dpkg/status)"
top=$PWD
# built from the checkout into this folder only (DEB_BUILD, DEB_OUT): the checkout is not written
make -s -C "$REPO" deb DEB_BUILD="$top/build" DEB_OUT="$top" >make.log 2>&1 || { tail -n 30 make.log >&2; fail "make deb"; }
deb=$(ls "$top"/dipmap_*.deb) || fail "no .deb written: $(tail -n 5 make.log)"
field() { dpkg-deb -f "$deb" "$1"; }
arch=$(dpkg --print-architecture)
release=$("$top/build/dipmap" --version | sed -n '1s/^dipmap \([^ ]*\) (commit .*)$/\1/p')
[ -n "$release" ] || fail "the built binary's --version: $("$top/build/dipmap" --version | head -n 1)"
# README "Install": 0.1.0 -> 0.1.0-1, 0.1.0-3-gabc -> 0.1.0+3.gabc-1, 0.1.0-dev -> 0.1.0~dev-1
case $release in
*-dev) want=${release%-dev}~dev-1 ;;
*-*) want=$(echo "$release" | sed 's/-/+/; s/-/./g')-1 ;;
*) want=$release-1 ;;
esac
[ "$(field Package)" = dipmap ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$want" ] || fail "Version $(field Version), release $release: want $want"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
[ "$(basename "$deb")" = "dipmap_${want}_$arch.deb" ] || fail "file name $(basename "$deb")"
field Recommends | grep -q 'gnuplot' || fail "gnuplot not recommended: $(field Recommends)"
depends=$(field Depends)
# every library the binary links (NEEDED) is provided by a package Depends names, with a version
mkdir x && dpkg-deb -x "$deb" x || fail "dpkg-deb -x"
needed=$(readelf -W -d x/usr/bin/dipmap | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ "$(echo "$needed" | wc -l)" -ge 7 ] || fail "NEEDED: $needed"
for so in $needed; do
    path=$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
    [ -n "$path" ] || fail "$so: not found by ldconfig"
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
    [ -n "$pkg" ] || pkg=$(dpkg -S "$path" | head -n 1 | cut -d: -f1)
    echo ", $depends," | grep -Eq ", $pkg \(>= [^)]+\)," || fail "$so ($pkg) is not in Depends: $depends"
done
for lib in libcurl4 libsqlite3-0 libpcre2-8-0 libcjson1 libmicrohttpd12 zlib1g libssl3 libc6; do
    echo ", $depends," | grep -q ", $lib " || fail "Depends lacks $lib: $depends"
done
# the files: a stripped, hardened binary (PIE, full RELRO, stack protector, fortified calls)
readelf -W -S x/usr/bin/dipmap | grep -q '\.debug_info' && fail "the binary is not stripped"
readelf -W -h x/usr/bin/dipmap | grep -q 'Type: *DYN' || fail "not PIE"
readelf -W -l x/usr/bin/dipmap | grep -q GNU_RELRO || fail "no RELRO"
readelf -W -d x/usr/bin/dipmap | grep -q 'BIND_NOW' || fail "no BIND_NOW"
readelf -W --dyn-syms x/usr/bin/dipmap | grep -q '__stack_chk_fail' || fail "no stack protector"
readelf -W --dyn-syms x/usr/bin/dipmap | grep -q '__[a-z]*_chk' || fail "no fortified calls"
for f in usr/share/man/man1/dipmap.1.gz usr/share/man/man1/dipmap-demo.1.gz \
    usr/share/doc/dipmap/copyright usr/share/doc/dipmap/changelog.gz usr/share/doc/dipmap/changelog.Debian.gz \
    usr/share/dipmap/scripts/demo.sh usr/share/dipmap/datasets/needle.jsonl \
    usr/share/bash-completion/completions/dipmap usr/share/zsh/vendor-completions/_dipmap; do
    [ -f "x/$f" ] || fail "not in the package: $f"
done
[ -z "$(find x -name '*.1')" ] || fail "uncompressed man pages: $(find x -name '*.1')"
grep -q '^License: CC-BY-SA-3.0' x/usr/share/doc/dipmap/copyright || fail "copyright: no CC BY-SA for the NQ data"
# lintian: no error and no warning (the one override is installed with the package)
lintian --fail-on error,warning "$deb" >lintian.log 2>&1 || { cat lintian.log >&2; fail "lintian"; }
grep -E '^[EW]:' lintian.log >&2 && fail "lintian reported the above"

# dpkg into a scratch root with this system's package database (Depends checked against it)
r=$top/root
mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/var/log"
cp /var/lib/dpkg/status "$r/var/lib/dpkg/status"
: >"$r/var/lib/dpkg/available"
# everything but dpkg's own database and log
tree() { (cd "$r" && find . -path ./var -prune -o -print | sort); }
before=$(tree)
dpkg --root="$r" --log="$r/var/log/dpkg.log" --force-not-root -i "$deb" >dpkg.log 2>&1 ||
    { cat dpkg.log >&2; fail "dpkg -i"; }
dpkg --root="$r" -s dipmap | grep -qx 'Status: install ok installed' || fail "not installed: $(dpkg --root="$r" -s dipmap)"
[ "$(dpkg --root="$r" -L dipmap | grep -c '^/usr/share/man/man1/dipmap')" -ge 15 ] || fail "dpkg -L: few man pages"
# a Depends the system cannot meet is refused (the database is really consulted)
mkdir fake && dpkg-deb -R "$deb" fake &&
    sed -i 's/^Depends: /Depends: dipmap-no-such-package (>= 1), /' fake/DEBIAN/control &&
    dpkg-deb --root-owner-group -b fake fake.deb >/dev/null || fail "building the unmet-Depends copy"
dpkg --root="$r" --log="$r/var/log/dpkg.log" --force-not-root -i fake.deb >fake.log 2>&1 &&
    fail "dpkg installed a package whose Depends cannot be met"
grep -q 'dipmap-no-such-package' fake.log || fail "dpkg's refusal does not name the missing package: $(cat fake.log)"
dpkg --root="$r" --log="$r/var/log/dpkg.log" --force-not-root -i "$deb" >dpkg.log 2>&1 ||
    { cat dpkg.log >&2; fail "dpkg -i (again)"; }

# from another folder: version, the demo on the installed data, man, completion
mkdir elsewhere && cd elsewhere
unset DIPMAP_DATA
"$r/usr/bin/dipmap" --version >version.txt || fail "installed --version"
head -n 1 version.txt | grep -q "^dipmap $release (commit " || fail "version: $(head -n 1 version.txt)"
grep -qi 'libcurl' version.txt || fail "--version names no libraries: $(cat version.txt)"
"$r/usr/bin/dipmap" demo --out demo --lengths 2k >demo.log 2>&1 || { tail -n 30 demo.log >&2; fail "installed dipmap demo"; }
assert_contains demo.log "verdict (candidate vs baseline)"
[ -s demo/demo.db ] || fail "the demo wrote no store"
ls demo/*-vs-base/compare.json >/dev/null 2>&1 || fail "the demo wrote no comparison: $(ls demo)"
MANPAGER=cat MANWIDTH=100 man -M "$r/usr/share/man" dipmap >man.txt 2>man.err || { cat man.err >&2; fail "man dipmap"; }
assert_contains man.txt "dipmap-demo(1)"
MANPAGER=cat MANWIDTH=100 man -M "$r/usr/share/man" dipmap-demo >man.txt 2>man.err || { cat man.err >&2; fail "man dipmap-demo"; }
assert_contains man.txt "--lengths"
bash -c ". '$r/usr/share/bash-completion/completions/dipmap' && complete -p dipmap" >comp.txt 2>&1 ||
    fail "the bash completion does not load: $(cat comp.txt)"
cd "$top"

# purge: nothing of the package is left, and the root is as it was before
dpkg --root="$r" --log="$r/var/log/dpkg.log" --force-not-root --purge dipmap >purge.log 2>&1 ||
    { cat purge.log >&2; fail "dpkg --purge"; }
dpkg --root="$r" -s dipmap >/dev/null 2>&1 && fail "still known to dpkg after --purge"
after=$(tree)
[ "$before" = "$after" ] || fail "left after --purge: $(diff <(echo "$before") <(echo "$after") | grep '^>')"
[ -z "$(ls "$r/var/lib/dpkg/info" | grep '^dipmap\.')" ] || fail "left in dpkg's info: $(ls "$r/var/lib/dpkg/info")"
exit 0
