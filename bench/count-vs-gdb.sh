#!/bin/sh
# loopkit count against the reference method, gdb with one breakpoint per
# block counting hits (commands; silent; continue; end), on the same
# binaries in the same run, with one kernel call of ~100,000 loop
# iterations. Both must report the same counts. Target: loopkit >= 20x
# faster. Also timed: loopkit with int3 breakpoints only (--no-hwbp),
# where the gain is the traps flow conservation saves plus a cheaper
# round trip than gdb's.
#   bench/count-vs-gdb.sh [LOOPKIT]
set -eu
loopkit=$(cd "$(dirname "${1:-build/loopkit}")" && pwd)/$(basename "${1:-build/loopkit}")
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
rt=$(dirname "$loopkit")/lib/liblkrt.a
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v gdb >/dev/null || { echo "gdb not installed: skipped"; exit 0; }
# One call, and no reference chain: with it, a sample the runtime's
# probes judge contended waits while running the kernel outside the
# region, so gdb would count more calls than loopkit count's own run,
# which sets LK_CALIBRATE=0 (doc/method.md).
export LK_WARMUP=0 LK_STEPS=1 LK_REPETITIONS=1 LK_CALIBRATE=0

# Non-PIE, so gdb's breakpoint addresses are the link-time ones.
cc -O2 -no-pie -I"$src/rt" -DN=200000 "$src/examples/run/triad.c" "$rt" \
	-lm -o "$tmp/triad"
cc -O2 -no-pie -fno-tree-vectorize -I"$src/rt" -DN=1000 -DM=100 \
	"$src/tests/data/count/branchy.c" "$rt" -lm -o "$tmp/branchy"

now() { date +%s.%N; }

gdb_count() { # binary -> "ADDR HITS" lines on stdout
	{
		echo "set pagination off"
		echo "set confirm off"
		"$loopkit" count --json --all-blocks --no-hwbp "$1" |
			sed -n 's/.*"start": "\(0x[0-9a-f]*\)".*/\1/p' |
			while read -r a; do
				printf 'break *%s\ncommands\nsilent\ncontinue\nend\n' "$a"
			done
		echo "run >/dev/null 2>&1"
		echo "info breakpoints"
	} >"$tmp/cmds"
	gdb -batch -nx -x "$tmp/cmds" "$1" 2>/dev/null | awk '
		/^[0-9]+ +breakpoint/ { addr = $5 }
		/already hit/ { print addr, $4 }'
}

ours() { # binary options... -> "ADDR COUNT" lines
	b=$1; shift
	"$loopkit" count "$@" "$b" | awk '/^0x/ { print $1, $2 }'
}

# gdb prints 0x0000000000401136, we print 0x401136: compare as numbers.
same() {
	python3 - "$1" "$2" <<'PY'
import sys
def load(p):
    return {int(l.split()[0], 16): int(l.split()[1]) for l in open(p)}
a, b = load(sys.argv[1]), load(sys.argv[2])
# gdb lists only blocks that were hit; we list zeros too.
bad = [k for k in set(a) | set(b) if a.get(k, 0) != b.get(k, 0)]
sys.exit(1 if bad else 0)
PY
}

printf '%-9s %7s %9s %9s %9s %9s %7s %7s\n' kernel hits gdb_s count_s \
	int3_s traps ratio target
for k in triad branchy; do
	t0=$(now); ours "$tmp/$k" >"$tmp/ours"; t1=$(now)
	ours "$tmp/$k" --no-hwbp >"$tmp/int3"; t2=$(now)
	gdb_count "$tmp/$k" >"$tmp/gdb"; t3=$(now)
	same "$tmp/ours" "$tmp/gdb" || { echo "$k: counts differ from gdb"
		paste "$tmp/ours" "$tmp/gdb"; exit 1; }
	same "$tmp/int3" "$tmp/gdb" || { echo "$k: int3 counts differ"; exit 1; }
	hits=$(awk '{ s += $2 } END { print s }' "$tmp/gdb")
	traps=$("$loopkit" count --no-hwbp "$tmp/$k" |
		sed -n '1s/.* \([0-9]*\) traps.*/\1/p')
	awk -v k="$k" -v h="$hits" -v a="$t0" -v b="$t1" -v c="$t2" \
	    -v d="$t3" -v tr="$traps" 'BEGIN {
		ours = b - a; int3 = c - b; gdb = d - c
		printf "%-9s %7d %9.3f %9.3f %9.3f %9d %6.1fx %7s\n", k, h,
			gdb, ours, int3, tr, gdb / ours, ">=20x" }'
done
echo "(hits: block executions gdb trapped on; traps: int3 hits of"
echo " loopkit count --no-hwbp; ratio: gdb_s / count_s)"
