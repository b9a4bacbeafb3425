# A kernel without main: gen refuses to verify it with a message naming
# --no-verify; kernelify has no call to read its sizes from and says to
# give them with --param; with --param NAME=VALUE it cuts a micro-kernel
# that builds and runs, at those sizes.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
k=$SRC/tests/data/gen/bare.c
rc=0
"$LOOPKIT" gen -q "$k" -t original >/dev/null 2>err || rc=$?
[ $rc -ne 0 ] || fail "a kernel without main was verified"
grep -q -- '--no-verify' err || fail "no hint: $(cat err)"
rc=0
"$LOOPKIT" gen -q --no-verify "$k" -t original+kernelify >/dev/null 2>err ||
	rc=$?
[ $rc -ne 0 ] || fail "kernelify without sizes succeeded"
grep -q "size symbol 'n'.*--param n=VALUE" err || fail "message: $(cat err)"
rc=0
"$LOOPKIT" gen -q --no-verify "$k" --param n=nine -t original >/dev/null \
	2>err || rc=$?
[ $rc -eq 2 ] && grep -q "NAME=INTEGER, not 'n=nine'" err ||
	fail "bad --param: rc $rc, $(cat err)"
"$LOOPKIT" gen -q --no-verify "$k" -t original+kernelify \
	--param n=40 --param m=300 >mk.c 2>err || { cat err; fail "--param"; }
grep -q 'LK_KERNEL void kernel_axpy2' mk.c || fail "no micro-kernel"
# The sizes reached the kernel: a row of m = 300 doubles (padded).
grep -q 'param kernel.trip=' mk.c || fail "no trip count"
rt=$(dirname "$LOOPKIT")/lib/liblkrt.a
cc -O2 -I"$SRC/rt" mk.c "$rt" -lm -o mk || fail "the micro-kernel does not build"
./mk >/dev/null || fail "the micro-kernel does not run"
exit 0
