# Helpers the bench scripts share (sourced).
# fig NAME -> "wall cpu rss_mb" from NAME.time (/usr/bin/time -v), wall and cpu in seconds with
# two decimals
fig() {
    python3 - "$1.time" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
def get(k):
    return re.search(re.escape(k) + r": (.*)", t).group(1).strip()
w = get("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(w)))
cpu = float(get("User time (seconds)")) + float(get("System time (seconds)"))
print("%.2f %.2f %.1f" % (wall, cpu, int(get("Maximum resident set size (kbytes)")) / 1024.0))
PY
}
