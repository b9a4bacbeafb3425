#!/bin/sh
# The figures behind the L1 filter's default threshold
# (doc/loopkit-filter.md): the warm D1 miss ratio loopkit filter reports
# for the kernel function of L1-resident and streaming kernels, scalar
# and vectorised, at sizes on both sides of the L1D.
#   bench/filter-ratios.sh [LOOPKIT] [L1D-BYTES]
set -eu
loopkit=$(cd "$(dirname "${1:-build/loopkit}")" && pwd)/$(basename "${1:-build/loopkit}")
l1d=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
rt=$(dirname "$loopkit")/lib/liblkrt.a
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# kernel source, bytes per element of N, sizes
cases="triad:examples/run/triad.c:24:256 1000 1800 2200 4000 100000
dot:examples/run/dot.c:16:1000 2800 3500 100000
sum:tests/data/kernels/sum.c:8:1000 5000 7000 100000"
flagsets="scalar:-O2 -fno-tree-vectorize
sse2:-O2
avx2:-O3 -mavx2"

printf '%-6s %-7s %7s %9s  %-8s %9s %9s\n' kernel flags N bytes verdict \
	"ratio%" "reads%"
echo "$cases" | while IFS=: read -r name file per sizes; do
	echo "$flagsets" | while IFS=: read -r fname flags; do
		for n in $sizes; do
			b=$tmp/$name-$fname-$n
			# shellcheck disable=SC2086
			cc $flags -g -I"$src/rt" -DN=$n "$src/$file" "$rt" \
				-lm -o "$b"
			"$loopkit" filter --json ${l1d:+--l1d-size $l1d} \
				"$b" >"$b.json"
			python3 - "$b.json" "$name" "$fname" "$n" \
				"$((n * per))" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
print("%-6s %-7s %7s %9s  %-8s %9.4f %9.4f" % (sys.argv[2], sys.argv[3],
      sys.argv[4], sys.argv[5], v["verdict"], 100 * v.get("ratio", -1),
      100 * v.get("read_ratio", -1)))
PY
		done
	done
done
