# Helpers for the report/plot CLI tests (7xx). Sourced after lib.sh.

# The store fixture: tests/unit/test_report --make-store (fills a real SQLite
# store through store.h). It sits in the build folder next to the binary, or
# in build/ when the binary is ./dipmap.
FIXTURE=$(dirname "$DIPMAP")/tests/unit/test_report
[ -x "$FIXTURE" ] || FIXTURE=$REPO/build/tests/unit/test_report
[ -x "$FIXTURE" ] || fail "store fixture $FIXTURE not built (make builds it)"

# make_run ARGS...: add one run to a store (see test_report.c make_store)
make_run() {
    "$FIXTURE" --make-store "$@" || fail "fixture: could not make run ($*)"
}

# png_size FILE: "WIDTH HEIGHT" from the IHDR chunk; fails unless FILE is a PNG
png_size() {
    python3 - "$1" <<'PY' || fail "$1 is not a PNG"
import struct, sys
d = open(sys.argv[1], 'rb').read(32)
assert d[:8] == b'\x89PNG\r\n\x1a\n' and d[12:16] == b'IHDR', 'no PNG signature/IHDR'
w, h = struct.unpack('>II', d[16:24])
print(w, h)
PY
}

# svg_curves FILE SUFFIX: for each plotted group whose key label ends in
# SUFFIX, print "LABEL POINTS" (POINTS = vertices of its drawn line, after the
# key sample). Parses the SVG as XML, so a broken file fails.
svg_curves() {
    pylib - "$1" "$2" <<'PY' || fail "$1: cannot parse SVG"
import re, sys, gnuplot_svg as svg
for label, g in svg.plot_groups(sys.argv[1]):
    if label is None or not label.endswith(sys.argv[2]):
        continue
    best = 0
    for p in g.iter(svg.NS + 'path'):
        # "M key-sample L key-end M x,y L x,y ..." : count vertices after the 2nd M
        subpaths = re.split(r'M', p.get('d') or '')[1:]
        for sp in subpaths[1:]:
            best = max(best, len(re.findall(r'[-\d.]+,[-\d.]+', sp)))
    print(label.replace(' ', '_'), best)
PY
}

# chromium_bin: the Chromium binary, or nothing
chromium_bin() {
    command -v chromium || command -v chromium-browser || true
}

# chromium_run ARGS...: headless Chromium with a fresh profile, no network extras
chromium_run() {
    local profile
    profile=$(mktemp -d "${TMPDIR:-/tmp}/dipmap-chromium.XXXXXX")
    timeout 60 "$(chromium_bin)" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --disable-dev-shm-usage --user-data-dir="$profile" "$@" 2>chromium.log
    local rc=$?
    rm -rf "$profile"
    return $rc
}
