#!/usr/bin/env bash
# make deb: turns a `make install PREFIX=/usr DESTDIR=ROOT` tree into a Debian binary package
# with dpkg-deb. What Debian policy asks of a binary package and lintian checks: a stripped
# binary, compressed man pages, /usr/share/doc/dipmap/copyright (DEP-5, packaging/deb/copyright:
# dipmap is MIT, the NQ data CC BY-SA 3.0), changelog.gz (CHANGELOG.md) and changelog.Debian.gz,
# md5sums, Installed-Size, a lintian override for the ITP bug a package outside Debian cannot
# close, and Depends computed by dpkg-shlibdeps from the libraries the binary
# links (with the minimum versions of their symbols files); gnuplot is Recommended (plots).
# The Debian version comes from the release dipmap --version prints: 0.1.0 -> 0.1.0-1,
# 0.1.0-3-gabc1234 -> 0.1.0+3.gabc1234-1, 0.1.0-dev -> 0.1.0~dev-1.
# usage: mkdeb.sh ROOT RELEASE COMMIT OUTDIR   (DEB_MAINTAINER overrides the Maintainer field;
#        SOURCE_DATE_EPOCH, default the commit's time, dates the changelog and the files)
set -euo pipefail
root=${1:?usage: mkdeb.sh ROOT RELEASE COMMIT OUTDIR}
release=${2:?release}
commit=${3:?commit}
outdir=${4:?outdir}
here=$(cd "$(dirname "$0")" && pwd)
maintainer=${DEB_MAINTAINER:-dipmap authors <dipmap@users.noreply.github.com>}
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
    command -v "$tool" >/dev/null || { echo "make deb: $tool not found (apt-get install dpkg-dev binutils)" >&2; exit 2; }
done
[ -x "$root/usr/bin/dipmap" ] || { echo "make deb: $root/usr/bin/dipmap missing (make install PREFIX=/usr DESTDIR=$root)" >&2; exit 2; }
root=$(cd "$root" && pwd)

upstream=$(printf '%s' "$release" | sed 's/-dev$/~dev/; s/-/+/; s/-/./g')
version=$upstream-1
arch=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

# the binary: no debug sections (a -dbgsym package is not made)
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/dipmap"
# man pages compressed (policy 12.1); the reproducible way
find "$root/usr/share/man" -name '*.1' -exec gzip -9nf {} +
doc=$root/usr/share/doc/dipmap
rm -f "$doc/LICENSE" "$doc/CHANGELOG.md" # the license is in copyright; the changelog below
install -m 644 "$here/copyright" "$doc/copyright"
gzip -9nc "${CHANGELOG:-CHANGELOG.md}" >"$doc/changelog.gz"
printf '%s\n' "dipmap ($version) unstable; urgency=medium" "" \
    "  * Built by make deb from dipmap $release (commit $commit)." "" \
    " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n >"$doc/changelog.Debian.gz"
chmod 644 "$doc"/*
install -D -m 644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/dipmap"
find "$root" -type d -exec chmod 755 {} +

# Depends: what dpkg-shlibdeps finds for the binary's NEEDED libraries on this system
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: dipmap\n\nPackage: dipmap\nArchitecture: any\n' >"$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O "-e$root/usr/bin/dipmap" 2>"$work/shlibdeps.err") ||
    { cat "$work/shlibdeps.err" >&2; exit 1; }
depends=${shlibs#shlibs:Depends=}
[ -n "$depends" ] && [ "$depends" != "$shlibs" ] || { echo "make deb: dpkg-shlibdeps said: $shlibs" >&2; exit 1; }

rm -rf "$root/DEBIAN"
mkdir -m 755 "$root/DEBIAN"
(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: dipmap
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: gnuplot-nox | gnuplot
Section: utils
Priority: optional
Description: maps where an LLM's accuracy drops in long prompts
 dipmap measures how a language model's accuracy depends on where the
 evidence sits in a long prompt ("lost in the middle"), against any
 OpenAI-compatible server, and turns two such maps into paired statistical
 regression verdicts for continuous integration (exit codes, JUnit, Markdown
 and HTML reports with plots).
 .
 The package holds the dipmap program, its prompt templates, golden sets,
 haystacks and tokenizer files, the man pages dipmap(1) and dipmap-COMMAND(1),
 bash and zsh completions, and "dipmap demo", an offline demonstration
 against a simulated model server.
EOF
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
mkdir -p "$outdir"
deb=$outdir/dipmap_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "deb: $deb"
