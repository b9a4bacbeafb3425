#!/bin/sh
# make bench: loopkit's empty-region overhead, and the stability of its
# reduced figure across 10 separate, interleaved invocations, beside the
# baseline named in the issue (a plain rdtscp loop, min of samples) timed
# in the same rounds.
#   bench/run.sh [LOOPKIT] [ROUNDS] [INVOCATIONS]
# With BENCH=stability in the environment, stop after the stability table.
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

cycles() { # JSON file -> "value unit source flags" of the cycles figure
	python3 -c 'import json,sys
r=[x for x in json.load(open(sys.argv[1]))[0]["results"]
   if x["metric"]=="cycles"][0]
print(r["value"], r["unit"], r["source"], r["flags"] or "-")' "$1"
}

spread() { # numbers on stdin -> max/min - 1 in percent
	awk 'NR==1{mn=$1;mx=$1} {if($1<mn)mn=$1; if($1>mx)mx=$1}
	     END{printf "%.2f", (mx/mn-1)*100}'
}

# Two loopkit methods: the default (3 launches of 30 samples, their 25th
# percentile: robust to whole launches slowed by co-tenants) and one
# launch's median, the naive method, for comparison.
naive="-p 1 -r 50 --reducer median"

printf '%-6s %-11s %10s %10s %10s  %-s\n' round kernel default \
	"1xmedian" plain "verdict (default; 1xmedian) [unit source]"
r=1
while [ $r -le "$rounds" ]; do
	for k in dot fadd-chain; do
		: >"$tmp/lk.$k" && : >"$tmp/lr.$k" && : >"$tmp/pl.$k"
	done
	i=1
	while [ $i -le "$invocations" ]; do
		for k in dot fadd-chain; do
			"$loopkit" run -q --json -o "$tmp/s.$r.$i.$k" \
				-m tsc,cycles --cflags "$cflags" \
				"$here/kernels/$k.c" >"$tmp/j" 2>/dev/null
			cycles "$tmp/j" >>"$tmp/lk.$k"
			# shellcheck disable=SC2086
			"$loopkit" run -q --json -o "$tmp/r.$r.$i.$k" \
				$naive -m tsc,cycles --cflags "$cflags" \
				"$here/kernels/$k.c" >"$tmp/j" 2>/dev/null
			cycles "$tmp/j" >>"$tmp/lr.$k"
			"$tmp/plain-$k" >>"$tmp/pl.$k"
		done
		i=$((i + 1))
	done
	for k in dot fadd-chain; do
		lk=$(cut -d' ' -f1 "$tmp/lk.$k" | spread)
		lr=$(cut -d' ' -f1 "$tmp/lr.$k" | spread)
		pl=$(spread <"$tmp/pl.$k")
		label=$(head -n 1 "$tmp/lk.$k" | cut -d' ' -f2-3)
		bad=$(cat "$tmp/lk.$k" "$tmp/lr.$k" | grep -c unreliable || true)
		[ "$bad" -eq 0 ] || label="$label, $bad unreliable"
		bad=$(cat "$tmp/lk.$k" "$tmp/lr.$k" | grep -c contended || true)
		[ "$bad" -eq 0 ] || label="$label, $bad contended"
		verdict=$(awk -v a="$lk" -v c="$lr" -v b="$pl" 'BEGIN {
			printf "%s,%s; %s,%s", (a <= 1 ? "<=1%" : ">1%"),
			       (a <= b ? "not-worse" : "WORSE"),
			       (c <= 1 ? "<=1%" : ">1%"),
			       (c <= b ? "not-worse" : "WORSE") }')
		printf '%-6s %-11s %9s%% %9s%% %9s%%  %s [%s]\n' "$r" "$k" \
			"$lk" "$lr" "$pl" "$verdict" "$label"
	done
	r=$((r + 1))
done
echo
echo "spread = max/min - 1 of the reduced figure over $invocations separate"
echo "invocations per round, interleaved. loopkit's figure is its cycles"
echo "figure (PMU, else TSC-calibrated; 'unreliable' counts invocations whose"
echo "per-kernel check flagged it, 'contended' those whose figure rests on"
echo "samples the runtime's probes saw on a shared core): 'default' is"
echo "loopkit's default method (3 launches x 30 samples, p25, contended"
echo "samples left out); '1xmedian' is $naive."
echo "'plain' is a plain rdtscp loop: min TSC ticks"
echo "of 1000 samples of 16 calls, one process per invocation."
[ "${BENCH:-}" != stability ] || exit 0

echo
echo "== memprof: cost per instrumented call"
sh "$here/memprof-calls.sh" "$loopkit"
if [ -f "$here/memprof-parse.sh" ]; then
	echo
	echo "== memprof: trace parsing speed"
	O=$(dirname "$loopkit") sh "$here/memprof-parse.sh"
fi

echo
echo "== count: loopkit count against gdb breakpoint counting"
sh "$here/count-vs-gdb.sh" "$loopkit" || echo "count-vs-gdb: failed"

echo
echo "== bprof: block profiler stability and time per block, beside llvm-mca"
O=$(dirname "$loopkit") sh "$here/bprof.sh" || echo "bprof: failed"
echo "== predict: llvm-mca batched against one process per block"
sh "$here/predict-batch.sh" "$loopkit" || echo "predict-batch: failed"

echo
echo "== gen: loopkit gen -c over the full suite, beside the same compiles by hand"
sh "$here/gen.sh" "$loopkit" || echo "gen: failed"

echo
echo "== analyze: loopkit analyze beside scikit-learn (tree, forest, end to end)"
sh "$here/analyze.sh" "$loopkit" || echo "analyze: failed"
