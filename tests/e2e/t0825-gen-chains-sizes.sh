# Chained assignments (deriche's a1 = a5 = k) are split into statements,
# and a size macro used directly in the scop (heat-3d's TSTEPS) is a
# parameter that kernelify reads at the dataset (tests/data/gen/chain.c,
# and jacobi2d.c's TSTEPS loop).
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
d=$SRC/tests/data/gen
"$LOOPKIT" gen -q "$d/chain.c" -t original -t isl+tile,sizes=4x4 \
	-t original+kernelify -o out >/dev/null 2>err || { cat err; fail "chain"; }
region() { sed -n '/^#pragma scop/,/^#pragma endscop/p' "$1"; }
region out/chain.0.c | grep -q '^	  b = k \* 0.5;$' || { region out/chain.0.c; fail "b = k * 0.5 first"; }
region out/chain.0.c | grep -q '^	  a = b;$' || fail "then a = b"
region out/chain.0.c | grep -q 'c0 < TSTEPS' || fail "TSTEPS stays a name"
grep -q '^static long lk_TSTEPS = 20;$' out/chain.2.c || fail "TSTEPS at SMALL"
"$LOOPKIT" gen -q "$d/jacobi2d.c" -t original+kernelify >j.c 2>err ||
	{ cat err; fail "jacobi2d kernelify"; }
grep -q 'LK_KERNEL void kernel_jacobi2d' j.c || fail "jacobi2d micro-kernel"
exit 0
