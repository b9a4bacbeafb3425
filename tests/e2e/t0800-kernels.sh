# The kernel suite (kernels/README.md): the 30 kernels with their
# families, each file's conventions (one kernel_ function holding one scop
# region in the front end's subset), warning-free builds with gcc and clang
# at -O0 and -O2, one checksum per kernel whatever the build and however
# often it runs, no NaN, infinity or subnormal after one call nor after
# thousands (the state a long measurement leaves), no int-double conversion
# in a kernel (clang's AST). The user examples in examples/gen follow
# the same conventions.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
RTLIB=$(dirname "$LOOPKIT")/lib/liblkrt.a
[ -f "$RTLIB" ] || fail "no runtime library at $RTLIB"
command -v clang >/dev/null || skip "clang is not installed"

# --- the suite: names and families ---------------------------------------
expected="correlation:datamining covariance:datamining
2mm:linear-algebra/kernels 3mm:linear-algebra/kernels
atax:linear-algebra/kernels bicg:linear-algebra/kernels
doitgen:linear-algebra/kernels mvt:linear-algebra/kernels
gemm:linear-algebra/blas gemver:linear-algebra/blas
gesummv:linear-algebra/blas symm:linear-algebra/blas
syr2k:linear-algebra/blas syrk:linear-algebra/blas trmm:linear-algebra/blas
cholesky:linear-algebra/solvers durbin:linear-algebra/solvers
gramschmidt:linear-algebra/solvers lu:linear-algebra/solvers
ludcmp:linear-algebra/solvers trisolv:linear-algebra/solvers
deriche:medley floyd-warshall:medley nussinov:medley
adi:stencils fdtd-2d:stencils heat-3d:stencils jacobi-1d:stencils
jacobi-2d:stencils seidel-2d:stencils"
for e in $expected; do echo "$e"; done | sort >expected
for f in "$SRC"/kernels/*.c; do
	sed -n '1s|^/\* loopkit: kernel=\([a-z0-9-]*\) family=\([a-z/-]*\) \*/$|\1:\2|p' \
		"$f"
done | sort >found
diff expected found || fail "the suite's names and families (line 1 of each file)"
[ "$(wc -l <found)" -eq 30 ] || fail "30 kernels"

# --- conventions of one file ----------------------------------------------
# $1 file, $2 kernel name, $3 the definition's prefix (LKK_KERNEL or the
# user's attribute). The scop region must sit inside kernel_<name>'s body
# and use only for, if, sqrt, exp, pow and fabs as words before a '('.
conventions() {
	f=$1 fn=kernel_$(echo "$2" | tr - _)
	n=$(grep -c "^$3 void $fn(" "$f")
	[ "$n" -eq 1 ] || fail "$f: $n definitions of $fn"
	others=$(grep -o 'kernel_[A-Za-z0-9_]*' "$f" | sort -u | grep -vx "$fn" || true)
	[ -z "$others" ] || fail "$f: other kernel functions: $others"
	[ "$(grep -c '^#pragma scop$' "$f")" -eq 1 ] || fail "$f: one #pragma scop"
	[ "$(grep -c '^#pragma endscop$' "$f")" -eq 1 ] || fail "$f: one endscop"
	awk -v fn="$fn(" '
		index($0, fn) && /^[A-Za-z_]/ && !/;$/ { inkernel = 1 }
		/^#pragma scop$/ { if (!inkernel || scop) bad = 1; scop = 1; next }
		/^#pragma endscop$/ { if (!scop) bad = 1; scop = 0; done = 1; next }
		/^}/ { if (scop) bad = 1; inkernel = 0 }
		scop { print }
		END { exit bad || !done }' "$f" >region ||
		fail "$f: the scop region is not inside $fn"
	grep -Eq '[a-z]' region || fail "$f: empty scop region"
	calls=$(grep -Eo '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' region |
		tr -d ' \t(' | sort -u | grep -Evx 'for|if|sqrt|exp|pow|fabs' || true)
	[ -z "$calls" ] || fail "$f: outside the front end's subset: $calls"
	! grep -Eqw 'while|do|switch|goto|return|break|continue' region ||
		fail "$f: a statement outside the front end's subset"
	! grep -Eq -- '->|&[A-Za-z_(]|#define|#if' region ||
		fail "$f: pointers or the preprocessor in the scop region"
}
for f in "$SRC"/kernels/*.c; do
	conventions "$f" "$(basename "$f" .c)" LKK_KERNEL
done
for f in "$SRC"/examples/gen/*.c; do
	name=$(sed -n '1s|^/\* loopkit: kernel=\([a-z0-9_-]*\) family=user \*/$|\1|p' "$f")
	[ -n "$name" ] || fail "$f: no 'loopkit: kernel=... family=user' line"
	conventions "$f" "$name" "__attribute__((noinline))"
done

