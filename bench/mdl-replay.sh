#!/bin/sh
# MDL replay vs the native measurement on kernelified suite kernels:
# each KERNEL (default: a few streaming ones) x {gcc, clang} x {-O2,
# -O3 -march=native} is kernelified, built, measured natively (three
# launches) and replayed at L1; native per loop iteration = its figure
# per call / the loop block's count per call (loopkit count). The
# replay at L1 is its least sample at its campaign's clock (tsc-least,
# as the database counts), so the native figure is the same thing: the
# least of the launches' least TSC ticks per call at that clock. Beside
# it, the baseline: against the lowest of the launches' median
# calibrated cycles (the comparison until 2026-12-02). Prints each
# pair, then the median and p90 of |replay / native - 1| (goal: median
# <= 5 %), and the replay at L1, L2, L3 and RAM per loop iteration.
#
#   bench/mdl-replay.sh [BUILD_DIR] [KERNEL...]   (default: build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
[ $# -gt 0 ] && shift
kernels=${*:-jacobi-1d jacobi-2d fdtd-2d gemver mvt}
lk=$build/loopkit
work=$(mktemp -d /tmp/mdl-replay.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work"
mkdir gen bin
for k in $kernels; do
	"$lk" gen -q --no-verify "$here/kernels/$k.c" \
		--transform original+kernelify -o gen/$k 2>/dev/null ||
		echo "$k: kernelify failed" >&2
done
for f in gen/*/*.c; do mv "$f" "$(dirname "$f").c"; done
printf '%-28s %10s %10s %8s %8s %8s %8s %8s %8s %6s\n' binary native \
	replay ratio ratio-med L1 L2 L3 RAM kept
for f in gen/*.c; do
	k=$(basename "$f" .c)
	fn=$(sed -n 's/^LK_KERNEL void \([a-z_0-9]*\)(void)$/\1/p' "$f")
	for cc in gcc clang; do
		for fl in -O2 "-O3 -march=native"; do
			tag=$cc$(echo "$fl" | tr -d ' =-')
			b=bin/$k.$tag
			$cc $fl -I"$here/rt" "$f" "$build/lib/liblkrt.a" -lm \
				-o "$b" 2>/dev/null || continue
			for i in 1 2 3; do "$b"; done >"$b.native" 2>&1
			# the least of "tsc ticks/step  min X  median Y"
			least=$(awk '/tsc ticks\/step/ {
				if (m == "" || $4 < m) m = $4 } END { print m }' \
				"$b.native")
			# the lowest "cycles/step (tsc-calibrated)  median Z"
			native=$(awk '/cycles\/step/ {
				if (m == "" || $4 < m) m = $4 } END { print m }' \
				"$b.native")
			for l in L1 L2 L3 RAM; do
				"$lk" mdl replay "$b" --function "$fn" --level $l \
					--json -o store -q >"$b.$l.json" 2>"$b.err" ||
					echo '{"status": "error"}' >"$b.$l.json"
			done
			"$lk" count "$b" --function "$fn" --json >"$b.count" \
				2>/dev/null || echo '[]' >"$b.count"
			python3 - "$b" "$native" "$least" <<'PY'
import json, sys
b, native, least = sys.argv[1], float(sys.argv[2] or 0), float(sys.argv[3] or 0)
d = {l: json.load(open("%s.%s.json" % (b, l))) for l in ("L1", "L2", "L3", "RAM")}
if d["L1"]["status"] != "ok":
    print("%-28s refused: %s" % (b[4:], d["L1"].get("reason")))
    sys.exit(0)
loop = int(d["L1"]["loop"], 16)
count = [c["count"] for c in json.load(open(b + ".count"))
         if int(c["start"], 16) == loop]
iters = count[0] if count else 0
per = {l: d[l].get("cycles_per_iteration", float("nan")) for l in d}
nan = float("nan")
nat = least * d["L1"]["clock"] / iters if iters and least else nan
med = native / iters if iters and native else nan
print("%-28s %10.4g %10.4g %8.3f %8.3f %8.4g %8.4g %8.4g %8.4g %6s" % (
    b[4:], nat, per["L1"], per["L1"] / nat, per["L1"] / med,
    per["L1"], per["L2"], per["L3"], per["RAM"], d["L1"]["kept_trips"]))
PY
		done
	done
done | tee table
python3 - table <<'PY'
import math, sys
def summary(col, what):
    r = []
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) == 10 and f[col] != "nan":
            r.append(abs(float(f[col]) - 1))
    r.sort()
    if r:
        q = lambda p: r[min(len(r) - 1, int(math.ceil(p * len(r))) - 1)]
        print("replay vs native at L1%s: %d loops, median |d| %.1f %%, "
              "p90 %.1f %%" % (what, len(r), 100 * q(0.5), 100 * q(0.9)))
summary(3, " (least sample, both at the replay's clock)")
summary(4, " (baseline: native median calibrated)")
PY
