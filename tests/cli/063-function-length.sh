# No harness/**/*.c file is over 1,200 lines (prompt.c was 1,261, cmd_run.c 1,230 and
# stats/compare.c 1,206 before they were split along their concerns), and no function in
# harness/**/*.c is longer than 120 lines (counted between its column-0 braces,
# as clang-format places them) unless the comment directly above it says why, with
# "Long because:" and a reason (usage.h, "Function length"). cmd_serve_sim was 321 lines,
# stats_compute 253, cmd_report 230, parse_run_options 199, get_seq 196, cmd_show_prompt
# 185, compare_runs 177, cmd_rescore 156, cmd_plan 155.
. "$TESTS/cli/lib/lib.sh"
python3 - "$REPO/harness" <<'PY' || fail "files over 1,200 lines, or functions over 120 lines without a reason (above)"
import os, re, sys
root = sys.argv[1]
bad = 0
files = sorted(os.path.relpath(os.path.join(d, f), root)
               for d, _, fs in os.walk(root) for f in fs if f.endswith(".c"))
assert len(files) > 50, files
for f in files:
    lines = open(os.path.join(root, f), encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > 1200:
        print(f"harness/{f} is {len(lines)} lines (over 1,200): split it along its concerns")
        bad += 1
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{"):
            start = i
        elif line.startswith("}") and start is not None:
            n = i - start
            if n > 120:
                # the declaration: the lines above the brace back to a blank line or a comment
                d = start - 1
                while d > 0 and lines[d - 1].strip() and not lines[d - 1].rstrip().endswith("*/"):
                    d -= 1
                name = re.search(r"(\w+)\s*\(", " ".join(lines[d:start]))
                name = name.group(1) if name else lines[d].strip()
                comment = ""
                if d > 0 and lines[d - 1].rstrip().endswith("*/"):
                    c = d - 1
                    while c > 0 and "/*" not in lines[c]:
                        c -= 1
                    comment = " ".join(l.strip(" /*") for l in lines[c:d])
                m = re.search(r"Long because:\s*(\S.{10,})", comment)
                if not m:
                    print(f"harness/{f}:{d + 1}: {name} is {n} lines (over 120), and the comment "
                          "above it gives no 'Long because: REASON'")
                    bad += 1
            start = None
sys.exit(1 if bad else 0)
PY
