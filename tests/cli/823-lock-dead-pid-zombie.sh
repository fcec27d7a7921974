# Right after kill -9 of a run, resuming takes the lock over at once, also while the killed
# process is still a zombie (its parent has not reaped it yet: kill(pid, 0) still succeeds).
# It used to be refused ("in use by pid N") until the parent reaped it or 60 s passed.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 4
start_sim sim --dataset golden.jsonl --latency-ms 200
run_args
printf '%s\0' "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:10 --concurrency 1 \
    --db t.db --run r1 >args
python3 - <<'PY' || fail "resume while the killed run is a zombie"
import os, signal, subprocess, sys, time
argv = open("args", "rb").read().split(b"\0")[:-1]
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open("first.err", "wb"))
# wait until the run holds its lock and has sent requests
for _ in range(400):
    if os.path.exists("sim.log") and open("sim.log").read().count("/completions") >= 2:
        break
    time.sleep(0.05)
os.kill(p.pid, signal.SIGKILL)
for _ in range(100):  # killed, not reaped: a zombie
    st = open("/proc/%d/stat" % p.pid).read()
    if st[st.rindex(")") + 2] == "Z":
        break
    time.sleep(0.02)
else:
    sys.exit("the killed run did not become a zombie")
r = subprocess.run(argv, capture_output=True, timeout=120)
open("second.err", "wb").write(r.stderr)
open("second.out", "wb").write(r.stdout)
p.wait()
sys.exit(r.returncode)
PY
assert_contains second.err "taking over the lock of pid"
assert_contains second.err "(process is gone)"
assert_not_contains second.err "in use by pid"
assert_contains second.out "run r1: complete"