# --- no conversion between int and double, no cast, in any kernel ------
# (clang's AST of the kernel function: its body is declarations + region)
for f in "$SRC"/kernels/*.c "$SRC"/examples/gen/*.c; do
	id=$(basename "$f" .c | tr - _)
	clang -fsyntax-only -DMINI_DATASET -I "$SRC/rt" -Xclang -ast-dump \
		-Xclang -ast-dump-filter="kernel_$id" "$f" >ast 2>/dev/null ||
		fail "$f: clang's AST"
	grep -q "FunctionDecl.* kernel_$id " ast || fail "$f: kernel_$id in the AST"
	! grep -Eq 'IntegralToFloating|FloatingToIntegral|CStyleCastExpr' ast ||
		fail "$f: a conversion between int and double in kernel_$id"
done

# --- builds: gcc and clang, -O0 and -O2 -----------------------------------
# One job per (file, compiler, level), two at a time: compile warning-free,
# run --checksum twice (same line both times), keep the line.
cat >build.sh <<'EOF'
f=$1 cc=$2 opt=$3 extra=$4
b=$(basename "$f" .c).$cc$opt
$cc $opt -Wall -Wextra -Werror $extra -ffp-contract=off -DMINI_DATASET \
	-I "$SRC/rt" -o "$b" "$f" "$RTLIB" -lm 2>"$b.err" || exit 0
./"$b" --checksum >"$b.1" 2>>"$b.err" && ./"$b" --checksum >"$b.2" 2>>"$b.err" &&
	cmp -s "$b.1" "$b.2" && mv "$b.1" "$b.sum"
exit 0
EOF
export SRC RTLIB
for f in "$SRC"/kernels/*.c; do
	for c in "gcc -O0" "gcc -O2" "clang -O0" "clang -O2"; do
		echo "$f $c ''"
	done
done >jobs
for f in "$SRC"/examples/gen/*.c; do
	for c in "gcc -O0" "gcc -O2" "clang -O0" "clang -O2"; do
		echo "$f $c -Wno-unknown-pragmas"
	done
done >>jobs
xargs -P 2 -L 1 sh build.sh <jobs
for f in "$SRC"/kernels/*.c "$SRC"/examples/gen/*.c; do
	k=$(basename "$f" .c)
	for b in $k.gcc-O0 $k.gcc-O2 $k.clang-O0 $k.clang-O2; do
		[ -f $b.sum ] || { cat $b.err >&2; fail "$b: build or checksum"; }
		grep -Eqx 'checksum [0-9a-f]{16}' $b.sum || fail "$b: $(cat $b.sum)"
	done
	[ "$(cat $k.*.sum | sort -u | wc -l)" -eq 1 ] ||
		fail "$k: checksums differ between builds: $(cat $k.*.sum)"
done
[ "$(cat ./*.sum | sort -u | wc -l)" -eq 32 ] || fail "32 distinct checksums"

# --- many calls: stays finite, normal, and the mode is strict -------------
# 2,000 calls, far more than a measurement of a MINI kernel makes per
# process; a change of state shows as a new checksum, a blow-up as exit 1.
for f in "$SRC"/kernels/*.c; do
	k=$(basename "$f" .c)
	./$k.gcc-O2 --checksum --calls 2000 >$k.many 2>$k.many.err ||
		fail "$k: after 2000 calls: $(cat $k.many.err)"
	grep -Eqx 'checksum [0-9a-f]{16}' $k.many || fail "$k: $(cat $k.many)"
	./$k.gcc-O2 --checksum --calls 1 | cmp -s - $k.gcc-O2.sum ||
		fail "$k: --calls 1 is one call"
done
# Idempotent kernels keep their checksum, accumulating ones do not.
for k in 3mm atax bicg gesummv cholesky durbin lu ludcmp trisolv deriche \
	floyd-warshall nussinov; do
	cmp -s $k.many $k.gcc-O2.sum || fail "$k: calls are idempotent"
done
for k in gemm mvt jacobi-2d seidel-2d; do
	! cmp -s $k.many $k.gcc-O2.sum || fail "$k: calls accumulate"
done
if ./gemm.gcc-O2 --bogus 2>err; then fail "bad usage accepted"; else
	[ $? -eq 2 ] || fail "bad usage exits 2"; fi
grep -q usage err || fail "usage on stderr"

# --- bad values are caught: the check is not vacuous ----------------------
cat >blowup.c <<'EOF'
#include "kernels.h"
LKK_KERNEL void kernel_blowup(int n, double x[3])
{
	int i;
	for (i = 0; i < n; i++)
		x[i] = x[i] * SCALE * SCALE;
}
int main(int argc, char **argv)
{
	struct lkk_run run;
	double *x;

	lkk_start(&run, argc, argv, "blowup");
	x = lkk_alloc(&run, sizeof(double[3]));
	x[0] = 1.0e100;
	x[1] = 0.0;
	x[2] = -1.0e100;
	LKK_RUN(&run, kernel_blowup(3, x));
	LKK_SUM_F64(&run, x, 3);
	lkk_free(x);
	return lkk_finish(&run);
}
EOF
for scale in 1e125 1e-205; do
	gcc -O2 -Wall -Werror -DSCALE=$scale -I "$SRC/kernels" -I "$SRC/rt" \
		-o blowup$scale blowup.c "$RTLIB" -lm
	./blowup$scale --checksum >out 2>err && fail "$scale: a bad value passes"
	[ ! -s out ] || fail "no checksum when a value is bad"
done
./blowup1e125 --checksum >out 2>err || true
grep -q 'blowup: x\[0\] is infinite' err || fail "infinity reported: $(cat err)"
grep -q 'blowup: x\[2\] is infinite' err || fail "-infinity reported"
grep -q '2 values are not finite normal numbers' err || fail "count: $(cat err)"
./blowup1e-205 --checksum >out 2>err || true
grep -q 'x\[0\] is subnormal' err || fail "subnormal reported: $(cat err)"
! grep -q 'x\[1\]' err || fail "zero is a good value"
