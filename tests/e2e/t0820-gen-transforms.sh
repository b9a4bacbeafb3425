# Every transformation on the test kernels: the generated code compiles
# and its --checksum at MINI size equals the original's (loopkit gen
# verifies it and fails otherwise); illegal ones are refused with the
# dependence they violate, exit 2.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
d=$SRC/tests/data/gen
gen_ok() { # KERNEL CHAINS...
	k=$1; shift
	args=
	for t in "$@"; do args="$args -t $t"; done
	# shellcheck disable=SC2086
	"$LOOPKIT" gen -q "$d/$k.c" $args -o out >/dev/null 2>err ||
		{ cat err; fail "$k: $*"; }
	[ "$(ls out/$k.*.c | wc -l)" -eq $# ] || fail "$k: one file per chain"
}
# Every step at least once, the original's checksum once per kernel.
gen_ok gemm original isl+tile,sizes=8x8 tile2,outer=16,inner=4 \
	interchange unroll-jam,factor=2 vectorize \
	isl+tile,sizes=8x8+vectorize,hint=omp
gen_ok jacobi2d skew+tile,sizes=4x4 unroll fuse
gen_ok trisolv isl distribute
gen_ok seidel isl+tile,sizes=4x4
gen_ok minmax original tile,sizes=4x4 interchange unroll
# The vectorised gemm has its hint on a loop.
grep -q '#pragma GCC ivdep' out/gemm.5.c || fail "gemm vectorize: no hint"
grep -q '#pragma omp simd' out/gemm.6.c || fail "gemm omp: no hint"
# Generated code is generic in the sizes: the macros stay names.
sed -n '/pragma scop/,/pragma endscop/p' out/jacobi2d.1.c | grep -q 'c0 < TSTEPS' || fail "jacobi2d: TSTEPS folded"

refused() { # KERNEL CHAIN PATTERN
	set +e
	"$LOOPKIT" gen -q "$d/$1.c" -t "$2" >out.c 2>err; rc=$?
	set -e
	[ $rc -eq 2 ] || { cat err; fail "$1 $2: exit 2, got $rc"; }
	grep -q "$3" err || { cat err; fail "$1 $2: '$3'"; }
}
refused seidel interchange "violates the RAW (flow) dependence"
refused seidel tile,sizes=4x4 "illegal"
refused seidel vectorize "no innermost loop is parallel"
refused trisolv unroll-jam "no innermost band"
refused gemm unroll,factor=full "code generation failed"
# Several -t: a chain that fails is reported on its own and stops none
# of the others; the exit says one failed (2: an illegal chain).
set +e
"$LOOPKIT" gen -q "$d/seidel.c" -t original -t interchange -t isl \
	-o many >/dev/null 2>err; rc=$?
set -e
[ $rc -eq 2 ] || { cat err; fail "several -t, one illegal: exit 2, got $rc"; }
[ -f many/seidel.0.c ] && [ -f many/seidel.2.c ] && [ ! -f many/seidel.1.c ] ||
	{ ls many; cat err; fail "the chains after the illegal one"; }
grep -q "^loopkit: error: interchange .* is illegal" err &&
grep -q "3 chains: 2 generated ('original', 'isl'), 1 failed ('interchange')" err ||
	{ cat err; fail "each chain reported"; }
# What the model cannot see (two names for one array) verification
# catches: a hard failure with both checksums, exit 1.
set +e
"$LOOPKIT" gen -q "$d/alias.c" -t interchange >out.c 2>err; rc=$?
set -e
[ $rc -eq 1 ] || { cat err; fail "alias: exit 1, got $rc"; }
grep -q "checksum mismatch after 'interchange': original [0-9a-f]*, transformed [0-9a-f]*" err ||
	{ cat err; fail "alias: both checksums"; }
# A failed verification first, then a chain that verifies: exit 1.
set +e
"$LOOPKIT" gen -q "$d/alias.c" -t interchange -t original >out.c 2>err; rc=$?
set -e
[ $rc -eq 1 ] || { cat err; fail "alias, 2 chains: exit 1, got $rc"; }
grep -q '^/\* loopkit gen: original \*/$' out.c ||
	{ cat err; fail "alias: original generated after the failure"; }
# A micro-kernel computes something else, but the transformed nest it is
# cut from is verified all the same.
set +e
"$LOOPKIT" gen -q "$d/alias.c" -t interchange+kernelify >out.c 2>err; rc=$?
set -e
[ $rc -eq 1 ] || { cat err; fail "alias kernelified: exit 1, got $rc"; }
grep -q "checksum mismatch after 'interchange+kernelify' (the nest kernelify starts from): original" err ||
	{ cat err; fail "alias kernelified: the nest is verified"; }
exit 0
