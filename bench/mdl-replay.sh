#!/bin/sh
# MDL replay vs the native measurement on kernelified suite kernels:
# each KERNEL (default: a few streaming ones) x {gcc, clang} x {-O2,
# -O3 -march=native} is kernelified, built, measured natively (the
# lowest of three launches' median cycles per call) and replayed at L1;
# native per loop iteration = cycles per call / the loop block's count
# per call (loopkit count). Prints each pair, then the median and p90
# of |replay / native - 1| (goal: median <= 5 %), and the replay at
# L1, L2, L3 and RAM per loop iteration.
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
printf '%-28s %10s %10s %8s %8s %8s %8s %8s %6s\n' binary native replay \
	ratio L1 L2 L3 RAM kept
for f in gen/*.c; do
	k=$(basename "$f" .c)
	fn=$(sed -n 's/^LK_KERNEL void \([a-z_0-9]*\)(void)$/\1/p' "$f")
	for cc in gcc clang; do
		for fl in -O2 "-O3 -march=native"; do
			tag=$cc$(echo "$fl" | tr -d ' =-')
			b=bin/$k.$tag
			$cc $fl -I"$here/rt" "$f" "$build/lib/liblkrt.a" -lm \
				-o "$b" 2>/dev/null || continue
			native=$(for i in 1 2 3; do "$b"; done 2>&1 | awk \
				'/cycles\/step/ { if (m == "" || $4 < m) m = $4 }
				 END { print m }')
			for l in L1 L2 L3 RAM; do
				"$lk" mdl replay "$b" --function "$fn" --level $l \
					--json -o store -q >"$b.$l.json" 2>"$b.err" ||
					echo '{"status": "error"}' >"$b.$l.json"
			done
			"$lk" count "$b" --function "$fn" --json >"$b.count" \
				2>/dev/null || echo '[]' >"$b.count"
			python3 - "$b" "$native" <<'PY'
import json, sys
b, native = sys.argv[1], float(sys.argv[2] or 0)
d = {l: json.load(open("%s.%s.json" % (b, l))) for l in ("L1", "L2", "L3", "RAM")}
if d["L1"]["status"] != "ok":
    print("%-28s refused: %s" % (b[4:], d["L1"].get("reason")))
    sys.exit(0)
loop = int(d["L1"]["loop"], 16)
count = [c["count"] for c in json.load(open(b + ".count"))
         if int(c["start"], 16) == loop]
iters = count[0] if count else 0
per = {l: d[l].get("cycles_per_iteration", float("nan")) for l in d}
nat = native / iters if iters else float("nan")
print("%-28s %10.4g %10.4g %8.3f %8.4g %8.4g %8.4g %8.4g %6s" % (
    b[4:], nat, per["L1"], per["L1"] / nat if iters else float("nan"),
    per["L1"], per["L2"], per["L3"], per["RAM"], d["L1"]["kept_trips"]))
PY
		done
	done
done | tee table
python3 - table <<'PY'
import math, sys
r = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 9 and f[3] != "nan":
        r.append(abs(float(f[3]) - 1))
r.sort()
if r:
    q = lambda p: r[min(len(r) - 1, int(math.ceil(p * len(r))) - 1)]
    print("replay vs native at L1: %d loops, median |d| %.1f %%, p90 %.1f %%"
          % (len(r), 100 * q(0.5), 100 * q(0.9)))
PY
