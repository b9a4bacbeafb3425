# Verifying PolyBench programs: a file that includes polybench.h is
# linked with the polybench.c beside polybench.h on the include path,
# built with -DPOLYBENCH_DUMP_ARRAYS, and its array dump compared with
# the original's (tests/data/gen/pb: a stand-in harness written here).
# A program that can be verified neither way is refused, naming
# --no-verify.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
pb=$SRC/tests/data/gen/pb
"$LOOPKIT" gen -q "$pb/shift.c" -I "$pb/harness" -t original \
	-t isl+tile,sizes=4x4 -t interchange+kernelify -o out >/dev/null 2>err ||
	{ cat err; fail "polybench program not verified"; }
[ "$(ls out/shift.*.c | wc -l)" -eq 3 ] || fail "one file per chain"
# The dumps are compared: two names for one array make interchange wrong.
set +e
"$LOOPKIT" gen -q "$pb/shift.c" -I "$pb/harness" -D ALIAS -t interchange \
	>/dev/null 2>err; rc=$?
set -e
[ $rc -eq 1 ] || { cat err; fail "alias: exit 1, got $rc"; }
grep -q "array dump mismatch after 'interchange': original [0-9a-f]*, transformed [0-9a-f]*" err ||
	{ cat err; fail "alias: both dumps' hashes"; }
refused() { # WHY ARGS...: exit 2 naming --no-verify, exit 0 with it
	why=$1; shift
	set +e
	"$LOOPKIT" gen -q "$@" -t original >/dev/null 2>err; rc=$?
	set -e
	[ $rc -eq 2 ] || { cat err; fail "$why: exit 2, got $rc"; }
	grep -q "cannot verify it: .*--no-verify skips verification" err ||
		{ cat err; fail "$why: the message"; }
	"$LOOPKIT" gen -q --no-verify "$@" -t original >/dev/null ||
		fail "$why: --no-verify"
}
# polybench.h without polybench.c beside it.
mkdir nopb && cp "$pb/harness/polybench.h" nopb/
refused "no polybench.c" "$pb/shift.c" -I nopb
grep -q "nopb has no polybench.c" err || { cat err; fail "names the dir"; }
# Neither protocol: no polybench.h, nothing printed with --checksum.
cat >plain.c <<'EOC'
double A[10];
void kernel_plain(int n)
{
	int i;
#pragma scop
	for (i = 0; i < n; i++)
		A[i] = A[i] * 0.5;
#pragma endscop
}
int main(void) { kernel_plain(10); return 0; }
EOC
refused "nothing printed" plain.c
grep -q "'--checksum' printed nothing" err || { cat err; fail "says why"; }
exit 0
