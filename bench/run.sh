#!/bin/sh
# make bench: loopkit's empty-region overhead, and the stability of its
# reduced figure across 10 separate, interleaved invocations, beside the
# baseline named in the issue (a plain rdtscp loop, min of samples) timed
# in the same rounds.
#   bench/run.sh [LOOPKIT] [ROUNDS] [INVOCATIONS]
set -eu
loopkit=$(cd "$(dirname "${1:-build/loopkit}")" && pwd)/$(basename "${1:-build/loopkit}")
rounds=${2:-3}
invocations=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cflags="-O3 -march=native"

for k in dot fadd-chain; do
	gcc $cflags -DPLAIN_RDTSCP -o "$tmp/plain-$k" "$here/kernels/$k.c"
done

# The empty region: what the runtime subtracts from every sample.
"$loopkit" run -q -o "$tmp/ovh" --json -m tsc --cflags "$cflags" \
	"$here/kernels/dot.c" >/dev/null 2>&1
ovh=$(sqlite3 "$tmp/ovh/store.db" "select min(cast(value as real)),
	max(cast(value as real)) from run_info where key like
	'%.overhead_tsc_min'")
echo "empty-region overhead (TSC ticks, min over the launch): ${ovh%|*}"
echo

primary() { # JSON file -> "value unit source flags" of the primary figure
	python3 -c 'import json,sys
r=[x for x in json.load(open(sys.argv[1]))[0]["results"] if x["primary"]][0]
print(r["value"], r["unit"], r["source"], r["flags"] or "-")' "$1"
}

spread() { # numbers on stdin -> max/min - 1 in percent
	awk 'NR==1{mn=$1;mx=$1} {if($1<mn)mn=$1; if($1>mx)mx=$1}
	     END{printf "%.2f", (mx/mn-1)*100}'
}

printf '%-6s %-11s %12s %-32s %12s %12s\n' round kernel "loopkit" \
	"(unit, source, flags)" "plain-loop" "verdict"
r=1
while [ $r -le "$rounds" ]; do
	for k in dot fadd-chain; do
		: >"$tmp/lk.$k" && : >"$tmp/pl.$k"
	done
	i=1
	while [ $i -le "$invocations" ]; do
		for k in dot fadd-chain; do
			"$loopkit" run -q --json -o "$tmp/s.$r.$i.$k" \
				-m tsc,cycles --cflags "$cflags" \
				"$here/kernels/$k.c" >"$tmp/j" 2>/dev/null
			primary "$tmp/j" >>"$tmp/lk.$k"
			"$tmp/plain-$k" >>"$tmp/pl.$k"
		done
		i=$((i + 1))
	done
	for k in dot fadd-chain; do
		lk=$(cut -d' ' -f1 "$tmp/lk.$k" | spread)
		pl=$(spread <"$tmp/pl.$k")
		label=$(head -n 1 "$tmp/lk.$k" | cut -d' ' -f2-4)
		verdict=$(awk -v a="$lk" -v b="$pl" 'BEGIN {
			print (a <= 1 ? "<=1%" : ">1%") "," \
			      (a <= b ? "not-worse" : "WORSE") }')
		printf '%-6s %-11s %11s%% %-32s %11s%% %12s\n' "$r" "$k" \
			"$lk" "($label)" "$pl" "$verdict"
	done
	r=$((r + 1))
done
echo
echo "spread = max/min - 1 of the reduced figure over $invocations separate"
echo "invocations per round; loopkit's figure is its primary one (median,"
echo "calibrated cycles where the calibration check passes, else TSC),"
echo "the plain loop's is min TSC ticks of 1000 samples of 16 calls."
