#!/bin/sh
# loopkit predict: llvm-mca on many blocks batched into one process (one
# region per block) against one llvm-mca process per block (--batch 1),
# on the same blocks in the same run. Both run llvm-mca at the same two
# iteration counts and difference them, two processes at a time, so they
# do the same work and must give the same numbers. Target: batched >= 15x
# the blocks per second.
#   bench/predict-batch.sh [LOOPKIT] [ROUNDS]
set -eu
loopkit=$(cd "$(dirname "${1:-build/loopkit}")" && pwd)/$(basename "${1:-build/loopkit}")
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
rt=$(dirname "$loopkit")/lib/liblkrt.a
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tool=$(ls /usr/lib/llvm-*/bin/llvm-mca 2>/dev/null |
	sort -V | tail -n 1 | sed 's|.*/llvm-\([0-9]*\)/bin/llvm-mca|llvm-mca-\1|')
[ -n "$tool" ] || { echo "no llvm-mca installed: skipped"; exit 0; }

# Real blocks: main() of the examples and bench kernels at four flag
# sets (the kernels inline into main at -O2 and above).
bins=""
for f in "$src"/examples/run/*.c "$src"/examples/memprof/mix.c \
	"$src"/bench/kernels/*.c "$src"/tests/data/count/branchy.c; do
	name=$(basename "$f" .c)
	i=0
	for flags in "-O1" "-O2" "-O3 -march=native" "-O3 -funroll-loops"; do
		# shellcheck disable=SC2086
		if cc $flags -I"$src/rt" -I"$src/bench/kernels" -DN=1000 \
			-DM=10 -o "$tmp/$name.$i" "$f" "$rt" -lm 2>/dev/null; then
			bins="$bins $tmp/$name.$i"
		fi
		i=$((i + 1))
	done
done

now() { date +%s.%N; }

# best_time OUT ARGS...: the fastest of $rounds runs, JSON into OUT.
best_time() {
	out=$1
	shift
	best=""
	r=0
	while [ $r -lt "$rounds" ]; do
		t0=$(now)
		# shellcheck disable=SC2086
		"$loopkit" predict --json --tool "$tool" --function main \
			"$@" $bins >"$out"
		t1=$(now)
		best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN {
			t = b - a; if (m == "" || t < m) m = t; print m }')
		r=$((r + 1))
	done
	echo "$best"
}

batched=$(best_time "$tmp/batched.json")
single=$(best_time "$tmp/single.json" --batch 1)

python3 - "$tmp/batched.json" "$tmp/single.json" "$batched" "$single" \
	"$tool" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
tb, ts = float(sys.argv[3]), float(sys.argv[4])
va = [(x["hash"], x["predictions"][0]["status"],
       x["predictions"][0]["value"]) for x in a]
vb = [(x["hash"], x["predictions"][0]["status"],
       x["predictions"][0]["value"]) for x in b]
assert va == vb, "batched and one-per-block predictions differ"
n = len(a)
ok = sum(1 for x in va if x[1] == "ok")
ratio = (n / tb) / (n / ts)
print("%s, %d distinct blocks (%d ok), iterations 100 and 200:" %
      (sys.argv[5], n, ok))
print("  %-28s %8.2f s %9.1f blocks/s" % ("batched (one process)", tb, n / tb))
print("  %-28s %8.2f s %9.1f blocks/s" % ("one process per block", ts,
                                          n / ts))
print("  batched / per block: %.1fx (target >= 15x): %s" %
      (ratio, "ok" if ratio >= 15 else "BELOW TARGET"))
assert n >= 50, "fewer than 50 distinct blocks"
PY
