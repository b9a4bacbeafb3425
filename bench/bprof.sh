#!/bin/sh
# bprof, loopkit's block profiler: per-block time and the stability of its
# predictions over repeated measurements (each in a fresh sandboxed
# child) on a handful of blocks whose answer is known, beside llvm-mca-19
# on the same block text (-mcpu=native: Total Cycles / 100 iterations, and
# Block RThroughput, which ignores dependencies).
#   bench/bprof.sh [REPEATS]
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
repeats=${1:-20}
make --no-print-directory O="$O" "$O/liblk.a" >/dev/null
mkdir -p "$O/bench"
# shellcheck disable=SC2046
gcc -std=gnu11 -O2 -g -Wall -Wextra -Iinclude -D_GNU_SOURCE \
	-o "$O/bench/bprof" bench/bprof.c "$O/liblk.a" \
	$(pkg-config --libs yaml-0.1 sqlite3 libelf isl) -lZydis -lZycore \
	-lxxhash -L/usr/lib/llvm-19/lib -Wl,-rpath,/usr/lib/llvm-19/lib \
	-lclang -lpthread -lm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bprof.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# name|expected cycles/iter (from latencies; '-' when not known)|text
blocks='imul4|12 (4 x imul 3)|imul %rax, %rax; imul %rax, %rax; imul %rax, %rax; imul %rax, %rax
add-dep8|8 (8 x add 1)|add %rbx, %rax; add %rbx, %rax; add %rbx, %rax; add %rbx, %rax; add %rbx, %rax; add %rbx, %rax; add %rbx, %rax; add %rbx, %rax
add-indep8|<= 2 (8 adds, 8 chains)|add %rax, %rbx; add %rax, %rcx; add %rax, %rdx; add %rax, %rsi; add %rax, %rdi; add %rax, %r8; add %rax, %r9; add %rax, %r10
load4|4 x L1 latency|mov (%rax), %rax; mov (%rax), %rax; mov (%rax), %rax; mov (%rax), %rax
addsd4|4 x FP add latency|addsd %xmm1, %xmm0; addsd %xmm1, %xmm0; addsd %xmm1, %xmm0; addsd %xmm1, %xmm0
mem-rmw|store-forwarding round trip|add %rax, (%rbx)
daxpy-avx2|-|vmovupd (%rsi,%rax), %ymm0; vfmadd213pd (%rdi,%rax), %ymm1, %ymm0; vmovupd %ymm0, (%rdi,%rax); add $32, %rax; cmp %rax, %rdx; jne .
div64|divide latency|xor %edx, %edx; div %rcx'

args=
printf '%s\n' "$blocks" | while IFS='|' read -r name expect text; do
	printf '%s\n' "$text" | tr ';' '\n' | sed 's/^ *//' >"$tmp/$name.s"
	as -o "$tmp/$name.o" "$tmp/$name.s"
	objcopy -O binary -j .text "$tmp/$name.o" "$tmp/$name.bin"
	printf '%s\n' "$expect" >"$tmp/$name.expect"
	echo "$name" >>"$tmp/names"
done
for name in $(cat "$tmp/names"); do
	args="$args $name $tmp/$name.bin $tmp/$name.s"
done

echo "== bprof: $repeats measurements per block, each in a fresh child"
# shellcheck disable=SC2086
"$O/bench/bprof" "$repeats" $args | tee "$tmp/bprof.out"

mca=$(command -v llvm-mca-19 || true)
echo
printf '%-12s %9s %9s %9s  %s\n' block bprof mca-cyc mca-rthr expected
for name in $(cat "$tmp/names"); do
	b=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/bprof.out")
	if [ -n "$mca" ]; then
		"$mca" -mcpu=native -iterations=100 "$tmp/$name.s" \
			>"$tmp/$name.mca" 2>&1 || true
		cyc=$(awk '/^Total Cycles:/ { printf "%.2f", $3 / 100 }' \
			"$tmp/$name.mca")
		rthr=$(awk '/^Block RThroughput:/ { print $3 }' \
			"$tmp/$name.mca")
	else
		cyc=- rthr=-
	fi
	printf '%-12s %9s %9s %9s  %s\n' "$name" "${b:--}" "${cyc:--}" \
		"${rthr:--}" "$(cat "$tmp/$name.expect")"
done
echo
echo "bprof: median of $repeats predictions (tsc-calibrated-cycles/iter"
echo "without a PMU); spread = max/min - 1 over them. mca-cyc: llvm-mca-19"
echo "-mcpu=native Total Cycles / 100 iterations; mca-rthr: its Block"
echo "RThroughput (dependencies ignored)."
