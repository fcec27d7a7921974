#!/usr/bin/env bash
# The output README.md and docs/ quote, made by running the program instead of copied by hand:
# the end of `dipmap demo` and the candidate's dip lines (README), the demo's ordering table
# (docs/ordering.md), the demo's CPU time (README), and reports/examples/ (the candidate's report
# and the comparison, which README shows and links).
#
# usage: scripts/readme-quotes.sh DIPMAP [--check | --update]
#   --check   (default) run the demo in a scratch folder and exit 1, showing a diff, when README.md,
#             a docs/ page or reports/examples/*.md say something else; run durations, the runs' UTC stamps,
#             ports, dates, the build's commit and the CPU-time line are not compared (they
#             differ on every run)
#   --update  rewrite those blocks and the CPU-time line, and copy the new reports/examples/
#             (make readme)
# A block is the fenced block right after a line "<!-- readme-quotes: NAME -->" in README.md or
# a docs/*.md page; the CPU-time line is the README line that starts with "It needs about".
set -euo pipefail
bin=${1:?usage: readme-quotes.sh DIPMAP [--check|--update]}
mode=${2:---check}
case $mode in --check | --update) ;; *) echo "readme-quotes: unknown mode $mode" >&2; exit 2 ;; esac
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
# the files that quote the demo: README.md and every docs page with a marker
quoting=(README.md)
for f in "$repo"/docs/*.md; do
    grep -q '^<!-- readme-quotes: ' "$f" && quoting+=("docs/$(basename "$f")")
done
trap 'rm -rf "$tmp"' EXIT

# the demo as README's Quick start runs it (its defaults, reports/ under the current folder)
(
    cd "$tmp"
    TIMEFORMAT='%R %U %S'
    {
        time env -u DEMO_LENGTHS -u DEMO_DATASET -u DEMO_HAYSTACK -u DEMO_DB -u DEMO_OUT NO_COLOR=1 \
            "$bin" demo --out reports >demo.out 2>demo.err
    } 2>time.txt
) || { tail -n 20 "$tmp/demo.out" "$tmp/demo.err" >&2; echo "readme-quotes: the demo failed" >&2; exit 1; }
read -r wall user sys <"$tmp/time.txt"
cand=$(ls -d "$tmp"/reports/demo-*-cand | head -n 1)
cmp=$(ls -d "$tmp"/reports/demo-*-cand-vs-base | head -n 1)
[ -f "$cand/summary.md" ] && [ -f "$cmp/compare.md" ] || { echo "readme-quotes: no demo reports" >&2; exit 1; }

mkdir "$tmp/blocks"
rows=$(grep -cE '^   [a-z-]+ \| [0-9]+ \| ' "$tmp/demo.out" || true)
{
    sed -n '/^demo: done in/,/^  store:/p' "$tmp/demo.out"
    echo
    sed -n '/^demo: which order/,$p' "$tmp/demo.out" | head -n 3
    echo "   ...      (the $rows rows: see \"Choose an ordering\")"
} >"$tmp/blocks/demo-end"
grep '^- \*\*dip at' "$cand/summary.md" | sed 's/\\\[/[/g; s/\\\]/]/g' >"$tmp/blocks/demo-dip"
sed -n '/^demo: which order/,$p' "$tmp/demo.out" >"$tmp/blocks/demo-order"
for b in demo-end demo-dip demo-order; do
    [ -s "$tmp/blocks/$b" ] || { echo "readme-quotes: nothing for block $b in the demo's output" >&2; exit 1; }
done
load=$(awk '{ printf "%.1f", $1 }' /proc/loadavg 2>/dev/null || echo '?')
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
wall=$(awk -v w="$wall" 'BEGIN { printf "%.1f", w }')
cpu_line="It needs about $cpu CPU-seconds ($wall s wall when \`make readme\` last measured it, on a 2-core machine at load average $load; BENCHMARKS.md \"Demo\"),"

# each quoting file with every marked block replaced by the files in $tmp/blocks (and README's
# CPU line); the names seen go to $tmp/seen, checked once over all files
mkdir "$tmp/new"
: >"$tmp/seen"
for f in "${quoting[@]}"; do
    mkdir -p "$tmp/new/$(dirname "$f")"
    awk -v dir="$tmp/blocks" -v cpu="$cpu_line" -v seenf="$tmp/seen" -v readme="$([ "$f" = README.md ] && echo 1)" '
        state == 0 && /^<!-- readme-quotes: [a-z-]+ -->$/ {
            name = $3; print; state = 1; next
        }
        state == 1 {
            if ($0 !~ /^```/) { print "readme-quotes: no fenced block after the marker of " name > "/dev/stderr"; exit 3 }
            print; f = dir "/" name
            if ((getline line < f) <= 0) { print "readme-quotes: unknown block " name > "/dev/stderr"; exit 3 }
            do print line; while ((getline line < f) > 0)
            close(f); print name >> seenf; state = 2; next
        }
        state == 2 { if ($0 ~ /^```/) { print; state = 0 } next }
        readme && /^It needs about [0-9.]+ CPU-seconds / { print cpu; print "cpu" >> seenf; next }
        { print }
        END { if (state != 0) { print "readme-quotes: unterminated block " name > "/dev/stderr"; exit 3 } }' \
        "$repo/$f" >"$tmp/new/$f"
done
for b in demo-end demo-dip demo-order cpu; do
    [ "$(grep -cx "$b" "$tmp/seen")" = 1 ] || {
        echo "readme-quotes: README.md and docs/ must hold the marker $b (or README's CPU-time line) once" >&2
        exit 3
    }
done

examples=(demo-cand/summary.md demo-cand/summary.json demo-cand/report.html demo-cand/ucurve.svg
    demo-cand/ucurve.png demo-cand/heatmap.svg demo-cand/heatmap.png compare/compare.md
    compare/compare.html compare/compare.svg compare/compare.png)
src_of() {
    case $1 in demo-cand/*) echo "$cand/${1#demo-cand/}" ;; compare/*) echo "$cmp/${1#compare/}" ;; esac
}

if [ "$mode" = --update ]; then
    for f in "${quoting[@]}"; do cp "$tmp/new/$f" "$repo/$f"; done
    for f in "${examples[@]}"; do
        mkdir -p "$repo/reports/examples/$(dirname "$f")"
        cp "$(src_of "$f")" "$repo/reports/examples/$f"
    done
    echo "readme-quotes: ${quoting[*]} and reports/examples/ rewritten from a demo of $cpu CPU-seconds ($wall s wall)"
    exit 0
fi

# --check: what differs from run to run is masked on both sides
norm() {
    sed -E 's/demo-[0-9]{8}-[0-9]{6}/demo-STAMP/g
        s#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g
        s/\b[0-9a-f]{12}(-dirty)?\b/COMMIT/g
        s/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?Z?/DATE/g
        s/^(demo: done in )[0-9]+ s \(baseline run [0-9]+ s, candidate run [0-9]+ s, ordering [0-9]+ s, compare and reports [0-9]+ s\)/\1N s (durations)/
        s/^It needs about [0-9.]+ CPU-seconds .*/It needs about N CPU-seconds (measured)/' "$1"
}
bad=0
for f in "${quoting[@]}"; do
    diff -u <(norm "$repo/$f") <(norm "$tmp/new/$f") >"$tmp/readme.diff" || {
        echo "readme-quotes: $f's quoted output is not what the program prints now (make readme):" >&2
        cat "$tmp/readme.diff" >&2
        bad=1
    }
done
for f in demo-cand/summary.md compare/compare.md; do
    diff -u <(norm "$repo/reports/examples/$f") <(norm "$(src_of "$f")") >"$tmp/ex.diff" || {
        echo "readme-quotes: reports/examples/$f is not what the demo writes now (make readme):" >&2
        head -n 40 "$tmp/ex.diff" >&2
        bad=1
    }
done
[ "$bad" = 0 ] && echo "readme-quotes: ${quoting[*]} and reports/examples/ agree with the demo"
exit "$bad"
